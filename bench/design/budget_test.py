"""How the main job spends its budget over the write-ups (budget.spend_budget), on a fake clock with stand-in
parts: each part runs once within its share; what a part decided early leaves goes, in later passes, to the
parts stopped by their share with claims still open; the whole budget is never passed by more than a round;
a part that raised is not run again, and nothing loops when no round fits."""

import unittest

from bench.analysis import sequential
from bench.design import budget
from bench.running import fake
from bench.design import rounds
from bench.design import scheduler


class Outcome:
    def __init__(self):
        self.rows = []


class StandInPart:
    """A part whose every round takes `seconds` and whose claims are decided after `decide_after` rounds
    (None: never). It spends whole rounds of each budget it gets, as the round policy does; a fixed one
    (adaptive=False) runs its 2 rounds."""

    def __init__(self, name, clock, seconds, decide_after=None, adaptive=True, raises=False):
        self.name, self.clock, self.seconds, self.decide_after = name, clock, seconds, decide_after
        self._adaptive, self.raises = adaptive, raises
        self.outcome = None
        self.policy = object() if adaptive else None
        self.settings = {"samples": 2}
        self.budgets = []
        self.stopped_by_budget = False

    def adaptive(self):
        return self._adaptive

    def round_s(self):
        return self.seconds

    def next_round_s(self):
        return self.seconds

    def rounds(self):
        return len(self.outcome.rows) if self.outcome else 0

    def decided(self):
        return self.decide_after is not None and self.rounds() >= self.decide_after

    def wants_more(self):
        return self.policy is not None and self.stopped_by_budget and not self.decided()

    def run(self, budget):
        self.budgets.append(budget.seconds if budget else None)
        self.outcome = self.outcome or Outcome()
        if not self._adaptive:
            for _ in range(self.settings["samples"]):
                self.clock.now += self.seconds
                self.outcome.rows.append(self.name)
            return 0
        spent, self.stopped_by_budget = 0.0, False
        while not self.decided():
            if spent + self.seconds > budget.seconds:
                self.stopped_by_budget = True
                break
            self.clock.now += self.seconds
            spent += self.seconds
            self.outcome.rows.append(self.name)
        return 0


class StandInWithOwnClaim(StandInPart):
    """A part with one of the write-ups' own claims, decided after `own_after` rounds, and other claims never
    decided: while the others wait (hold_others), it stops once its own is decided, wanting more."""

    def __init__(self, name, clock, seconds, own_after):
        super().__init__(name, clock, seconds)
        self.own_after, self.others_wait, self.own_rounds_when_released = own_after, False, None

    def hold_others(self, held):
        if self.others_wait and not held:
            self.own_rounds_when_released = self.rounds()
        self.others_wait = held

    def summary_within_reach(self):
        return self.rounds() < self.own_after

    def wants_more_for_summary(self):
        return self.summary_within_reach()

    def run(self, budget):
        self.budgets.append(budget.seconds)
        self.outcome = self.outcome or Outcome()
        spent, self.stopped_by_budget = 0.0, False
        while True:
            if self.others_wait and not self.summary_within_reach():
                self.stopped_by_budget = True  # it wants more once the others go
                break
            if spent + self.seconds > budget.seconds:
                self.stopped_by_budget = True
                break
            self.clock.now += self.seconds
            spent += self.seconds
            self.outcome.rows.append(self.name)
        return 0


