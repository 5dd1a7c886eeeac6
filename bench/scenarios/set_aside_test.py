"""Tests of rounds set aside as a finding, from a run's rows to its last screen: the progress line names who took
the CPUs (bench/design/scheduler.py), a claim whose rounds were all set aside is open and says by whom, never
"not measured" (judging.claim_line), the adaptive policy keeps it open and gives it the next round
(rounds.UntilDecided), a claim whose contestant did not run stays "not measured", and the closing summary names
the disturbance (bench/reporting/terminal.py)."""

import contextlib
import io
import unittest

from bench.analysis import sequential
from bench.analysis import verdict
from bench.design import rounds
from bench.design import scheduler
from bench.reporting import terminal
from bench.design import judging

CLAIM = judging.Claim("A beats B", {"server": "a"}, {"server": "b"}, "msgs_per_s", higher_is_better=True,
                       names=("a", "b"))
OPTIONS = sequential.Options(margin=0.05, alpha=0.05)


def noise_of(share, quiet=0.002):
    """A run's noise where other programs took `share` of 2 CPUs over 2 s (yes, pid 28796, the top one)."""
    cpu_s = share * 4
    return {"steal": 0.0, "other_cpu_share": share, "server_cpu_s": 1.0, "client_cpu_s": 1.0,
            "neighbours": {"cpu_s": cpu_s, "share": share, "quiet_share": quiet,
                           "top": {"pid": 28796, "name": "yes", "cpu_s": cpu_s} if share else None}}


def rows_of(rounds_, busy, a=110.0, b=100.0):
    """Both sides' rows over `rounds_` rounds, those in `busy` with a neighbour taking 31% of the CPUs."""
    return [{"round": i, "status": "ok", "server": server, "msgs_per_s": value * (1 + 0.01 * (i % 3)),
             "noise": noise_of(0.31 if i in busy else 0.0)}
            for i in range(rounds_) for server, value in (("a", a), ("b", b))]


class ClaimLineTest(unittest.TestCase):
    def test_a_claim_whose_rounds_were_all_set_aside_is_open_and_says_by_whom(self):
        line = judging.claim_line(CLAIM, rows_of(12, busy=range(12)), [], options=OPTIONS)
        self.assertEqual(line["verdict"], verdict.OPEN)
        self.assertEqual(line["why"], "other programs took 31% of the CPUs in 12 of 12 rounds (yes, pid 28796)")
        self.assertEqual(line["set_aside"]["top"], [{"pid": 28796, "name": "yes", "cpu_s": 29.76}])  # 24 runs
        fixed = judging.claim_line(CLAIM, rows_of(12, busy=range(12)), [])
        self.assertEqual(fixed["verdict"], verdict.OPEN)

    def test_rounds_after_the_neighbour_left_decide_it_and_the_line_counts_those_set_aside(self):
        line = judging.claim_line(CLAIM, rows_of(30, busy=range(10)), [], options=OPTIONS)
        self.assertEqual(line["verdict"], verdict.HOLDS)
        self.assertEqual((line["set_aside"]["rounds"], line["set_aside"]["of"]), (10, 30))
        self.assertLessEqual(line["sequence"]["rounds"], 20)  # of the rounds after it

    def test_a_side_that_did_not_run_is_still_not_measured(self):
        rows = [r for r in rows_of(12, busy=range(12)) if r["server"] == "a"]
        fates = [{"name": "b", "status": "failed", "why": "did not start"}]
        line = judging.claim_line(CLAIM, rows, fates, options=OPTIONS)
        self.assertEqual(line["verdict"], verdict.NOT_MEASURED)


def case(server):
    return scheduler.Case(fields={"server": server}, server=scheduler.ServerSpec({"name": server}),
                          client={"name": "load"})


class Server:
    def __init__(self, name):
        self.name = name

    def alive(self):
        return True


class BusyRunner:
    """A runner whose runs report `busy` (a list, shared with the test) as the share other programs took."""
    placement_name = "shared"
    link = None

    def __init__(self, busy):
        self.busy = busy

    def start_server(self, entry, values=None, extra_args=(), url_template=None):
        return Server(entry["name"])

    def run_client(self, entry, server, values, extra_args=(), bound_s=60, measured=None):
        return {"status": "ok", "msgs_per_s": 110.0 if server.name == "a" else 100.0, "noise": noise_of(self.busy[0])}

    def stop_all(self):
        pass


class RoundLoopTest(unittest.TestCase):
    def test_a_set_aside_run_says_so_and_the_claim_stays_open_for_the_quiet_rounds(self):
        busy = [0.31]
        question = rounds.Question("A beats B", (CLAIM.a, CLAIM.b), None,
                                   lambda rows: judging.claim_line(CLAIM, rows, [], options=OPTIONS))
        policy = rounds.UntilDecided([question], [None], rounds.Budget(3600), name="echo")
        logged = io.StringIO()
        with contextlib.redirect_stderr(logged):
            outcome = scheduler.run([case("a"), case("b")], BusyRunner(busy),
                                    scheduler.Plan(rounds=6, policy=policy, name="echo", quiet_share=0.004))
        text = logged.getvalue()
        self.assertIn("echo round 1/6: a: 110 msgs/s; set aside: other programs took 31% of the CPUs "
                      "(yes, pid 28796)", text)
        self.assertEqual([r["noise"]["neighbours"]["quiet_share"] for r in outcome.rows], [0.004] * 12)
        self.assertEqual(policy.open(), [question])  # every round set aside: open, and it got all 6
        self.assertEqual(max(r["round"] for r in outcome.rows), 5)
        self.assertNotIn("every claim decided", text)
        self.assertEqual(policy.lines["A beats B"]["verdict"], verdict.OPEN)

    def test_once_the_neighbour_leaves_the_claim_is_decided_from_the_quiet_rounds(self):
        busy = [0.31]

        def on_row(row):  # the neighbour leaves after round 3
            if row["round"] == 2 and row["server"] == "b":
                busy[0] = 0.0
        question = rounds.Question("A beats B", (CLAIM.a, CLAIM.b), None,
                                   lambda rows: judging.claim_line(CLAIM, rows, [], options=OPTIONS))
        policy = rounds.UntilDecided([question], [None], rounds.Budget(3600), name="echo")
        with contextlib.redirect_stderr(io.StringIO()):
            outcome = scheduler.run([case("a"), case("b")], BusyRunner(busy),
                                    scheduler.Plan(rounds=40, policy=policy, name="echo", on_row=on_row))
        line = judging.claim_line(CLAIM, outcome.rows, [], options=OPTIONS)
        self.assertEqual(line["verdict"], verdict.HOLDS)
        self.assertEqual((line["set_aside"]["rounds"], line["set_aside"]["why"]), (3, {"other": 3}))
        self.assertIn("every claim decided", policy.stopped)
        self.assertEqual(policy.open(), [])


class LastScreenTest(unittest.TestCase):
    def test_the_summary_names_the_rounds_set_aside_and_who_took_the_cpus(self):
        aside = verdict.set_aside_of(rows_of(12, busy=range(9)))
        doc = {"run": {"label": "test", "commit": "abc", "time": "now"}, "summary": [],
               "sections": [{"id": "echo", "set_aside": aside}]}
        self.assertIn("set aside (not counted): echo 9 of 12 rounds; other programs took 31% of the CPUs in them; "
                      "most: yes (pid 28796, 22 s of CPU)", terminal.render(doc))
        self.assertNotIn("set aside", terminal.render({**doc, "sections": [{"id": "echo"}]}))


if __name__ == "__main__":
    unittest.main()
