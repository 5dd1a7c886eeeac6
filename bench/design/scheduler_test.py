"""Tests of the one round loop (bench/design/scheduler.py) over a fake runner: the order of the runs, a server
that does not start, servers that die (a round whose every run failed ends the loop), Ctrl-C in the middle of a
round, servers of their own per run, and a policy that chooses fewer cases, and the adaptive policy (rounds.UntilDecided) on a fake clock: the minimum rounds, only the open
claims' cases after them, and the budget."""

import math
import unittest

from bench.analysis import sequential
from bench.running import fake
from bench.design import rounds
from bench.design import scheduler


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
        self.servers, self.started, self.runs, self.stopped, self.values = [], [], [], 0, []

    def start_server(self, entry, values=None, extra_args=(), url_template=None):
        if entry["name"] in self.refuse:
            raise RuntimeError("did not start: no such program")
        server = FakeServer(entry["name"])
        self.started.append(entry["name"])
        self.servers.append(server)
        return server

    def run_client(self, entry, server, values, extra_args=(), bound_s=60, measured=None):
        label = f"{entry['name']}->{server.name}"
        if label == self.interrupt_at:
            raise KeyboardInterrupt
        self.runs.append(label)
        self.values.append(dict(values))
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

    def test_each_server_is_warmed_up_once_before_its_first_measured_run(self):
        runner = FakeRunner()
        warmed = [scheduler.Case(fields={"server": s, "client": "load"}, server=scheduler.ServerSpec({"name": s}),
                                 client={"name": "load"}, values={"duration_s": "1"},
                                 warmup={"duration_s": "30"}, warmup_s=30) for s in ("a", "b")]
        outcome = scheduler.run(warmed, runner, scheduler.Plan(rounds=2))
        # The warm-up runs are the first run against each server and leave no row.
        self.assertEqual(runner.runs, ["load->a", "load->a", "load->b", "load->b", "load->a", "load->b"])
        self.assertEqual(runner.values[0], {"duration_s": "30"})
        self.assertEqual(runner.values[1], {"duration_s": "1"})
        self.assertEqual(len(outcome.rows), 4)

    def test_a_per_run_server_is_warmed_up_every_time(self):
        runner = FakeRunner()
        case = scheduler.Case(fields={"server": "a"}, server=scheduler.ServerSpec({"name": "a"}, per_run=True),
                              client={"name": "load"}, values={"duration_s": "1"}, warmup={"duration_s": "9"},
                              warmup_s=9)
        scheduler.run([case], runner, scheduler.Plan(rounds=2))
        self.assertEqual([v["duration_s"] for v in runner.values], ["9", "1", "9", "1"])

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


class DyingServerTest(unittest.TestCase):
    def test_a_round_whose_every_run_failed_ends_the_loop(self):
        clock = fake.FakeClock()
        runner = ClockedRunner(clock)
        original = runner.run_client

        def run_client(entry, server, values, extra_args=(), bound_s=60, measured=None):
            row = original(entry, server, values, extra_args, bound_s, measured)
            if len(runner.runs) > 4:  # the servers die after the first round's four runs
                for s in list(runner.servers):
                    runner.stop(s)
            return row if server.alive() else {"status": "failed", "error": "the server is not running"}

        runner.run_client = run_client
        policy = adaptive([question("open", ("a", "x"), ("b", "x"))], 10_000, clock)
        outcome = scheduler.run(FIVE[:4], {"shared": runner}, scheduler.Plan(rounds=None, policy=policy, clock=clock))
        failed_rounds = {r["round"] for r in outcome.rows if r["status"] != "ok"}
        self.assertEqual(max(r["round"] for r in outcome.rows), max(failed_rounds))
        self.assertLessEqual(max(r["round"] for r in outcome.rows), 2)  # not until the budget's 10,000 s


class ClockedRunner(FakeRunner):
    """A FakeRunner whose every client run moves `clock` on by the next of `seconds` (cycled)."""

    def __init__(self, clock, seconds=(1.0,)):
        super().__init__()
        self.clock, self.seconds = clock, list(seconds)

    def run_client(self, entry, server, values, extra_args=(), bound_s=60, measured=None):
        self.clock.now += self.seconds[len(self.runs) % len(self.seconds)]
        return super().run_client(entry, server, values, extra_args, bound_s, measured)


