"""Stored rounds replayed through the suite's own round loop: the adaptive policy (rounds.UntilDecided, its
questions judged by judging.claim_line at the levels of an error_control.ErrorControl), the scheduler
(scheduler.run) with a fake runner whose rows carry the replayed figures, and each claim's final verdict judged
from the rows as a part's document judges it. The order of each round is the policy's (drawn or listed), and
two plants act on the rows as the loop produced them, so that what the loop's order does to them is measured,
not assumed.

    verdicts = null_loop.replay(claims, positions, Replay(order=rounds.EveryCase(), plants=Plants(second=0.03)))

The plants:
  - `second`: whichever side of a claim runs second in its round gains this much (a server its partner warmed,
    a cache left hot): under the listed order the claim's B always runs second, so the gain is a bias of the
    ratio in every round, which more rounds make surer; drawn, it goes to A or B by a coin each round, and the
    median ratio stays put.
  - `drift` (Drift): the machine's speed, read at each run's start on the fake clock (each run takes RUN_S): a
    slow ramp over the whole run, and regimes of tens of seconds, each starting at a level of its own and
    speeding up steadily through it (a neighbour's burst that arrives with the regime and fades). The ramp and
    the regimes' levels hit both sides of a round alike and cancel in the round's ratio whatever the order (a
    regime that changes between A and B is as likely to go up as down); what breaks the listed order is the
    slide within a regime: B, always run just after A, is always faster by the slide over one run (3%), a bias
    in every round but the few a regime ends in. Drawn, B runs before A as often as after, at gaps that vary:
    the slide adds spread to the ratios and no bias.
  Under the drawn order each plant is a coin, and a claim whose rounds are symmetric about their median keeps
  its median ratio; one whose rounds are skewed does not, since a coin's spread (symmetric as it is) moves the
  median of its rounds toward their mean. So each claim is replayed centred (centred()): shifted so that the
  median ratio of its planted rounds under the drawn order, not of its stored ones, is the truth, which is then
  the quantity the drawn design estimates; the listed order replays the same centred claims. Under the listed
  order each plant is a bias of about 3% that the sign rule reads as the programs' difference, and decides on
  in the claims whose rounds are tight enough for 3% to show (replayed_rounds.TIGHT).

The loop is the suite's; one thing is not: while a replay runs, fast_fixed_view() makes the fixed design's
sign-flip check, a field every verdict line carries and no sequential verdict reads, cost nothing (it is
nearly all of a replay's time).
"""

import contextlib
import dataclasses
import functools
import io
import math
import random
import statistics
from typing import Optional

from bench.analysis import paired_ratio
from bench.design import error_control
from bench.design import rounds
from bench.design import scheduler
from bench.running import fake
from bench.scenarios import adaptive
from bench.design import judging

FIGURE = "rate"  # the replayed rows' figure: higher is better
# The budget of a replay: more than its `looks` rounds can spend, so that only the rounds cap or the claims'
# decisions end it (the loop prints its budget, so a finite one).
UNBOUNDED_S = 1e9
# What each replayed run takes on the fake clock: the write-ups' echo runs' length, for every claim alike, so
# that the drift's slide over one run (Drift.slide * RUN_S: 3%) is the same bias for every claim.
RUN_S = 4.0


@dataclasses.dataclass(frozen=True)
class Drift:
    """A machine whose speed drifts: exp(-ramp * t) over the whole run (t in seconds on the fake clock), times
    regimes `regime_s` (low, high) seconds long, each at a level drawn from a normal of sd `level_sd` (in logs)
    and speeding up by `slide` (in logs) per second through it."""
    ramp: float = 0.05 / 3600
    regime_s: tuple = (20.0, 60.0)
    level_sd: float = 0.03
    slide: float = 0.0075


class _Machine:
    """A Drift drawn for one replay: the regimes laid out along the clock as far as a run asks."""

    def __init__(self, drift, seed):
        self.drift, self.rng = drift, random.Random(f"drift:{seed}")
        self.regimes = []  # (start s, level)
        self.end = 0.0

    def factor(self, t):
        while self.end <= t:
            self.regimes.append((self.end, self.rng.gauss(0.0, self.drift.level_sd)))
            self.end += self.rng.uniform(*self.drift.regime_s)
        start, level = next(r for r in reversed(self.regimes) if r[0] <= t)
        return math.exp(-self.drift.ramp * t + level + self.drift.slide * (t - start))


@dataclasses.dataclass(frozen=True)
class Plants:
    """What the replay adds to the stored rounds: the second runner's gain (0: none) and a drifting machine."""
    second: float = 0.0
    drift: Optional[Drift] = None


