"""Tests of how a claim is judged (bench/scenarios/judging.py) in the write-ups' sections (writeup_sections.py,
their claims as bench/registry/writeups/*.toml hold them) on synthetic rows: each claim compares the cells it names
(the right server, load, GOMAXPROCS and condition), in the right direction."""

import os
import unittest

from bench.analysis import sequential
from bench.analysis import verdict
from bench.reporting import markdown
from bench.design import judging
from bench.scenarios import section_parts
from bench.scenarios import writeup_definitions

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
        section = writeup_definitions.ECHO.section(rows, fates("racket", "go", "go-gomaxprocs1"),
                                        {"clients": 3, "seconds": 5, "samples": 5})
        racket = by_claim(section, "Racket beats Go")
        self.assertEqual(racket["verdict"], verdict.HOLDS)
        self.assertAlmostEqual(racket["median_a"], 114586)
        self.assertEqual(by_claim(section, "Go with GOMAXPROCS=1")["verdict"], verdict.REVERSED)
        self.assertIn("| racket | go-spammer | 114,586 |", markdown.section(section))
        self.assertIn(["-", "racket", "go-spammer", "114,586"], [row[:4] for row in section["tables"][0]["rows"]])


class SectionDataTest(unittest.TestCase):
    """A section is data: each claim's lines grouped under its question, the write-up's own load and placement
    its headline; given a stored run's verdicts, the same section again without judging anything."""

    def rows(self):
        rows = []
        for r in ROUNDS:
            for placement in ("shared", "split"):
                for load in ("go-spammer", "netbench-echo-client"):
                    for server, rate in (("racket", 120000 + r), ("go", 100000 + r), ("go-gomaxprocs1", 90000 + r)):
                        rows.append(ok(server=server, client=load, round=r, placement=placement, msgs_per_s=rate,
                                       server_cpu_us_per_msg=3.0, client_cpu_us_per_msg=4.0))
        return rows

    def test_each_question_has_its_headline_under_the_writeups_own_load_and_placement(self):
        section = writeup_definitions.ECHO.section(self.rows(), fates("racket", "go", "go-gomaxprocs1", "go-spammer"),
                                                   {"clients": 3, "seconds": 1, "samples": 5})
        self.assertEqual([g["question"] for g in section["claims"]],
                         ["Racket beats Go in msgs/s", "Go with GOMAXPROCS=1 beats Go at its default",
                          "Racket spends less server CPU per message than Go"])
        for group in section["claims"]:
            self.assertEqual(section["where"][group["headline"]], {"placement": "shared", "variant": "go-spammer"})
            self.assertEqual(len(group["others"]), 3)
        headline = section["verdicts"][section["claims"][0]["headline"]]
        self.assertEqual(headline["a"], {"server": "racket", "client": "go-spammer", "placement": "shared"})

    def test_a_twins_rows_give_a_control_judged_under_the_shared_placement_only(self):
        rows = self.rows()
        rows += [ok(server="go (A/A twin)", client="go-spammer", round=r, placement=placement,
                    msgs_per_s=100000 + r) for r in ROUNDS for placement in ("shared", "split")]
        section = writeup_definitions.ECHO.section(rows, fates("racket", "go", "go-gomaxprocs1", "go-spammer"),
                                                   {"clients": 3, "seconds": 1, "samples": 5})
        control = section["claims"][-1]
        self.assertTrue(control["control"])
        self.assertEqual(control["others"], [])
        line = section["verdicts"][control["headline"]]
        self.assertEqual((line["control"], line["placement"], line["ratio"]), (True, "shared", 1.0))

    def test_a_stored_runs_verdicts_give_the_same_section(self):
        rows = self.rows()
        judged = writeup_definitions.ECHO.section(rows, fates("racket", "go", "go-gomaxprocs1"),
                                                  {"clients": 3, "seconds": 1, "samples": 5})
        stored = [dict(v, why="as stored") for v in judged["verdicts"]]
        again = writeup_definitions.ECHO.section(rows, [], {"clients": 3, "seconds": 1, "samples": 5}, stored)
        self.assertEqual(again["verdicts"], stored)
        self.assertEqual(again["claims"], judged["claims"])

    def test_a_tie_of_saturated_sides_reads_the_same_on_every_render(self):
        # Which side was saturated most: on a tie the first seen, not whichever a set happens to give first.
        cell = [{"status": "ok", "bottleneck": b} for b in ("load", "both", "both", "load")]
        self.assertEqual(section_parts._saturated_text(cell), "load 2/4")

    def test_a_stored_line_no_claim_makes_keeps_a_row_of_its_own(self):
        old = {"claim": "a claim of an older version", "verdict": verdict.HOLDS, "a": {"server": "x"},
               "b": {"server": "y"}, "figure": "msgs_per_s"}
        section = writeup_definitions.FANOUT.section([], [], {"requests": 500, "reps": 3, "warmup": 3, "samples": 3},
                                                     [old])
        self.assertEqual(section["verdicts"], [old])
        self.assertEqual(section["claims"], [{"question": f"Fan-out: {judging.OLDER_CLAIMS}", "headline": 0,
                                              "others": []}])


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
        section = writeup_definitions.WEBSOCKET.section(rows, fates("go-xnet", "go-xnet-client"), {"messages": 100000,
                                                                                       "samples": 5})
        self.assertEqual(by_claim(section, "Linux: Go at GOMAXPROCS=2 beats GOMAXPROCS=1 (4")["verdict"], verdict.HOLDS)
        self.assertEqual(by_claim(section, "macOS")["verdict"], verdict.NOT_TESTABLE)
        four = by_claim(section, "Linux: Go at GOMAXPROCS=4")
        if (os.cpu_count() or 1) < 4:
            self.assertEqual(four["verdict"], verdict.NOT_TESTABLE)
        else:
            self.assertEqual(four["verdict"], verdict.REVERSED)
        self.assertIn("| 4 | 233,002 | 300,002 |", markdown.section(section))
        self.assertIn("2 / 3", markdown.section(section))


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
        section = writeup_definitions.FANOUT.section(rows, fates("jvm", "go", "go-keep", "origin-50ms"),
                                                     {"requests": 500, "reps": 5, "warmup": 3, "samples": 5})
        headline = [v for v in section["verdicts"] if "http-kit-design" in v["claim"]]
        https = [v for v in headline if ", https," in v["claim"]]
        # as written up (jvm reuse 0.40 vs go fresh 0.80), cold (1.44 vs 0.80), warm (0.40 vs go-keep 0.35)
        self.assertEqual([v["verdict"] for v in https], [verdict.HOLDS, verdict.REVERSED, verdict.REVERSED])
        http = [v for v in section["verdicts"] if ", http," in v["claim"]]
        self.assertTrue(all(v["verdict"] == verdict.NOT_MEASURED for v in http))
        self.assertEqual(https[0]["samples_a"], 25)  # every timed repetition is a sample
        # The JDK clients are measured in the table, not judged: no claim names them.
        self.assertEqual([v for v in section["verdicts"] if "JDK client" in v["claim"]], [])


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
        return writeup_definitions.ECHO.section(self.rows(), fates("go", "go-gomaxprocs1"),
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
        self.assertIn("| split | go | go-spammer | 120,002 |", markdown.section(section))
        self.assertIn("1 CPU, 5 threads, gomaxprocs 1", markdown.section(section))


if __name__ == "__main__":
    unittest.main()


class RoundsAVerdictRestsOnTest(unittest.TestCase):
    """A verdict's rounds: those the host disturbed set aside and counted, the figures beside it from the rounds
    it paired, a decided direction under the margin marked, a moving ratio reported."""

    CLAIM = judging.Claim("A beats B", {"server": "a"}, {"server": "b"}, "msgs_per_s", True)

    def rows(self, ratios, extra_b=(), noise=None):
        rows = []
        for r, ratio in enumerate(ratios):
            for server, rate in (("a", 1000 * ratio), ("b", 1000)):
                rows.append(ok(server=server, round=r, msgs_per_s=rate, noise=(noise or {}).get(r, {})))
        rows += [ok(server="b", round=len(ratios) + i, msgs_per_s=rate) for i, rate in enumerate(extra_b)]
        return rows

    def test_a_round_with_steal_above_the_level_is_set_aside_and_counted(self):
        ratios = [1.3, 1.31, 1.29, 1.3, 0.5]
        rows = self.rows(ratios, noise={4: {"steal": verdict.DISTURBED_STEAL + 0.01}, 1: {"steal": 0.02}})
        line = judging.claim_line(self.CLAIM, rows, fates("a", "b"))
        self.assertEqual(line["rounds_paired"], 4)
        self.assertEqual(line["set_aside"]["rounds"], 1)
        self.assertEqual(line["set_aside"]["why"], {"steal": 1})
        self.assertGreater(line["per_round_min"], 1.2)
        counted = judging.claim_line(self.CLAIM, self.rows(ratios), fates("a", "b"))
        self.assertNotIn("set_aside", counted)
        self.assertEqual(counted["rounds_paired"], 5)

    def test_other_load_above_its_level_sets_a_round_aside(self):
        rows = self.rows([1.3] * 4, noise={0: {"other_cpu_share": verdict.DISTURBED_OTHER + 0.01}})
        self.assertEqual(judging.claim_line(self.CLAIM, rows, fates("a", "b"))["set_aside"]["why"],
                         {"other": 1})

    def test_each_sides_lost_runs_are_counted_and_an_unequal_loss_gives_the_ratio_counting_them(self):
        rows = self.rows([1.1] * 10)
        for row in rows:
            if row["server"] == "a" and row["round"] >= 6:
                row["msgs_per_s"] = 0 if row["round"] < 8 else row["msgs_per_s"]
                row["status"] = "failed" if row["round"] >= 8 else row["status"]
        line = judging.claim_line(self.CLAIM, rows, fates("a", "b"))
        self.assertEqual(line["lost"], {"a": {"zero": 2, "failed": 2}, "b": {}})
        # A kept 6 rounds at 1.1 and lost 4: counted as its losses, the median ratio stays above 1, closer.
        self.assertAlmostEqual(line["lost_ratio"], 1.1)
        even = judging.claim_line(self.CLAIM, self.rows([1.1] * 10), fates("a", "b"))
        self.assertNotIn("lost", even)

    def test_rows_with_slots_and_blocks_say_how_often_a_ran_first_and_over_how_many_process_pairs(self):
        rows = self.rows([1.1] * 6)
        for row in rows:
            first = (row["round"] % 2 == 0) == (row["server"] == "a")
            row.update(slot=0 if first else 1, block=row["round"] // 4)
        line = judging.claim_line(self.CLAIM, rows, fates("a", "b"))
        self.assertEqual((line["order"]["a_first"], line["order"]["rounds"], line["process_pairs"]), (3, 6, 2))
        self.assertFalse(line["order"]["unbalanced"])

    def test_the_medians_beside_a_verdict_are_of_the_rounds_it_paired(self):
        # B ran 20 more rounds for another claim, at a tenth of its rate: A's verdict and its medians ignore them.
        rows = self.rows([1.1] * 5, extra_b=[100] * 20)
        line = judging.claim_line(self.CLAIM, rows, fates("a", "b"))
        self.assertAlmostEqual(line["median_b"], 1000)
        self.assertAlmostEqual(line["median_a"], 1100)
        self.assertEqual(line["samples_b"], 5)

    def test_a_sequential_verdicts_figures_stop_at_its_decision(self):
        ratios = [1.3, 1.31, 1.29, 1.3, 1.3, 1.3] * 2 + [0.5] * 10  # decided at its 7th round, at 5%
        line = judging.claim_line(self.CLAIM, self.rows(ratios), fates("a", "b"), options=sequential.DEFAULT)
        self.assertEqual(line["verdict"], verdict.HOLDS)
        self.assertEqual(line["samples_a"], line["sequence"]["rounds"])
        self.assertGreater(line["per_round_min"], 1.2)

    def test_a_direction_decided_by_less_than_the_margin_says_so(self):
        ratios = [1.01, 1.07] * 15  # about 4%, with a spread that keeps the interval past 1.05
        line = judging.claim_line(self.CLAIM, self.rows(ratios), fates("a", "b"),
                                   options=sequential.Options(margin=0.05))
        self.assertEqual(line["verdict"], verdict.HOLDS)
        self.assertTrue(line["small"])
        self.assertIn("under the 5% margin", line["why"])
        big = judging.claim_line(self.CLAIM, self.rows([1.3, 1.31, 1.29, 1.3]), fates("a", "b"),
                                  options=sequential.DEFAULT)
        self.assertNotIn("small", big)

    def test_a_ratio_that_moved_during_the_run_is_reported_as_drifting(self):
        ratios = [1.0 + 0.001 * (i % 3) for i in range(12)] + [1.4 + 0.001 * (i % 3) for i in range(12)]
        line = judging.claim_line(self.CLAIM, self.rows(ratios), fates("a", "b"))
        self.assertEqual(line["drift"]["at_rounds"], [12])
        steady = judging.claim_line(self.CLAIM, self.rows([1.3 + 0.001 * (i % 3) for i in range(24)]),
                                     fates("a", "b"))
        self.assertNotIn("drift", steady)
