"""Tests of the one round loop (bench/running/scheduler.py) over a fake runner: the order of the runs, a server
that does not start, Ctrl-C in the middle of a round, servers of their own per run, and a policy that chooses
fewer cases."""

import unittest

from bench.running import scheduler


class FakeServer:
    def __init__(self, name):
        self.name, self.running, self.process = name, True, None

    def alive(self):
        return self.running

    def output_tail(self):
        return ""


class FakeRunner:
    """start_server/run_client/stop_all as contest.Runner has them, with scripted outcomes: servers named in
    `refuse` fail to start; a client run whose label is `interrupt_at` raises KeyboardInterrupt."""

    placement_name = "shared"
    link = None

    def __init__(self, refuse=(), interrupt_at=None):
        self.refuse, self.interrupt_at = set(refuse), interrupt_at
        self.servers, self.started, self.runs, self.stopped = [], [], [], 0

    def start_server(self, entry, values=None, extra_args=(), url_template=None):
        if entry["name"] in self.refuse:
            raise RuntimeError("did not start: no such program")
        server = FakeServer(entry["name"])
        self.started.append(entry["name"])
        self.servers.append(server)
        return server

    def run_client(self, entry, server, values, extra_args=(), bound_s=60, on_result=None):
        label = f"{entry['name']}->{server.name}"
        if label == self.interrupt_at:
            raise KeyboardInterrupt
        self.runs.append(label)
        return {"status": "ok", "found": {"msgs_per_s": [100.0]}}

    def stop(self, server):
        if server in self.servers:
            self.servers.remove(server)
        server.running = False
        return ""

    def stop_all(self):
        self.stopped += 1
        self.servers = []


def case(server, client, **kwargs):
    return scheduler.Case(fields={"server": server, "client": client}, server=scheduler.ServerSpec({"name": server}),
                          client={"name": client}, figures=lambda row, measured: row.update(msgs_per_s=100.0),
                          **kwargs)


CASES = [case("a", "x"), case("b", "x"), case("a", "y")]


class RoundLoopTest(unittest.TestCase):
    def test_rows_come_interleaved_every_case_once_per_round(self):
        runner = FakeRunner()
        seen = []
        outcome = scheduler.run(CASES, runner, scheduler.Plan(rounds=2, on_row=seen.append))
        self.assertEqual([(r["round"], r["server"], r["client"]) for r in outcome.rows],
                         [(0, "a", "x"), (0, "b", "x"), (0, "a", "y"), (1, "a", "x"), (1, "b", "x"), (1, "a", "y")])
        self.assertEqual(seen, outcome.rows)
        self.assertEqual(runner.started, ["a", "b"])  # each server once, kept across rounds
        self.assertEqual(runner.stopped, 1)
        self.assertTrue(all(r["status"] == "ok" and r["placement"] == "shared" for r in outcome.rows))
        self.assertFalse(outcome.interrupted)

    def test_each_case_runs_under_every_runner_before_the_next_case(self):
        runners = {"shared": FakeRunner(), "split": FakeRunner()}
        outcome = scheduler.run(CASES[:2], runners, scheduler.Plan(rounds=1))
        self.assertEqual([(r["server"]) for r in outcome.rows], ["a", "a", "b", "b"])
        self.assertEqual([r["status"] for r in outcome.rows], ["ok"] * 4)
        self.assertEqual(runners["split"].runs, ["x->a", "x->b"])

    def test_a_server_that_does_not_start_fails_its_rows_and_the_others_still_run(self):
        runner = FakeRunner(refuse={"a"})
        outcome = scheduler.run(CASES, runner, scheduler.Plan(rounds=2))
        failed = [r for r in outcome.rows if r["status"] == "failed"]
        self.assertEqual(len(failed), 4)
        self.assertTrue(all(r["server"] == "a" and "did not start" in r["error"] for r in failed))
        self.assertEqual(runner.runs, ["x->b", "x->b"])
        self.assertEqual(list(outcome.failed_servers), ["a"])

    def test_ctrl_c_keeps_the_rows_that_finished_and_stops_every_server(self):
        runner = FakeRunner(interrupt_at="y->a")
        outcome = scheduler.run(CASES, runner, scheduler.Plan(rounds=3))
        self.assertTrue(outcome.interrupted)
        self.assertEqual([(r["server"], r["client"]) for r in outcome.rows], [("a", "x"), ("b", "x")])
        self.assertEqual(runner.stopped, 1)

    def test_a_per_run_server_is_started_for_each_run_and_its_output_read_after_it_stopped(self):
        runner = FakeRunner()
        outputs = []
        one = scheduler.Case(fields={"server": "a", "client": "x"},
                             server=scheduler.ServerSpec({"name": "a"}, per_run=True), client={"name": "x"},
                             figures=lambda row, measured: outputs.append(measured.server_output))
        outcome = scheduler.run([one], runner, scheduler.Plan(rounds=3))
        self.assertEqual(runner.started, ["a", "a", "a"])
        self.assertEqual(len(outcome.rows), 3)
        self.assertEqual(outputs, ["", "", ""])
        self.assertEqual(runner.servers, [])

    def test_a_policy_chooses_each_rounds_cases_and_stops_the_run(self):
        class OpenClaims:
            """Round 0 runs every case, round 1 only those of server a, then nothing: the run stops."""

            def cases(self, round_index, cases, rows):
                return [cases, [c for c in cases if c.fields["server"] == "a"], []][min(round_index, 2)]

        outcome = scheduler.run(CASES, FakeRunner(), scheduler.Plan(rounds=None, policy=OpenClaims()))
        self.assertEqual([(r["round"], r["server"], r["client"]) for r in outcome.rows],
                         [(0, "a", "x"), (0, "b", "x"), (0, "a", "y"), (1, "a", "x"), (1, "a", "y")])

    def test_a_case_limited_to_some_runners_runs_only_there(self):
        runners = {"shared": FakeRunner(), "split": FakeRunner()}
        focused = case("a", "x", skip_runners=("split",))
        outcome = scheduler.run([focused, CASES[1]], runners, scheduler.Plan(rounds=1))
        self.assertEqual([(r["server"], r["placement"]) for r in outcome.rows],
                         [("a", "shared"), ("b", "shared"), ("b", "shared")])
        self.assertEqual(runners["split"].runs, ["x->b"])


if __name__ == "__main__":
    unittest.main()
