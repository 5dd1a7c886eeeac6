"""The echo write-up run adaptively on synthetic rounds (bench/scenarios/adaptive.py over the round loop, with a
runner whose rates are scripted and a clock moved by each run): a steady lead is decided in the fewest rounds
its sign sequence can decide in and its cells stop, a tie that never settles runs until the budget, and the
verdict lines the section then gives are the ones the run stopped at, with their rounds, bound and steal,
rendered."""

import random
import unittest

from bench.analysis import sequential
from bench.analysis import sign_sequence
from bench.analysis import verdict
from bench.reporting import verdict_text
from bench.running import fake
from bench.design import error_control
from bench.design import rounds
from bench.design import scheduler
from bench.scenarios import adaptive
from bench.scenarios import writeup_definitions


class Server:
    def __init__(self, name):
        self.name = name

    def alive(self):
        return True


class ScriptedRunner:
    """contest.Runner's calls, in memory: each client run takes 1 s on `clock`; racket runs 30% above go
    (within 1%), go-gomaxprocs1 at go's rate with a 30% spread, and every tenth run loses 8% to steal."""

    placement_name = "shared"
    link = None

    def __init__(self, clock):
        self.clock, self.rng, self.runs = clock, random.Random(7), 0

    def start_server(self, entry, values=None, extra_args=(), url_template=None):
        return Server(entry["name"])

    def run_client(self, entry, server, values, extra_args=(), bound_s=60, measured=None):
        self.clock.now += 1.0
        self.runs += 1
        rate = {"racket": 130000 * self.rng.uniform(0.99, 1.01), "go": 100000 * self.rng.uniform(0.99, 1.01),
                "go-gomaxprocs1": 100000 * self.rng.uniform(0.7, 1.3)}[server.name]
        return {"status": "ok", "found": {"msgs_per_s": [rate], "messages": [rate]},
                "noise": {"steal": 0.08 if self.runs % 10 == 0 else 0.01}}

    def stop_all(self):
        pass


SERVERS = ("racket", "go", "go-gomaxprocs1")
FATES = [{"name": n, "role": "server", "status": "ran", "command": n, "version": "1"} for n in SERVERS]


def echo_cases():
    return [scheduler.Case(fields={"server": s, "client": "go-spammer"}, server=scheduler.ServerSpec({"name": s}),
                           client={"name": "go-spammer"}, figures=_figures) for s in SERVERS]


def _figures(row, measured):
    row["msgs_per_s"] = row["found"]["msgs_per_s"][0] if row["status"] == "ok" else None


class AdaptiveEchoTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        clock = fake.FakeClock()
        runners = {"shared": ScriptedRunner(clock)}
        cases = echo_cases()
        control = error_control.ErrorControl(margin=0.05)
        questions = adaptive.questions(writeup_definitions.ECHO, cases, runners, FATES, control)
        cls.policy = rounds.UntilDecided(questions, list(runners), rounds.Budget(60, clock=clock), name="echo",
                                         control=control)
        cls.outcome = scheduler.run(cases, runners, scheduler.Plan(rounds=None, policy=cls.policy, clock=clock))
        cls.clock = clock
        settings = {"clients": 3, "seconds": 1.0, "design": "sequential", "margin": 0.05, "budget_s": 60,
                    "samples": max(r["round"] for r in cls.outcome.rows) + 1,
                    "levels": control.levels_of(writeup_definitions.ECHO.name)}
        cls.section = writeup_definitions.ECHO.section(cls.outcome.rows, FATES, settings)

    def line(self, start):
        return next(v for v in self.section["verdicts"] if v["claim"].startswith(start))

    def test_the_steady_lead_is_decided_in_the_fewest_rounds_and_its_cells_stop(self):
        racket = self.line("Racket beats Go")
        self.assertEqual(racket["verdict"], verdict.HOLDS)
        fewest = sign_sequence.fewest_rounds(racket["sequence"]["direction_alpha"])
        self.assertEqual(racket["sequence"]["rounds"], fewest)
        self.assertEqual({r["round"] for r in self.outcome.rows if r["server"] == "racket"}, set(range(fewest)))

    def test_the_unsettled_claim_stays_open_and_wants_the_rest_of_the_budget(self):
        # A tie at a 30% spread cannot be decided in 60 s: it stays open with what its rounds say, and the part
        # asks for more budget rather than counting it decided.
        tie = self.line("Go with GOMAXPROCS=1")
        self.assertEqual(tie["verdict"], verdict.OPEN)
        self.assertIn("rounds", tie["why"])
        self.assertTrue(self.policy.wants_more())

    def test_a_missing_figure_is_not_measured_and_stops_at_once(self):
        self.assertEqual(self.line("Racket spends less")["verdict"], verdict.NOT_MEASURED)

    def test_a_rendered_line_has_its_rounds_bound_and_steal(self):
        tie = self.line("Go with GOMAXPROCS=1")
        cells = dict(zip(verdict_text.VERDICT_COLUMNS, verdict_text.table_row(tie)))
        self.assertEqual(cells["rounds"], str(tie["sequence"]["rounds"]))
        self.assertEqual(cells["any difference below"], verdict_text.bound(tie))
        self.assertRegex(cells["steal (rounds)"], r"^[0-9]+/[0-9]+ above 5%$")
        self.assertIn("rounds", cells["why"])
        self.assertEqual((tie["design"], tie["steal"]["steal_level"]), ("sequential", verdict.STEAL_LEVEL))
        decided = self.line("Racket beats Go")
        racket = dict(zip(verdict_text.VERDICT_COLUMNS, verdict_text.table_row(decided)))
        # A decided line's last column says only how its rounds were ordered (this loop keeps the listed order:
        # A first in every round) and over how many process pairs they came.
        rounds = decided["sequence"]["rounds"]
        self.assertEqual((racket["rounds"], racket["why"]),
                         (str(rounds), f"A first in {rounds} of {rounds}, 1 process pair"))


class FirstRunLostTest(unittest.TestCase):
    """Racket's first run fails: its claim is not measured after that round, and still open, since the next
    rounds may pair; it is decided as if the run had not been lost, one round later."""

    def test_a_claim_whose_first_run_was_lost_gets_the_next_rounds(self):
        clock = fake.FakeClock()
        runner = ScriptedRunner(clock)
        run_client = runner.run_client

        def failing_first(entry, server, values, **kwargs):
            if server.name == "racket" and not getattr(runner, "racket_failed", False):
                runner.racket_failed = True
                clock.now += 1.0
                return {"status": "failed", "error": "exited 1", "noise": {"steal": 0.01}}
            return run_client(entry, server, values, **kwargs)

        runner.run_client = failing_first
        runners, cases, control = {"shared": runner}, echo_cases(), error_control.ErrorControl(margin=0.05)
        questions = adaptive.questions(writeup_definitions.ECHO, cases, runners, FATES, control)
        policy = rounds.UntilDecided(questions, list(runners), rounds.Budget(60, clock=clock), name="echo",
                                     control=control)
        outcome = scheduler.run(cases, runners, scheduler.Plan(rounds=None, policy=policy, clock=clock))
        racket = next(line for name, line in policy.lines.items() if name.startswith("Racket beats Go"))
        self.assertEqual(racket["verdict"], verdict.HOLDS)
        self.assertEqual(racket["lost"]["a"], {"failed": 1})
        fewest = sign_sequence.fewest_rounds(racket["sequence"]["direction_alpha"])
        self.assertEqual({r["round"] for r in outcome.rows if r["server"] == "racket"}, set(range(fewest + 1)))


if __name__ == "__main__":
    unittest.main()
