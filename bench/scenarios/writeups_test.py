"""Tests of the write-ups' verdict sections (bench/scenarios/writeups.py) on synthetic rows: each claim compares the
cells it names (the right server, load, GOMAXPROCS and condition), in the right direction."""

import os
import unittest

from bench.analysis import verdict
from bench.scenarios import writeups

ROUNDS = range(5)


def ok(**fields):
    return {"status": "ok", **fields}


def fates(*names):
    return [{"name": n, "role": "server", "status": "ran", "command": n, "version": "1"} for n in names]


def by_claim(section, start):
    return next(v for v in section["verdicts"] if v["claim"].startswith(start))


class EchoSectionTest(unittest.TestCase):
    def test_racket_ahead_of_go_under_the_spammer_holds_and_gomaxprocs1_behind_is_reversed(self):
        rows = []
        for r in ROUNDS:
            for server, rate in (("racket", 114584 + r), ("go", 85650 + r), ("go-gomaxprocs1", 70000 + r)):
                rows.append(ok(server=server, client="go-spammer", round=r, msgs_per_s=rate,
                               server_cpu_us_per_msg=3.0, client_cpu_us_per_msg=4.0))
        section = writeups.echo_section(rows, fates("racket", "go", "go-gomaxprocs1"),
                                        {"clients": 3, "seconds": 5, "samples": 5})
        racket = by_claim(section, "Racket beats Go")
        self.assertEqual(racket["verdict"], verdict.HOLDS)
        self.assertAlmostEqual(racket["median_a"], 114586)
        self.assertEqual(by_claim(section, "Go with GOMAXPROCS=1")["verdict"], verdict.REVERSED)
        self.assertIn("| racket | go-spammer | 114,586 |", section["markdown"])


class WebsocketSectionTest(unittest.TestCase):
    def test_procs_2_against_procs_1_of_the_go_pair_decides_and_other_systems_are_not_testable(self):
        rows = []
        for r in ROUNDS:
            for procs, rate in ((1, 233000), (2, 300000), (3, 100), (4, 100)):
                for clients in (1, 4):
                    rows.append(ok(server="go-xnet", client="go-xnet-client", procs=procs, clients=clients,
                                   round=r, msgs_per_s=rate + r, server_cpu_us_per_msg=2.0,
                                   client_cpu_us_per_msg=3.0))
                    # Another pair with the opposite trend must not move the Go verdict.
                    rows.append(ok(server="netbench-ws", client="netbench-ws-client", procs=procs, clients=clients,
                                   round=r, msgs_per_s=1000000 - procs * 1000 + r))
        section = writeups.websocket_section(rows, fates("go-xnet", "go-xnet-client"), {"messages": 100000,
                                                                                       "samples": 5})
        self.assertEqual(by_claim(section, "Linux: Go at GOMAXPROCS=2 beats GOMAXPROCS=1 (4")["verdict"], verdict.HOLDS)
        self.assertEqual(by_claim(section, "macOS")["verdict"], verdict.NOT_TESTABLE)
        four = by_claim(section, "Linux: Go at GOMAXPROCS=4")
        if (os.cpu_count() or 1) < 4:
            self.assertEqual(four["verdict"], verdict.NOT_TESTABLE)
        else:
            self.assertEqual(four["verdict"], verdict.REVERSED)
        self.assertIn("| 4 | 233,002 | 300,002 |", section["markdown"])
        self.assertIn("2 / 3", section["markdown"])