class SpendBudgetTest(unittest.TestCase):
    def run_parts(self, parts, whole_s, clock):
        whole = rounds.Budget(whole_s, clock=clock).start()
        ran = []

        def run_one(part, budget):
            ran.append(part.name)
            if part.raises:
                part.policy = None
                return 1
            return part.run(budget)
        return budget.spend_budget(parts, whole, run_one), ran, whole

    def test_what_a_part_decided_early_leaves_goes_to_an_open_one_that_ran_before_it(self):
        clock = fake.FakeClock()
        fanout = StandInPart("fanout", clock, 10)  # never decided
        echo = StandInPart("echo", clock, 1, decide_after=5)
        codes, ran, whole = self.run_parts([fanout, echo], 300, clock)
        # The first pass: fanout its half (150 s: 15 rounds), echo the rest and decided after 5 s; then fanout
        # again with what echo left, until no round of it fits.
        self.assertEqual(ran[:3], ["fanout", "echo", "fanout"])
        self.assertEqual(echo.rounds(), 5)
        self.assertEqual(fanout.rounds(), 29)  # 295 s of the 300 s
        self.assertLessEqual(clock.now, 300)
        self.assertEqual(codes, {0: 0, 1: 0})

    def test_the_writeups_own_claims_get_the_budget_before_any_part_spends_on_its_others(self):
        clock = fake.FakeClock()
        fanout = StandInWithOwnClaim("fanout", clock, 10, own_after=2)  # its own decided in 2 rounds of 10 s
        echo = StandInWithOwnClaim("echo", clock, 1, own_after=200)  # its own needs 200 rounds of 1 s
        self.run_parts([fanout, echo], 300, clock)
        # The fan-out's own claim is decided in 20 s of its 150 s share; it stops, and echo's share is the 280 s
        # left, so its own claim gets its 200 rounds. Then the other claims share the last 80 s.
        self.assertEqual(fanout.own_rounds_when_released, 2)
        self.assertEqual(echo.own_rounds_when_released, 200)
        self.assertGreater(fanout.rounds(), 2, "the others get what is left once the own claims are decided")
        self.assertLessEqual(clock.now, 300)
        self.assertGreater(clock.now, 290, "no budget is left while a claim is open")
        # Without holding the others back, the fan-out would spend its whole share first, and echo's own
        # claim would not get its 200 rounds.
        clock = fake.FakeClock()
        fanout = StandInPart("fanout", clock, 10)
        echo = StandInPart("echo", clock, 1, decide_after=200)
        self.run_parts([fanout, echo], 300, clock)
        self.assertLess(echo.rounds(), 200)

    def test_the_left_budget_is_split_among_the_open_parts(self):
        clock = fake.FakeClock()
        a = StandInPart("a", clock, 4)
        b = StandInPart("b", clock, 4)
        c = StandInPart("c", clock, 1, decide_after=2)
        self.run_parts([a, b, c], 120, clock)
        # First pass: a 40 s, b 40 s, c 2 s of its 40. The 38 s left: a 19 s (4 rounds), then b the 22 s left
        # (5 rounds), then a the 2 s left: none fits, so the passes end.
        self.assertEqual(a.rounds(), 14)
        self.assertEqual(b.rounds(), 15)
        self.assertLessEqual(clock.now, 120)
        self.assertFalse(any(x is None for x in a.budgets))

    def test_what_no_equal_split_buys_goes_whole_to_a_part_it_buys_a_round_for(self):
        clock = fake.FakeClock()
        a, b = StandInPart("a", clock, 30), StandInPart("b", clock, 30)
        c = StandInPart("c", clock, 1, decide_after=1)
        self.run_parts([a, b, c], 150, clock)
        # First pass: a 50 s (1 round), b 60 s (2), c 1 s and decided. The 59 s left, split in two, buy no
        # round of 30 s; whole, they buy a one: a takes them, and b finds 29 s, which buy it none.
        self.assertEqual((a.rounds(), b.rounds()), (2, 2))
        self.assertEqual(clock.now, 121)

    def test_fixed_parts_run_once_and_nothing_loops_when_no_round_fits(self):
        clock = fake.FakeClock()
        fixed = StandInPart("fixed", clock, 1, adaptive=False)
        slow = StandInPart("slow", clock, 100)  # not one round fits any share
        codes, ran, _ = self.run_parts([slow, fixed], 50, clock)
        self.assertEqual(ran, ["slow", "fixed"])
        self.assertEqual(slow.rounds(), 0)
        self.assertEqual(fixed.rounds(), 2)

    def test_a_part_that_raised_is_not_run_again(self):
        clock = fake.FakeClock()
        broken = StandInPart("broken", clock, 1, raises=True)
        done = StandInPart("done", clock, 1, decide_after=1)
        codes, ran, _ = self.run_parts([broken, done], 100, clock)
        self.assertEqual(ran, ["broken", "done"])
        self.assertEqual(codes, {0: 1, 1: 0})


if __name__ == "__main__":
    unittest.main()


class _Server:
    def __init__(self, name):
        self.name = name

    def alive(self):
        return True


class ClockedRunner:
    """A runner whose every client run moves `clock` on by `seconds`."""

    placement_name = "shared"
    link = None

    def __init__(self, clock, seconds):
        self.clock, self.seconds = clock, seconds

    def start_server(self, entry, values=None, extra_args=(), url_template=None):
        return _Server(entry["name"])

    def run_client(self, entry, server, values, extra_args=(), bound_s=60, measured=None):
        self.clock.now += self.seconds
        return {"status": "ok"}

    def stop(self, server):
        return ""

    def stop_all(self):
        pass