def question(name, a, b, decided_after=None, runner="shared", family=sequential.SUMMARY):
    """A claim on cells a and b ((server, client)) that is decided once `decided_after` rounds of its runner
    hold both cells (never: None), of `family`."""
    cells = ({"server": a[0], "client": a[1]}, {"server": b[0], "client": b[1]})

    def judge(rows):
        seen = {r["round"] for r in rows if r["server"] == a[0] and r["client"] == a[1]
                and r["placement"] == (runner or "shared")}
        decided = decided_after is not None and len(seen) >= decided_after
        return {"verdict": "holds" if decided else "open",
                "sequence": {"geomean_ratio": 1.1, "interval": [0.9, 1.3] if len(seen) >= 3 else None}}
    return rounds.Question(name, cells, runner, judge, family=family)


FIVE = [case("a", "x"), case("b", "x"), case("a", "y"), case("b", "y"), case("c", "z")]


def adaptive(questions, budget_s, clock, runners=("shared",)):
    return rounds.UntilDecided(questions, runners, rounds.Budget(budget_s, clock=clock), name="test")


class AdaptiveRoundsTest(unittest.TestCase):
    def run_adaptive(self, policy, clock, runner):
        return scheduler.run(FIVE, runner, scheduler.Plan(rounds=None, policy=policy, clock=clock))

    def test_the_first_round_runs_every_case_and_the_minimum_rounds_every_claims_cases(self):
        clock = fake.FakeClock()
        policy = adaptive([question("q", ("a", "x"), ("b", "x"), decided_after=0)], 1000, clock)
        outcome = self.run_adaptive(policy, clock, {"shared": ClockedRunner(clock)})
        by_round = {}
        for row in outcome.rows:
            by_round.setdefault(row["round"], []).append(row["server"] + row["client"])
        # Decided from the start, the claim still gets its minimum rounds; the cases no claim needs wait.
        self.assertEqual(by_round, {0: ["ax", "bx"], 1: ["ax", "bx"], 2: ["ax", "bx"]})
        self.assertIn("every claim decided", policy.stopped)
        # Asked for after the claims, they run once, in a round of their own, and the run stops again.
        policy.tables()
        outcome = scheduler.run(FIVE, {"shared": ClockedRunner(clock)},
                                scheduler.Plan(rounds=None, policy=policy, clock=clock), resume=outcome)
        self.assertEqual([(r["round"], r["server"] + r["client"]) for r in outcome.rows[6:]],
                         [(3, "ay"), (3, "by"), (3, "cz")])
        self.assertEqual(policy.tables_s(FIVE), 0.0)

    def test_the_write_ups_own_claims_get_the_rounds_first_then_the_others(self):
        clock = fake.FakeClock()
        questions = [question("other", ("a", "y"), ("b", "y"), family=sequential.OTHER),
                     question("summary", ("a", "x"), ("b", "x"), decided_after=5)]
        policy = adaptive(questions, 30, clock)
        outcome = self.run_adaptive(policy, clock, {"shared": ClockedRunner(clock)})
        by_round = {}
        for row in outcome.rows:
            by_round.setdefault(row["round"], []).append(row["server"] + row["client"])
        # The first rounds give every claim a look; then the summary's claim alone until it is decided (after 5
        # rounds), then the other.
        self.assertEqual(by_round[0], ["ax", "bx", "ay", "by"])
        self.assertEqual((by_round[3], by_round[4]), (["ax", "bx"], ["ax", "bx"]))
        self.assertTrue(all(by_round[k] == ["ay", "by"] for k in by_round if k > 4))
        self.assertIn("does not fit", policy.stopped)

    def test_a_decided_claims_cases_stop_and_the_open_ones_run_until_the_budget(self):
        clock = fake.FakeClock()
        questions = [question("decided", ("a", "x"), ("b", "x"), decided_after=4),
                     question("open", ("a", "y"), ("b", "y"))]
        policy = adaptive(questions, 30, clock)
        outcome = self.run_adaptive(policy, clock, {"shared": ClockedRunner(clock)})
        by_round = {}
        for row in outcome.rows:
            by_round.setdefault(row["round"], []).append(row["server"] + row["client"])
        self.assertEqual(by_round[0], ["ax", "bx", "ay", "by"])  # the first round: every claim's cases
        self.assertEqual(by_round[2], ["ax", "bx", "ay", "by"])  # the minimum rounds: every claim's; no claim needs cz
        self.assertEqual(by_round[3], ["ax", "bx", "ay", "by"])
        self.assertTrue(all(by_round[k] == ["ay", "by"] for k in by_round if k > 3))
        # 4 s rounds until the first claim is decided (4 of them), then 2 s a round while 2 s fit in the 30 s:
        # 18, 20, ..., 30.
        self.assertEqual(clock.now, 30)
        self.assertEqual(max(by_round), 10)
        self.assertIn("does not fit", policy.stopped)

    def test_the_budget_is_never_passed_by_more_than_one_round(self):
        for budget_s in (0.5, 3, 7, 16, 29.5, 40, 77):
            for pattern in ((1.0,), (0.5, 1.5), (0.2, 3.0, 0.7), (2.0, 0.1, 0.1, 0.1)):
                clock = fake.FakeClock()
                runner = ClockedRunner(clock, pattern)
                starts = []
                policy = adaptive([question("open", ("a", "y"), ("b", "y"))], budget_s, clock)
                looked = policy.cases
                policy.cases = lambda i, c, r: starts.append(clock.now) or looked(i, c, r)
                outcome = self.run_adaptive(policy, clock, {"shared": runner})
                last_round_s = clock.now - starts[-2] if len(starts) > 1 else 0
                self.assertLessEqual(clock.now, budget_s + last_round_s, (budget_s, pattern))
                self.assertGreaterEqual(len(outcome.rows), 2)  # the first round always runs

    def test_an_open_claim_runs_its_cases_only_under_the_runner_it_is_open_in(self):
        clock = fake.FakeClock()
        questions = [question("shared", ("a", "x"), ("b", "x")),
                     question("split", ("a", "x"), ("b", "x"), decided_after=3, runner="split")]
        policy = adaptive(questions, 40, clock, runners=("shared", "split"))
        runners = {"shared": ClockedRunner(clock), "split": ClockedRunner(clock)}
        outcome = self.run_adaptive(policy, clock, runners)
        late = [(r["server"] + r["client"], r["placement"]) for r in outcome.rows if r["round"] >= 3]
        self.assertTrue(late)
        self.assertEqual(set(late), {("ax", "shared"), ("bx", "shared")})
        self.assertLessEqual(clock.now, 40 + 2)

    def test_a_run_stopped_by_its_budget_goes_on_from_its_last_round_with_more(self):
        clock = fake.FakeClock()
        questions = [question("decided", ("a", "x"), ("b", "x"), decided_after=3),
                     question("open", ("a", "y"), ("b", "y"))]
        policy = adaptive(questions, 20, clock)
        runner = ClockedRunner(clock)
        outcome = self.run_adaptive(policy, clock, {"shared": runner})
        self.assertTrue(policy.wants_more())
        first = len(outcome.rows)
        last_round = max(r["round"] for r in outcome.rows)
        self.assertEqual(policy.next_round_s(FIVE), 2)  # the open claim's two cases, 1 s each

        policy.resume(rounds.Budget(6, clock=clock))
        again = scheduler.run(FIVE, {"shared": runner}, scheduler.Plan(rounds=None, policy=policy, clock=clock),
                              resume=outcome)
        self.assertIs(again, outcome)
        later = outcome.rows[first:]
        # Numbered on from the last round, only the open claim's cases, as many rounds as the 6 s buy.
        self.assertEqual([r["round"] for r in later], [last_round + 1] * 2 + [last_round + 2] * 2
                         + [last_round + 3] * 2)
        self.assertEqual({r["server"] + r["client"] for r in later}, {"ay", "by"})
        self.assertTrue(policy.wants_more())

    def test_after_the_tables_round_a_run_with_open_claims_still_wants_the_budget_left(self):
        clock = fake.FakeClock()
        policy = adaptive([question("open", ("a", "y"), ("b", "y"))], 10, clock)
        outcome = self.run_adaptive(policy, clock, {"shared": ClockedRunner(clock)})
        self.assertTrue(policy.wants_more())
        policy.tables()
        policy.resume(rounds.Budget(math.inf, clock=clock))  # as the pipeline runs the tables' round
        scheduler.run(FIVE, {"shared": ClockedRunner(clock)},
                      scheduler.Plan(rounds=None, policy=policy, clock=clock), resume=outcome)
        self.assertTrue(policy.wants_more(), "what the tables leave goes back to the open claim")

    def test_while_the_others_wait_a_part_stops_once_its_own_claims_are_decided(self):
        clock = fake.FakeClock()
        questions = [question("other", ("a", "y"), ("b", "y"), family=sequential.OTHER),
                     question("summary", ("a", "x"), ("b", "x"), decided_after=5)]
        policy = adaptive(questions, 100, clock)
        policy.hold_others(True)
        outcome = self.run_adaptive(policy, clock, {"shared": ClockedRunner(clock)})
        # The first rounds give every claim a look; then the summary's claim alone until it is decided, and
        # the part stops there, wanting more, with most of its budget left.
        self.assertEqual(max(r["round"] for r in outcome.rows), 4)
        self.assertIn("wait", policy.stopped)
        self.assertTrue(policy.wants_more())
        self.assertFalse(policy.summary_within_reach())
        policy.hold_others(False)
        policy.resume(rounds.Budget(10, clock=clock))
        scheduler.run(FIVE, {"shared": ClockedRunner(clock)},
                      scheduler.Plan(rounds=None, policy=policy, clock=clock), resume=outcome)
        self.assertEqual({r["server"] + r["client"] for r in outcome.rows if r["round"] > 4}, {"ay", "by"})

    def test_claims_set_aside_wait_with_the_others_and_still_want_the_budget(self):
        clock = fake.FakeClock()
        questions = [question("other", ("a", "y"), ("b", "y"), family=sequential.OTHER),
                     question("summary", ("a", "x"), ("b", "x"), decided_after=3)]
        policy = adaptive(questions, 100, clock)
        policy.out_of_reach["other"] = {"rounds": 1000}  # set aside: its best case needs more than is left
        policy.spend_set_aside()
        policy.hold_others(True)
        self.run_adaptive(policy, clock, {"shared": ClockedRunner(clock)})
        self.assertIn("wait", policy.stopped)
        self.assertTrue(policy.wants_more(), "the claim set aside gets what is left once the others go")

    def test_a_run_whose_claims_are_all_decided_wants_no_more(self):
        clock = fake.FakeClock()
        policy = adaptive([question("q", ("a", "x"), ("b", "x"), decided_after=3)], 1000, clock)
        self.run_adaptive(policy, clock, {"shared": ClockedRunner(clock)})
        self.assertFalse(policy.wants_more())

    def test_progress_says_the_budget_and_each_open_claims_interval(self):
        clock = fake.FakeClock()
        policy = adaptive([question("open one", ("a", "y"), ("b", "y"))], 100, clock)
        for index in range(3):
            policy.cases(index, FIVE, [])
            clock.now += 10
        text = policy._progress(3)
        self.assertIn("its budget 0m30s spent, 1m10s left", text)
        self.assertIn("open: open one", text)