@dataclasses.dataclass(frozen=True)
class Replay:
    """One replay's design: the round `order` (rounds.EveryCase or rounds.Shuffled), the `plants`, the true
    ratio A / B every claim is given (`truth`: its median ratio under the plants in drawn order, centred()), the
    most rounds it runs (`looks`) and its `seed` (the drift's)."""
    order: object
    plants: Plants = Plants()
    truth: float = 1.0
    looks: int = 100
    seed: int = 0


class ReplayRunner:
    """A runner (contest.Runner's part the round loop uses for a case with no server) in memory: each run takes
    its case's `wall_s` on the fake clock, and its row says when it started; the case's figures hook fills in the
    figure."""

    placement_name = "shared"
    link = None

    def __init__(self, clock):
        self.clock = clock

    def run_alone(self, entry, values, extra_args=(), bound_s=60, measured=None):
        started = self.clock.now
        self.clock.now += values["wall_s"]
        return {"status": "ok", "started_s": started, "wall_s": values["wall_s"]}

    def stop_all(self):
        pass


class _Rows:
    """The replayed figures of one replay, as each run's row asks for them: the stored round its loop round
    stands for, the claim's side, and the plants on the run's place in its round and start time."""

    def __init__(self, claims, positions, replay, truths=None):
        truths = truths or centred(tuple(claims), dataclasses.replace(replay, order=None, seed=None))
        self.values = [claim.replayed(truth) for claim, truth in zip(claims, truths)]
        self.positions, self.plants = positions, replay.plants
        self.machine = _Machine(replay.plants.drift, replay.seed) if replay.plants.drift else None
        self.ran = {}  # round -> the (claim, side) that ran so far in it

    def hook(self, index, side):
        def figures(row, measured):
            stored = self.values[index][self.positions[row["round"]] % len(self.values[index])]
            value = stored[side]
            ran = self.ran.setdefault(row["round"], set())
            if (index, 1 - side) in ran:  # its claim's other side ran before it in this round
                value *= 1 + self.plants.second
            ran.add((index, side))
            if self.machine is not None:
                value *= self.machine.factor(row["started_s"])
            row[FIGURE] = value
        return figures


_T_QUANTILES = {}


def _t_quantile(q, df):
    """paired_ratio.t_quantile, remembered: the same few quantiles are asked at every look."""
    key = (q, df if isinstance(df, (int, float)) else tuple(int(n) for n in df))
    if key not in _T_QUANTILES:
        _T_QUANTILES[key] = _ORIGINAL_T_QUANTILE(q, df)
    return _T_QUANTILES[key]


_ORIGINAL_T_QUANTILE = paired_ratio.t_quantile


@contextlib.contextmanager
def fast_fixed_view():
    """Within it, the fixed design's view that every verdict line carries beside a sequential verdict costs
    little: its sign-flip check (exact over 2^16 assignments, or 10,000 drawn, at every look of every claim:
    nearly all of a replay's time) gives 1.0, and its t quantiles are remembered. No sequential verdict, no
    decision of the loop and no level reads either (verdict.sequential_of sets the verdict from the confidence
    sequence alone), so the replay's verdicts are the loop's; the fields a report would show are not."""
    saved = paired_ratio.sign_flip_p, paired_ratio.t_quantile
    paired_ratio.sign_flip_p, paired_ratio.t_quantile = (lambda log_ratios, seed=0: 1.0), _t_quantile
    try:
        yield
    finally:
        paired_ratio.sign_flip_p, paired_ratio.t_quantile = saved


@dataclasses.dataclass(frozen=True)
class _Definition:
    """What adaptive.questions reads of a scenario: its name and its claims over its cases' fields."""
    name: str
    stated: tuple

    def claims(self, fields):
        return list(self.stated)


def _setup(claims, positions, replay, truths=None):
    """The cases (a case per claim and side, listed claim by claim, A first) and the definition of `claims`, each
    replayed at its truth of `truths` (None: centred())."""
    cases, stated, rows = [], [], _Rows(claims, positions, replay, truths)
    for index, claim in enumerate(claims):
        for side, name in enumerate("ab"):
            cases.append(scheduler.Case(fields={"claim": index, "side": name}, server=None,
                                        client={"name": f"{claim.name} {name}"},
                                        values={"wall_s": RUN_S}, figures=rows.hook(index, side)))
        stated.append(judging.Claim(text=claim.name, a={"claim": index, "side": "a"},
                                    b={"claim": index, "side": "b"}, figure=FIGURE, higher_is_better=True,
                                    per_placement=False, headline=claim.family == "summary"))
    return cases, _Definition("replay", tuple(stated))