class FanoutSectionTest(unittest.TestCase):
    def test_each_condition_pairs_the_right_runs_and_lower_wall_time_wins(self):
        rows = []
        walls = {("jvm", "fresh"): 1.44, ("jvm", "reuse"): 0.40, ("go", "fresh"): 0.80, ("go", "reuse"): 0.30,
                 ("go-keep", "reuse"): 0.35}
        for r in ROUNDS:
            for (client, condition), wall in walls.items():
                rows.append(ok(server="origin-50ms", scheme="https", client=client, condition=condition, round=r,
                               walls_s=[wall + 0.001 * k for k in range(5)], wall_s_median=wall,
                               client_cpu_us_per_req=100.0, server_cpu_us_per_req=50.0))
        section = writeups.fanout_section(rows, fates("jvm", "go", "go-keep", "origin-50ms"),
                                          {"requests": 500, "reps": 5, "warmup": 3, "samples": 5})
        headline = [v for v in section["verdicts"] if "http-kit-design" in v["claim"]]
        https = [v for v in headline if ", https," in v["claim"]]
        # as written up (jvm reuse 0.40 vs go fresh 0.80), cold (1.44 vs 0.80), warm (0.40 vs go-keep 0.35)
        self.assertEqual([v["verdict"] for v in https], [verdict.HOLDS, verdict.REVERSED, verdict.REVERSED])
        http = [v for v in section["verdicts"] if ", http," in v["claim"]]
        self.assertTrue(all(v["verdict"] == verdict.NOT_MEASURED for v in http))
        self.assertEqual(https[0]["samples_a"], 25)  # every timed repetition is a sample
        jdk = [v for v in section["verdicts"] if "JDK client" in v["claim"]]
        self.assertTrue(jdk and all(v["verdict"] == verdict.NOT_MEASURED for v in jdk))  # not in these rows


class PlacementTest(unittest.TestCase):
    """Each placement is judged on its own rows, with each side's configuration as it ran."""

    def rows(self):
        rows = []
        for r in ROUNDS:
            for placement, cpus, default_procs in (("shared", 2, 2), ("split", 1, 1)):
                for server, rate, procs in (("go", 100000 + r, default_procs), ("go-gomaxprocs1", 150000 + r, 1)):
                    rows.append(ok(server=server, client="go-spammer", round=r, placement=placement,
                                   msgs_per_s=rate if placement == "shared" else 120000 + r,
                                   server_cpu_us_per_msg=3.0, client_cpu_us_per_msg=4.0,
                                   server_config={"cpus": cpus, "threads": 5, "gomaxprocs": procs},
                                   client_config={"cpus": cpus, "gomaxprocs": cpus},
                                   bottleneck="load" if placement == "split" else "neither"))
        return rows

    def section(self):
        return writeups.echo_section(self.rows(), fates("go", "go-gomaxprocs1"),
                                     {"clients": 3, "seconds": 1, "samples": 5})

    def test_a_comparison_of_one_configuration_with_itself_gets_no_verdict(self):
        split = by_claim(self.section(), "[split] Go with GOMAXPROCS=1")
        self.assertEqual(split["verdict"], verdict.SAME_CONFIGURATION)
        self.assertIn("server gomaxprocs 1 on both sides (1 CPU it may use)", split["why"])
        self.assertEqual(split["configuration"]["b_server"]["gomaxprocs"], 1)

    def test_the_shared_placement_judges_the_two_configurations(self):
        shared = by_claim(self.section(), "[shared] Go with GOMAXPROCS=1")
        self.assertEqual(shared["verdict"], verdict.HOLDS)
        self.assertEqual(shared["placement"], "shared")
        self.assertAlmostEqual(shared["median_a"], 150002)

    def test_a_saturated_load_is_named(self):
        section = self.section()
        split = by_claim(section, "[split] Go with GOMAXPROCS=1")
        self.assertEqual(split["bottleneck"], "A: load 5/5; B: load 5/5")
        self.assertIn("msgs/s measured the load generator", split["why"])
        self.assertIsNotNone(by_claim(section, "[split] Racket spends less server CPU per message"))
        self.assertIn("| split | go | go-spammer | 120,002 |", section["markdown"])
        self.assertIn("1 CPU, 5 threads, gomaxprocs 1", section["markdown"])


if __name__ == "__main__":
    unittest.main()
