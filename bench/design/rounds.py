"""Which cases run in a round, and in what order: the scheduler's policy (bench/design/scheduler.py).

Every case runs once per round and the cases are interleaved within each round, so that slow drift of the
machine (this VM's speed wanders) hits all cases alike and ratios can be taken within a round.

    policy = rounds.EveryCase()                  # the fixed design: every case, every round, in order
    policy = rounds.Shuffled(seed=1)             # every case, every round, in an order drawn per round
    policy = rounds.Alternating()                # every case, the order reversed every other round (A-B, B-A)
    policy.cases(round_index, cases, rows)       # -> the cases of this round, in the order they run

A policy that spends rounds only where a claim is still open returns fewer cases, and none to stop:

    policy = rounds.UntilDecided(questions, ["shared", "split"], rounds.Budget(600), name="echo",
                                 order=rounds.Shuffled(seed="1234/echo"))
    policy.observe(case, runner_key, seconds)    # the scheduler's report of each run's duration

The order of a round is a policy of its own (EveryCase: as listed; Shuffled: drawn), which UntilDecided applies
to the cases it chose: a claim whose two sides ran in the same order every round carries whatever the second
slot gains or loses (a server the first one warmed, the host's regime at that moment) as if it were the
programs' difference, and more rounds make that bias surer, never smaller. Drawn, it is a coin in every round,
and the rows' `slot` (a run's position in its round) lets each verdict count how often its A ran first.
    policy.wants_more(), policy.resume(rounds.Budget(120))   # out of budget with claims open: go on
"""

import dataclasses
import math
import random
import time
from typing import Callable, Optional

from bench.analysis import lost_runs
from bench.analysis import sequential
from bench.analysis import verdict
from bench.base import progress


# The names of the two orders, as the command line (--order) and a run's settings say them.
LISTED, DRAWN = "listed", "drawn"


