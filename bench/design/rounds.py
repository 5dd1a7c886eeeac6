"""Which cases run in a round, and in what order: the scheduler's policy (bench/design/scheduler.py).

Every case runs once per round and the cases are interleaved within each round, so that slow drift of the
machine (this VM's speed wanders) hits all cases alike and ratios can be taken within a round.

    policy = rounds.EveryCase()                  # the fixed design: every case, every round, in order
    policy = rounds.Shuffled(seed=1)             # every case, every round, in an order drawn per round
    policy = rounds.Alternating()                # every case, the order reversed every other round (A-B, B-A)
    policy.cases(round_index, cases, rows)       # -> the cases of this round, in the order they run

A policy that spends rounds only where a claim is still open returns fewer cases, and none to stop:

    policy = rounds.UntilDecided(questions, ["shared", "split"], rounds.Budget(600), name="echo")
    policy.observe(case, runner_key, seconds)    # the scheduler's report of each run's duration
    policy.wants_more(), policy.resume(rounds.Budget(120))   # out of budget with claims open: go on
"""

import dataclasses
import math
import random
import time
from typing import Callable, Optional

from bench.analysis import sequential
from bench.analysis import verdict
from bench.base import progress


class EveryCase:
    """The fixed design: every case in every round, in the order the scenario lists them."""

    def cases(self, round_index, cases, rows):
        return list(cases)


class Shuffled:
    """Every case in every round, in an order drawn afresh for each round: a case that gains from running
    first (a cache it warms, a server it follows) gains in some rounds and loses in others. The order depends
    only on `seed` and the round's index, so that a run is repeated exactly and a round asked twice answers
    alike."""

    def __init__(self, seed=0):
        self.seed = seed

    def cases(self, round_index, cases, rows):
        chosen = list(cases)
        random.Random(f"{self.seed}:{round_index}").shuffle(chosen)
        return chosen


class Alternating:
    """Every case in every round, in the listed order in even rounds and reversed in odd ones: over two rounds
    of two cases, A-B-B-A. Whatever grows or shrinks steadily within a pair of rounds (a warming cache, a
    neighbour's load coming or going) then favours each case alike, where a fixed order would hand it to one."""

    def cases(self, round_index, cases, rows):
        return list(cases) if round_index % 2 == 0 else list(reversed(cases))

@dataclasses.dataclass(frozen=True)
class Question:
    """A claim the adaptive policy follows under one runner: its `name` (for progress lines), its two `cells`
    (row fields a case's own fields match), the `runner` key whose runs judge it (None: every runner's), and
    `judge(rows)`, its verdict line from the rows so far (bench/analysis/verdict.py's: "open" until decided,
    with its `sequence` decision)."""
    name: str
    cells: tuple
    runner: object
    judge: Callable


@dataclasses.dataclass
class Budget:
    """Seconds to spend, on `clock`, from the first look at what is left (start())."""
    seconds: float
    clock: Callable = time.monotonic
    started: Optional[float] = None

    def start(self):
        if self.started is None:
            self.started = self.clock()
        return self

    def spent(self):
        return self.clock() - self.start().started

    def left(self):
        return self.seconds - self.spent()


# The rounds a claim runs before it may be found out of reach: its spread from fewer is too rough a guess.
OUT_OF_REACH_AFTER = 5