class DrawnOrderAndBlocksTest(unittest.TestCase):
    def test_the_adaptive_policy_draws_the_order_of_its_chosen_cases_in_every_round(self):
        clock = fake.FakeClock()
        policy = rounds.UntilDecided([question("q", ("a", "x"), ("b", "x"))], ("shared",),
                                     rounds.Budget(200, clock=clock), name="test", order=rounds.Shuffled(seed=3))
        outcome = scheduler.run(FIVE, {"shared": ClockedRunner(clock)},
                                scheduler.Plan(rounds=None, policy=policy, clock=clock))
        firsts = [r["server"] for r in outcome.rows if r["slot"] == 0 and r["round"] >= 1]
        # Each round runs the claim's two cases, a first in some rounds and b first in others.
        self.assertEqual(set(firsts), {"a", "b"})
        self.assertTrue(all(sorted(r["slot"] for r in outcome.rows if r["round"] == i) == [0, 1]
                            for i in range(1, max(r["round"] for r in outcome.rows) + 1)))

    def test_listed_the_adaptive_policy_keeps_the_scenarios_order(self):
        clock = fake.FakeClock()
        policy = rounds.UntilDecided([question("q", ("a", "x"), ("b", "x"))], ("shared",),
                                     rounds.Budget(60, clock=clock), name="test",
                                     order=rounds.order_policy({"how": rounds.LISTED, "seed": 3}))
        outcome = scheduler.run(FIVE, {"shared": ClockedRunner(clock)},
                                scheduler.Plan(rounds=None, policy=policy, clock=clock))
        self.assertEqual({r["server"] for r in outcome.rows if r["slot"] == 0}, {"a"})

    def test_every_row_says_its_slot_in_its_round(self):
        outcome = scheduler.run(CASES, FakeRunner(), scheduler.Plan(rounds=2))
        self.assertEqual([r["slot"] for r in outcome.rows], [0, 1, 2, 0, 1, 2])

    def test_servers_start_again_after_every_block_and_warm_up_again(self):
        runner = FakeRunner()
        warmed = case("a", "x", warmup={"clients": 1})
        outcome = scheduler.run([warmed, case("b", "x")], runner, scheduler.Plan(rounds=5, block_rounds=2))
        self.assertEqual([r["block"] for r in outcome.rows if r["server"] == "a"], [0, 0, 1, 1, 2])
        self.assertEqual(runner.started, ["a", "b"] * 3)
        self.assertEqual(outcome.blocks, 3)
        # A warm-up run before each block's first measured run of "a": three warm-ups, five measured runs.
        self.assertEqual(runner.values.count({"clients": 1}), 3)

    def test_without_blocks_the_servers_serve_the_whole_run(self):
        runner = FakeRunner()
        outcome = scheduler.run(CASES, runner, scheduler.Plan(rounds=4))
        self.assertEqual(runner.started, ["a", "b"])
        self.assertEqual({r["block"] for r in outcome.rows}, {0})

    def test_a_resumed_run_starts_a_block_of_its_own(self):
        runner = FakeRunner()
        outcome = scheduler.run(CASES, runner, scheduler.Plan(rounds=2))
        outcome = scheduler.run(CASES, runner, scheduler.Plan(rounds=3), resume=outcome)
        self.assertEqual([r["block"] for r in outcome.rows if r["server"] == "b"], [0, 0, 1])


class ControlTest(unittest.TestCase):
    def test_an_open_control_runs_in_the_claims_rounds_and_never_alone(self):
        clock = fake.FakeClock()
        claim = question("q", ("a", "x"), ("b", "x"), decided_after=6)
        control = question("aa", ("c", "z"), ("a", "x"), family=sequential.CONTROL)
        policy = adaptive([claim, control], 1000, clock)
        outcome = scheduler.run(FIVE, {"shared": ClockedRunner(clock)},
                                scheduler.Plan(rounds=None, policy=policy, clock=clock))
        by_round = {}
        for row in outcome.rows:
            by_round.setdefault(row["round"], set()).add(row["server"] + row["client"])
        # The control's twin runs in every round of the claim, and the run stops once the claim is decided,
        # the control still open.
        self.assertEqual(sorted(by_round), list(range(6)))
        self.assertTrue(all(cells == {"ax", "bx", "cz"} for cells in by_round.values()), by_round)
        self.assertEqual([q.name for q in policy.open_controls()], ["aa"])
        self.assertFalse(policy.wants_more())


if __name__ == "__main__":
    unittest.main()