def case(server, client):
    return scheduler.Case(fields={"server": server, "client": client}, server=scheduler.ServerSpec({"name": server}),
                          client={"name": client})


class PolicyPart:
    """A part as pipeline.Part runs it, on the real round loop and adaptive policy, with a fake clock: two cases of
    `case_s` seconds each and one claim on them whose sequence needs `needed` rounds to decide (None: more than
    the rule's cap)."""

    def __init__(self, name, clock, case_s, needed):
        self.name, self.clock, self.needed = name, clock, needed
        self.cases = [case(name, "a"), case(name, "b")]
        self.runner = ClockedRunner(clock, case_s)
        self.outcome, self.raises, self.settings, self.case_s = None, False, {}, case_s
        question = rounds.Question(name, ({"server": name, "client": "a"}, {"server": name, "client": "b"}),
                                   "shared", self.judge)
        self.policy = rounds.UntilDecided([question], ["shared"], rounds.Budget(0, clock=clock), name=name)

    def judge(self, rows):
        seen = len({r["round"] for r in rows if r["server"] == self.name})
        decided = self.needed is not None and seen >= self.needed
        return {"verdict": "holds" if decided else "open",
                "sequence": {"rounds": seen, "rounds_to_decide": self.needed, "rounds_best_case": self.needed,
                             "median_ratio": 1.0, "interval": [0.9, 1.1] if seen >= 3 else None}}

    def adaptive(self):
        return True

    def round_s(self):
        return 2 * self.case_s

    def next_round_s(self):
        return self.policy.next_round_s(self.cases)

    def cheapest_s(self):
        return self.policy.cheapest_s(self.cases)

    def wants_more(self):
        return self.policy.wants_more()

    def spend_set_aside(self):
        self.policy.spend_set_aside()

    def rounds(self):
        return len({r["round"] for r in self.outcome.rows}) if self.outcome else 0

    def run(self, budget, whole):
        self.policy.whole = whole
        if self.outcome is None:
            self.policy.budget = budget
        else:
            self.policy.resume(budget)
        plan = scheduler.Plan(rounds=None, policy=self.policy, clock=self.clock)
        self.outcome = scheduler.run(self.cases, {"shared": self.runner}, plan, resume=self.outcome)
        return 0


class OutOfReachTest(unittest.TestCase):
    def test_a_claim_the_budget_cannot_decide_stops_and_leaves_its_minutes_to_one_it_can(self):
        # The fan-out's round is 100 s and its claim needs more rounds than the rule's cap even at its best; the
        # echo's round is 2 s and its claim needs 500 of them (1,000 s). Each part's first share is half of the
        # 1,800 s. Spending its share, the fan-out would take 900 s and leave the echo too little; set aside
        # after its minimum rounds, it takes 300 s, the echo decides, and what is left then goes to the fan-out
        # rather than unspent.
        clock = fake.FakeClock()
        fanout = PolicyPart("fanout", clock, 50, needed=None)
        echo = PolicyPart("echo", clock, 1, needed=500)
        whole = rounds.Budget(1800, clock=clock).start()
        budget.spend_budget([fanout, echo], whole, lambda part, budget: part.run(budget, whole))
        self.assertIn("fanout", fanout.policy.out_of_reach)
        self.assertEqual(echo.policy.lines["echo"]["verdict"], "holds")
        self.assertEqual(echo.rounds(), 500)
        self.assertEqual(fanout.rounds(), sequential.MIN_ROUNDS + 5)  # 300 s, then the 500 s the echo left
        self.assertLessEqual(clock.now, 1800)
        self.assertGreater(clock.now, 1800 - 100)

    def test_a_claim_out_of_reach_late_in_the_run_gets_the_rest_once_nothing_within_reach_can_use_it(self):
        # 100 s left when the echo starts, its claim needs 500 rounds of 2 s: set aside after its minimum rounds,
        # it still gets the rest of the budget, since no claim within reach is open to use it.
        clock = fake.FakeClock()
        fixed = StandInPart("fixed", clock, 850, adaptive=False)  # 2 rounds: 1,700 s
        echo = PolicyPart("echo", clock, 1, needed=500)
        whole = rounds.Budget(1800, clock=clock).start()

        def run_one(part, budget):
            return part.run(budget) if part is fixed else part.run(budget, whole)
        budget.spend_budget([fixed, echo], whole, run_one)
        self.assertIn("echo", echo.policy.out_of_reach)
        self.assertEqual(echo.policy.lines["echo"]["verdict"], "open")
        self.assertEqual(echo.rounds(), 50)
        self.assertEqual(clock.now, 1800)