class UntilDecided:
    """The adaptive design: every case in the first round (the tables' cases that no claim needs run once),
    the cases of every question until `min_rounds` rounds (a paired interval for every claim), then, each
    round, only the cases of the questions still open,
    under the runners that judge them; every question is judged after every round and stops once decided. A
    question that, from OUT_OF_REACH_AFTER rounds on, would need more rounds to decide at the spread seen
    (its sequence's rounds_to_decide) than what is left of the `whole` run's budget buys at its cases' round
    time is out of reach: it keeps its bound and gets no more rounds, so that the budget goes to the claims it
    can still decide. The run stops when none is open, or when the next round, at its cases' last measured
    durations, would not fit `budget` (sequential.should_start_round): it passes the budget by at most one
    round's misestimate. `whole` is the budget of the whole run this part is a share of (None: `budget`)."""

    def __init__(self, questions, runners, budget, whole=None, min_rounds=sequential.MIN_ROUNDS, name=""):
        self.questions, self.runners, self.budget, self.whole = list(questions), list(runners), budget, whole
        self.min_rounds, self.name = min_rounds, name
        self.lines = {}  # question name -> its latest verdict line
        self.durations = {}  # (case label, runner key) -> seconds of its last run
        self.stopped = None  # why the run stopped
        self.out_of_budget = False  # it stopped with claims open because the next round did not fit
        self.out_of_reach = {}  # question name -> {"rounds", "more", "round_s", "left_s"} when it was given up

    def observe(self, case, runner, seconds):
        """The scheduler's report of one run: its case, runner key and duration."""
        self.durations[(case.label(), runner)] = seconds

    def resume(self, budget):
        """Goes on, within `budget`, from where the budget stopped it: the scheduler's next round (numbered
        after the last) judges what is still open and runs only its cases."""
        self.budget, self.stopped, self.out_of_budget = budget, None, False

    def next_round_s(self, cases):
        """The expected seconds of the next round of `cases` past the minimum rounds: the open claims' cases."""
        return self._expected(self._needed(cases, self.open()))

    def wants_more(self):
        """Whether more budget would be spent: the last one ran out with claims still open."""
        return self.out_of_budget and bool(self.open())

    def open(self):
        return [q for q in self.questions if q.name not in self.out_of_reach
                and ((self.lines.get(q.name) or {}).get("verdict", verdict.OPEN) == verdict.OPEN
                     or _all_set_aside(self.lines.get(q.name)))]

    def cheapest_s(self, cases):
        """The fewest seconds that would decide one of the open questions over `cases` at the spread seen
        (rounds still needed times its round's time); inf when none has an estimate."""
        costs = [c for c in (self._to_decide_s(q, cases) for q in self.open()) if c is not None]
        return min(costs, default=math.inf)

    def cases(self, round_index, cases, rows):
        self.budget.start()
        if round_index > 0:
            for question in self.open():
                self.lines[question.name] = question.judge(rows)
            self._set_out_of_reach_aside(cases)
            progress.log(self._progress(round_index))
        if round_index == 0:
            chosen = list(cases)
        else:
            chosen = self._needed(cases, self.questions if round_index < self.min_rounds else self.open())
        if not chosen:
            self.stopped = (f"every claim decided{' or out of reach' if self.out_of_reach else ''} after "
                            f"{round_index} rounds")
        elif not sequential.should_start_round(self.budget.spent(), self.budget.seconds, self._expected(chosen)):
            self.stopped = (f"the next round (about {self._expected(chosen):.0f} s) does not fit the "
                            f"{max(self.budget.left(), 0):.0f} s left; {len(self.open())} claim(s) open")
            self.out_of_budget = True
            chosen = []
        if self.stopped:
            progress.log(f"{self.name}: stopped: {self.stopped}")
        return chosen

    def _round_s(self, question, cases):
        """The expected seconds of one round of `question`'s cases."""
        return self._expected(self._needed(cases, [question]))

    def _to_decide_s(self, question, cases):
        """The seconds the rounds still needed to decide `question` at the spread seen take; None where its
        sequence has no estimate yet; inf where no number of rounds within the rule's cap would decide it."""
        sequence = (self.lines.get(question.name) or {}).get("sequence") or {}
        if "rounds_to_decide" not in sequence or sequence.get("interval") is None:
            return None
        needed, done = sequence["rounds_to_decide"], sequence.get("rounds", 0)
        if needed is None:
            return math.inf
        return max(needed - done, 1) * self._round_s(question, cases)

    def _set_out_of_reach_aside(self, cases):
        left = (self.whole or self.budget).left()
        for question in self.open():
            sequence = (self.lines.get(question.name) or {}).get("sequence") or {}
            cost = self._to_decide_s(question, cases)
            if sequence.get("rounds", 0) < OUT_OF_REACH_AFTER or cost is None or cost <= left:
                continue
            needed = sequence["rounds_to_decide"]
            self.out_of_reach[question.name] = {
                "rounds": sequence["rounds"], "more": None if needed is None else needed - sequence["rounds"],
                "round_s": round(self._round_s(question, cases), 1), "left_s": round(max(left, 0), 1)}
            more = "more than the rule's cap" if needed is None else f"about {needed - sequence['rounds']} more"
            progress.log(f"{self.name}: out of reach: {question.name}: {more} rounds would decide it, "
                         f"{_minutes(left)} left; it keeps its bound and gets no more rounds")

    def _needed(self, cases, questions):
        """The cases of `questions`, each limited to the runners whose questions need it."""
        out = []
        for case in cases:
            keys = {q.runner for q in questions if any(_matches(case.fields, cell) for cell in q.cells)}
            if None in keys:
                keys = set(self.runners)
            skip = tuple(dict.fromkeys(list(case.skip_runners) + [k for k in self.runners if k not in keys]))
            if any(k not in skip for k in self.runners):
                out.append(dataclasses.replace(case, skip_runners=skip) if skip != case.skip_runners else case)
        return out

    def _expected(self, chosen):
        """A round of `chosen`, at each run's last measured duration (unmeasured: the mean of those measured)."""
        known = list(self.durations.values())
        guess = sum(known) / len(known) if known else 0.0
        return sum(self.durations.get((case.label(), key), guess)
                   for case in chosen for key in self.runners if key not in case.skip_runners)

    def _progress(self, round_index):
        """After a round: the time spent and left of the part's budget and the whole's, and each open claim
        with its current interval (from the minimum rounds on: before them none has one)."""
        whole = f"; the whole run's {_spent(self.whole)}" if self.whole is not None else ""
        open_ = self.open()
        reach = f", {len(self.out_of_reach)} out of reach" if self.out_of_reach else ""
        lines = [f"{self.name}: {round_index} rounds; its budget {_spent(self.budget)}{whole}; {len(open_)} of "
                 f"{len(self.questions)} claims open{reach}"]
        for question in open_ if round_index >= self.min_rounds else []:  # no interval before them
            sequence = (self.lines.get(question.name) or {}).get("sequence") or {}
            interval = sequence.get("interval")
            shown = (f"{sequence['geomean_ratio']:.3f} ({interval[0]:.3f} .. {interval[1]:.3f})" if interval
                     else "too few rounds")
            lines.append(f"  open: {question.name}: {shown}")
        return "\n".join(lines)


def _all_set_aside(line):
    """Whether every round of a question's line was set aside (other programs, steal): nothing was decided
    of the claim, so it stays open for the rounds a quieter machine gives, whatever its verdict says."""
    aside = (line or {}).get("set_aside") or {}
    return aside.get("of") is not None and aside.get("rounds") == aside["of"]


def _matches(fields, cell):
    return all(fields.get(k) == v for k, v in cell.items())


def _spent(budget):
    return f"{_minutes(budget.spent())} spent, {_minutes(budget.left())} left"


def _minutes(seconds):
    seconds = max(seconds, 0)
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"