def order_policy(order, name=""):
    """The policy that orders a round's cases from a run's settings' "order" ({"how": LISTED or DRAWN,
    "seed": ...}; None: listed): EveryCase, or Shuffled from the seed and the part's `name` (each part of a run
    draws its own orders)."""
    if not order or order.get("how") == LISTED:
        return EveryCase()
    return Shuffled(seed=f"{order['seed']}/{name}")


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
    with its `sequence` decision), at the levels the run's error control gives it at that moment. `family` is
    its family in that control (sequential.SUMMARY: one of the write-ups' own claims, which come first), and
    `key` its key there (None: not controlled)."""
    name: str
    cells: tuple
    runner: object
    judge: Callable
    family: str = sequential.SUMMARY
    key: object = None


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
    """The adaptive design. Each round runs the cases of the claims still open (every claim's for the first
    `min_rounds` rounds), under the runners that judge them; every claim is judged after every round, at the
    levels the run's error control (`control`, an error_control.ErrorControl; None: each at its own) gives
    it then, and stops once decided. `order` (EveryCase, Shuffled) orders each round's chosen cases.

    Which claims get the budget, in order (after the first `min_rounds`, which every claim's cases run):
      1. the write-ups' own claims (family sequential.SUMMARY) open and within reach, alone;
      2. the other open claims within reach, once no part of the run has one of the write-ups' own claims open
         and within reach: while `others_wait` (hold_others(), which the budget across parts sets), the part
         stops instead and leaves its budget to the parts whose own claims are still open;
      3. when none within reach is open, the claims set aside as out of reach: the budget that outlives the
         open claims is spent on them rather than left (spend_set_aside()).
    A claim is out of reach only when even its best case cannot be decided: the rounds it would need if the
    rounds to come looked like those seen moved to the far end of its interval (the largest difference still
    plausible; sequence "rounds_best_case") cost more than is left of the `whole` run's budget.

    The cases no claim compares (the tables' cells) run once, after the claims: tables() asks for that round,
    which the pipeline runs when the budget is spent or every claim decided. The run stops when no claim is
    open, or when the next round, at its cases' last measured durations, would not fit `budget`
    (sequential.should_start_round): it passes the budget by at most one round's misestimate. `whole` is the
    budget of the whole run this part is a share of (None: `budget`)."""

    def __init__(self, questions, runners, budget, whole=None, name="", control=None, order=None):
        self.questions, self.runners, self.budget, self.whole = list(questions), list(runners), budget, whole
        self.order = order if order is not None else EveryCase()  # how the chosen cases of a round are ordered
        self.min_rounds, self.name, self.control = sequential.MIN_ROUNDS, name, control
        self.lines = {}  # question name -> its latest verdict line
        self.durations = {}  # (case label, runner key) -> seconds of its last run
        self.stopped = None  # why the run stopped
        self.out_of_budget = False  # it stopped with claims open because the next round did not fit
        self.out_of_reach = {}  # question name -> {"rounds", "more", "round_s", "left_s"} when it was set aside
        self.rounds_run = 0  # rounds this policy chose cases for
        self.tables_run = False  # the cases no claim compares have had their round
        self._tables_next = False
        self._stop_next = False  # the tables' round ran: the next call ends the run
        self.set_aside_too = False  # whether the claims set aside as out of reach get rounds (spend_set_aside())
        self.others_wait = False  # whether the other claims wait for the write-ups' own, run-wide (hold_others())
        self._wanted_before_tables = False  # out_of_budget when tables() was asked for

    def observe(self, case, runner, seconds):
        """The scheduler's report of one run: its case, runner key and duration."""
        self.durations[(case.label(), runner)] = seconds

    def resume(self, budget):
        """Goes on, within `budget`, from where the budget stopped it: the scheduler's next round (numbered
        after the last) judges what is still open and runs only its cases."""
        self.budget, self.stopped, self.out_of_budget = budget, None, False

    def spend_set_aside(self):
        """From now on, the claims set aside as out of reach get rounds when none within reach is open: what
        the budget across parts says once no claim within reach, in any part, can use what is left."""
        if not self.set_aside_too and len(self.open(reachable=False)) > len(self.open()):
            progress.log(f"{self.name}: no claim within reach can use the budget left: the "
                         f"{len(self.open(reachable=False)) - len(self.open())} set aside as out of reach get it")
        self.set_aside_too = True

    def hold_others(self, held):
        """Whether the claims other than the write-ups' own wait: the budget across parts holds them back while
        any part has one of the write-ups' own claims open and within reach, and then lets them go."""
        self.others_wait = held

    def summary_within_reach(self):
        """Whether one of the write-ups' own claims is open and within reach."""
        return any(q.family == sequential.SUMMARY for q in self.open())

    def has_reachable(self):
        """Whether an open claim is within reach."""
        return bool(self.open())

    def tables(self):
        """The next run of this policy is one round of the cases no claim compares (the tables' cells), then
        stops, wanting more where it wanted more before (what the tables leave goes back to the open claims);
        nothing where they ran already."""
        self.stopped, self._tables_next = None, not self.tables_run
        self._wanted_before_tables = self.out_of_budget

    def tables_s(self, cases):
        """The expected seconds of the round of the cases no claim compares; 0 once it ran."""
        return 0.0 if self.tables_run else self._expected(table_cases(cases, self.questions))

    def next_round_s(self, cases):
        """The expected seconds of the next round: the cases of the claims that would get it."""
        return self._expected(self._needed(cases, self._round_questions()))

    def wants_more(self):
        """Whether more budget would be spent: the last one ran out with claims still open."""
        return self.out_of_budget and bool(self.open(reachable=False))

    def wants_more_for_summary(self):
        """Whether one of the write-ups' own claims is among those open."""
        return any(q.family == sequential.SUMMARY for q in self.open(reachable=False))

    def open(self, reachable=True):
        """The claims still open, the A/A controls aside (open_controls()); with `reachable`, those not set aside
        as out of reach."""
        return [q for q in self.questions if q.family != sequential.CONTROL and _is_open(q, self.lines)
                and (not reachable or q.name not in self.out_of_reach)]

    def open_controls(self):
        """The A/A controls still open: they run in every round the claims run, and never alone (a control
        vouches for the rounds of its part's claims, and costs nothing once they are decided)."""
        return [q for q in self.questions if q.family == sequential.CONTROL and _is_open(q, self.lines)]

    def cheapest_s(self, cases):
        """The fewest seconds that would decide one of the open questions over `cases` at the rounds seen
        (rounds still needed times its round's time); inf when none has an estimate."""
        costs = [c for c in (self._to_decide_s(q, cases, "rounds_to_decide") for q in self.open()) if c is not None]
        return min(costs, default=math.inf)

    def cases(self, round_index, cases, rows):
        self.budget.start()
        if self._tables_next:
            self._tables_next, self.tables_run = False, True
            chosen = table_cases(cases, self.questions)
            if chosen:
                progress.log(f"{self.name}: the cases no claim compares, once, for the tables: "
                             f"{len(chosen)} case(s)")
                self._stop_next = True
            return self.order.cases(round_index, chosen, rows)
        if self._stop_next:
            self._stop_next = False
            # resume() cleared it for the tables' round; the claims open before it still want the budget.
            self.out_of_budget = self._wanted_before_tables and bool(self.open(reachable=False))
            return []
        if self.rounds_run > 0:
            self._judge(rows)
            self._set_out_of_reach_aside(cases)
            progress.log(self._progress(round_index))
        if self.rounds_run < self.min_rounds:
            chosen = self._needed(cases, self.questions)
        else:
            chosen = self._needed(cases, self._round_questions())
        waiting = self.open(reachable=not self.set_aside_too)  # what would get the rounds once the others go
        if not chosen and self.others_wait and waiting:
            self.stopped = (f"its own claims decided or out of reach after {round_index} rounds: the other "
                            f"{len(waiting)} wait until every write-up's own claims are")
            self.out_of_budget = True  # it wants more, once the others go
        elif not chosen and self.open(reachable=False) and not self.set_aside_too:
            self.stopped = (f"only claims set aside as out of reach are open after {round_index} rounds: the "
                            "budget goes to the claims within reach first")
            self.out_of_budget = True  # it wants more, after the others
        elif not chosen:
            self.stopped = (f"every claim decided after {round_index} rounds" if not self.open(reachable=False)
                            else f"no case left to run after {round_index} rounds")
        elif not sequential.should_start_round(self.budget.spent(), self.budget.seconds, self._expected(chosen)):
            self.stopped = (f"the next round (about {self._expected(chosen):.0f} s) does not fit the "
                            f"{max(self.budget.left(), 0):.0f} s left; {len(self.open(reachable=False))} claim(s) "
                            "open")
            self.out_of_budget = True
            chosen = []
        if self.stopped:
            progress.log(f"{self.name}: stopped: {self.stopped}")
        else:
            self.rounds_run += 1
        return self.order.cases(round_index, chosen, rows)

    def _judge(self, rows):
        """Every open question judged at its levels now; where a look changed its family's levels (a claim's
        anytime p-value passed its Holm level, which loosens the others'), the open ones again, until none
        changes (each pass decides one more claim at least, so this ends)."""
        pending = self.open(reachable=False) + self.open_controls()
        while pending:
            changed = False
            for question in pending:
                line = self.lines[question.name] = question.judge(rows)
                p_value = (line.get("sequence") or {}).get("p_value")
                if self.control is not None and question.key is not None and p_value is not None:
                    changed = self.control.observe(question.key, p_value) or changed
            pending = self.open(reachable=False) + self.open_controls() if changed else []

    def _claimants(self):
        """The questions the next round is for: the write-ups' own claims (family sequential.SUMMARY) open and
        within reach, while there are any: they get rounds and budget before the other lines; then, unless the
        others wait for another part's (`others_wait`), the other open ones within reach; where none is and `set_aside_too`, those set aside, since the budget would
        otherwise be left unspent while they are open."""
        reachable = self.open()
        summary = [q for q in reachable if q.family == sequential.SUMMARY]
        if summary:
            return summary
        if self.others_wait:
            return []
        if reachable or not self.set_aside_too:
            return reachable
        return self.open(reachable=False)

    def _round_questions(self):
        """The questions the next round runs the cases of: its claimants, with the open A/A controls beside them
        (never alone)."""
        claimants = self._claimants()
        return claimants + self.open_controls() if claimants else []

    def _round_s(self, question, cases):
        """The expected seconds of one round of `question`'s cases."""
        return self._expected(self._needed(cases, [question]))

    def _to_decide_s(self, question, cases, estimate):
        """The seconds the rounds still needed to decide `question` take, by its sequence's `estimate`
        ("rounds_to_decide": as the rounds seen; "rounds_best_case": at the far end of its interval); None where
        its sequence has no estimate yet; inf where no number of rounds within the rule's cap would decide it."""
        sequence = (self.lines.get(question.name) or {}).get("sequence") or {}
        if estimate not in sequence or sequence.get("rounds", 0) < 2:
            return None
        needed, done = sequence[estimate], sequence.get("rounds", 0)
        if needed is None:
            return math.inf
        return max(needed - done, 1) * self._round_s(question, cases)

    def _set_out_of_reach_aside(self, cases):
        left = (self.whole or self.budget).left()
        for question in self.open():
            cost = self._to_decide_s(question, cases, "rounds_best_case")
            if cost is None or cost <= left:
                continue
            sequence = (self.lines.get(question.name) or {}).get("sequence") or {}
            needed = sequence["rounds_best_case"]
            self.out_of_reach[question.name] = {
                "rounds": sequence["rounds"], "more": None if needed is None else needed - sequence["rounds"],
                "round_s": round(self._round_s(question, cases), 1), "left_s": round(max(left, 0), 1)}
            more = "more than the rule's cap" if needed is None else f"at least {needed - sequence['rounds']} more"
            progress.log(f"{self.name}: out of reach: {question.name}: even at the far end of its interval, {more} "
                         f"rounds would decide it, {_minutes(left)} left; it gets rounds again only if the budget "
                         "outlives the claims within reach")

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
        """After a round: the time spent and left of the part's budget and the whole's, each open claim with its
        current interval and level (where its rounds bound it), and each A/A control as it stands."""
        whole = f"; the whole run's {_spent(self.whole)}" if self.whole is not None else ""
        open_ = self.open(reachable=False)
        reach = f", {len(self.out_of_reach)} set aside as out of reach" if self.out_of_reach else ""
        claims = [q for q in self.questions if q.family != sequential.CONTROL]
        lines = [f"{self.name}: {round_index} rounds; its budget {_spent(self.budget)}{whole}; {len(open_)} of "
                 f"{len(claims)} claims open{reach}"]
        for question in open_:
            sequence = (self.lines.get(question.name) or {}).get("sequence") or {}
            lines.append(f"  open: {question.name}: {_shown(sequence)}")
        for question in [q for q in self.questions if q.family == sequential.CONTROL]:
            line = self.lines.get(question.name) or {}
            lines.append(f"  control: {question.name}: {line.get('verdict', verdict.OPEN)}, "
                         f"{_shown(line.get('sequence') or {})}")
        return "\n".join(lines)


def _is_open(question, lines):
    """Whether a question's latest line is open (or rests on no round: all were set aside, or its sides' first
    runs were lost)."""
    line = lines.get(question.name)
    return ((line or {}).get("verdict", verdict.OPEN) == verdict.OPEN or _all_set_aside(line)
            or _lost_so_far(line))


# How many runs a side may lose (no steady state, failed, zero) before any of its rounds paired, and its question
# still wait for a round that pairs: a server's first run after its start may find no steady state, while a
# program that fails every run is not measured, for good, after this many.
LOSSES_BEFORE_NOT_MEASURED = sequential.MIN_ROUNDS


def _lost_so_far(line):
    """Whether a question's line is "not measured" only because each round so far lost a side's run to what the
    next run may not repeat (no steady state, failed, zero; both sides ran, none was skipped, and each gives the
    figure): the next rounds may pair, so it is still open, until a side has lost LOSSES_BEFORE_NOT_MEASURED
    runs."""
    if (line or {}).get("verdict") != verdict.NOT_MEASURED:
        return False
    lost = [(line.get("lost") or {}).get(side) or {} for side in ("a", "b")]
    if any(lost_runs.NO_FIGURE in why for why in lost):
        return False
    counts = [sum(why.values()) for why in lost]
    return any(counts) and max(counts) < LOSSES_BEFORE_NOT_MEASURED


def _all_set_aside(line):
    """Whether every round of a question's line was set aside (other programs, steal): nothing was decided
    of the claim, so it stays open for the rounds a quieter machine gives, whatever its verdict says."""
    aside = (line or {}).get("set_aside") or {}
    return aside.get("of") is not None and aside.get("rounds") == aside["of"]


def _shown(sequence):
    """An open claim's state for a progress line: "0.862 (0.731 .. 0.984) at 99.5%", or its rounds when they
    do not bound it yet."""
    interval, rounds = sequence.get("interval"), sequence.get("rounds", 0)
    if not sequence.get("bounded") or not interval:
        ratio = sequence.get("median_ratio")
        return (f"{ratio:.3f}, " if ratio else "") + f"{rounds} rounds: not enough to bound it"
    return (f"{sequence['median_ratio']:.3f} ({interval[0]:.3f} .. {interval[1]:.3f}) at "
            f"{sequence['level'] * 100:.3g}%, {rounds} rounds")


def table_cases(cases, questions):
    """The cases no question of `questions` compares: the tables' cells, which run once, after the claims."""
    return [case for case in cases if not any(_matches(case.fields, cell) for q in questions for cell in q.cells)]


def _matches(fields, cell):
    return all(fields.get(k) == v for k, v in cell.items())


def _spent(budget):
    return f"{_minutes(budget.spent())} spent, {_minutes(budget.left())} left"


def _minutes(seconds):
    seconds = max(seconds, 0)
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"