# The drawn replays _noise() runs to sample what each plant does to a claim's ratio in the loop's rounds.
NOISE_REPLAYS = 4
NOISE_SEED = "noise"  # their drifts' and orders' seed, their own: no measured replay's


@functools.lru_cache(maxsize=None)
def _noise(claims, plants, truth, looks):
    """[[float]]: for each of `claims` (a tuple), what `plants` did to the log ratio of its rounds in
    NOISE_REPLAYS replays through the loop in drawn order at `truth` (uncentred), each with its negative: drawn,
    A runs before B as often as after, so a plant's effect is symmetric about 0, and the sample is made so. The
    loop's own rounds, since what the drift does to a ratio grows with the runs between A and B, and so with
    how many claims are still open."""
    out = [[] for _ in claims]
    for seed in range(NOISE_REPLAYS):
        setting = Replay(order=rounds.Shuffled(seed=f"{NOISE_SEED}:{seed}"), plants=plants, truth=truth,
                         looks=looks, seed=f"{NOISE_SEED}:{seed}")
        with contextlib.redirect_stderr(io.StringIO()), fast_fixed_view():
            rows, _, _ = _loop(claims, range(seed, seed + looks), setting, [truth] * len(claims))
        sides = {(row["claim"], row["side"], row["round"]): row[FIGURE] for row in rows if FIGURE in row}
        for index, claim in enumerate(claims):
            stored = [math.log(a / b) for a, b in claim.replayed(truth)]
            out[index] += [math.log(sides[(index, "a", i)] / sides[(index, "b", i)]) - stored[(seed + i) % len(stored)]
                           for i in range(looks) if (index, "a", i) in sides and (index, "b", i) in sides]
    return [noise + [-n for n in noise] for noise in out]


@functools.lru_cache(maxsize=None)
def centred(claims, replay_):
    """(float): for each of `claims` (a tuple), the truth to replay it at (StoredClaim.replayed) so that, with
    `replay_`'s plants acting, the median ratio of its rounds under the drawn order is `replay_.truth`.

    A plant's coin is symmetric, but a claim's stored ratios need not be: noise added to skewed rounds moves
    their median toward their mean, so the median the rule measures under the plant is not the stored one. The
    truth a claim is judged against is what the drawn design estimates: the median of its stored log ratios
    (centred on the truth) each plus every sample of the plant's effect (_noise()), and the claim is shifted so
    that this median is the truth. The listed order replays the same centred claims, so that its bias is
    measured against the same truth."""
    plants, truth = replay_.plants, replay_.truth
    if not plants.second and plants.drift is None:
        return (truth,) * len(claims)
    out = []
    for claim, noise in zip(claims, _noise(claims, plants, truth, replay_.looks)):
        stored = [math.log(a / b) for a, b in claim.replayed(truth)]
        out.append(truth * math.exp(math.log(truth) - statistics.median(r + n for r in stored for n in noise)))
    return tuple(out)


def _loop(claims, positions, replay_, truths=None):
    """(rows, definition, error control) of `claims` replayed at `positions` through the adaptive loop as
    `replay_` says, each claim at its truth of `truths` (None: centred())."""
    clock = fake.FakeClock()
    cases, definition = _setup(claims, positions, replay_, truths)
    control = error_control.ErrorControl()
    questions = adaptive.questions(definition, cases, {None: None}, [], control)
    policy = rounds.UntilDecided(questions, [None], rounds.Budget(UNBOUNDED_S, clock), name="replay",
                                 control=control, order=replay_.order)
    plan = scheduler.Plan(rounds=min(replay_.looks, len(positions)), policy=policy, clock=clock)
    return scheduler.run(cases, ReplayRunner(clock), plan).rows, definition, control


def replay(claims, positions, replay_):
    """{claim name: its final verdict ("holds", "reversed", "equivalent within ±5%", "open")}: `claims`
    (replayed_rounds.StoredClaim) replayed at the stored `positions` (one per loop round) through the adaptive
    loop as `replay_` (a Replay) says, each judged at the end from every row, at its family's level."""
    with contextlib.redirect_stderr(io.StringIO()), fast_fixed_view():  # the loop's progress lines go unread
        rows, definition, control = _loop(claims, positions, replay_)
        return {claim.text: judging.claim_line(claim, rows, [],
                                               options=control.options(("replay", claim.text)))["verdict"]
                for claim in definition.stated}
