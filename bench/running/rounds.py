"""Which cases run in a round, and in what order: the scheduler's policy (bench/running/scheduler.py).

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
import random
import time
from typing import Callable, Optional

from bench.analysis import sequential
from bench.analysis import verdict
from bench.running import progress


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


class UntilDecided:
    """The adaptive design: every case in the first round (the tables' cases that no claim needs run once),
    the cases of every question until `min_rounds` rounds (a paired interval for every claim), then, each
    round, only the cases of the questions still open,
    under the runners that judge them; every question is judged after every round and stops once decided. The
    run stops when none is open, or when the next round, at its cases' last measured durations, would not fit
    `budget` (sequential.should_start_round): it passes the budget by at most one round's misestimate.
    `whole` is the budget of the whole run this part is a share of, for progress lines."""

    def __init__(self, questions, runners, budget, whole=None, min_rounds=sequential.MIN_ROUNDS, name=""):
        self.questions, self.runners, self.budget, self.whole = list(questions), list(runners), budget, whole
        self.min_rounds, self.name = min_rounds, name
        self.lines = {}  # question name -> its latest verdict line
        self.durations = {}  # (case label, runner key) -> seconds of its last run
        self.stopped = None  # why the run stopped
        self.out_of_budget = False  # it stopped with claims open because the next round did not fit

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
        return [q for q in self.questions if (self.lines.get(q.name) or {}).get("verdict", verdict.OPEN) == verdict.OPEN]

    def cases(self, round_index, cases, rows):
        self.budget.start()
        if round_index > 0:
            for question in self.open():
                self.lines[question.name] = question.judge(rows)
            progress.log(self._progress(round_index))
        if round_index == 0:
            chosen = list(cases)
        else:
            chosen = self._needed(cases, self.questions if round_index < self.min_rounds else self.open())
        if not chosen:
            self.stopped = f"every claim decided after {round_index} rounds"
        elif not sequential.should_start_round(self.budget.spent(), self.budget.seconds, self._expected(chosen)):
            self.stopped = (f"the next round (about {self._expected(chosen):.0f} s) does not fit the "
                            f"{max(self.budget.left(), 0):.0f} s left; {len(self.open())} claim(s) open")
            self.out_of_budget = True
            chosen = []
        if self.stopped:
            progress.log(f"{self.name}: stopped: {self.stopped}")
        return chosen

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
        lines = [f"{self.name}: {round_index} rounds; its budget {_spent(self.budget)}{whole}; {len(open_)} of "
                 f"{len(self.questions)} claims open"]
        for question in open_ if round_index >= self.min_rounds else []:  # no interval before them
            sequence = (self.lines.get(question.name) or {}).get("sequence") or {}
            interval = sequence.get("interval")
            shown = (f"{sequence['geomean_ratio']:.3f} ({interval[0]:.3f} .. {interval[1]:.3f})" if interval
                     else "too few rounds")
            lines.append(f"  open: {question.name}: {shown}")
        return "\n".join(lines)


def _matches(fields, cell):
    return all(fields.get(k) == v for k, v in cell.items())


def _spent(budget):
    return f"{_minutes(budget.spent())} spent, {_minutes(budget.left())} left"


def _minutes(seconds):
    seconds = max(seconds, 0)
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"
