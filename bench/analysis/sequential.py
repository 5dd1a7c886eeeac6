"""Sequential verdicts: a claim judged after every round and stopped once decided, its error rate held however
often it was looked at, and the run's claims held to one error rate together.

What a verdict is about: the median of the claim's per-round ratio A/B (the ratio of the two sides' figures
within one round), "in a typical round, A beats B". Rounds on a shared 2-core VM are heavy-tailed: a neighbour or
the host takes the CPU from one side now and then, and one round in eight lands far from the rest. A mean, and
any rule that rests on near-normal rounds, follows such a round; the median does not, and the rule that bounds it
needs nothing of the rounds' shape (bench/analysis/sign_sequence.py: a round falls above or below the true median
like a fair coin).

    d = sequential.decide([0.11, 0.09, 0.12, ...], higher_is_better=True, options=sequential.Options(alpha=0.01))
    d["outcome"]            # "holds", "reversed", "equivalent" (within +-margin) or "open"
    d["median_ratio"]       # the median per-round ratio A/B
    d["interval"]           # [low, high] of the median ratio at this look, valid at every look together
    d["p_value"]            # the evidence against "no difference" at this look (the report shows it)
    d["rounds_to_decide"]   # rounds that would decide it if the rounds to come looked like those seen
    d["rounds_best_case"]   # ... if they looked like those seen, moved to the far end of the interval

Error control across a run's claims: the claims form families (the write-ups' own claims, the summary's lines;
the other loads and placements; the A/A controls), each held to FAMILY_ALPHA on its own. Within a family of K
claims every claim has one confidence sequence, at alpha / K, and everything its line says is read from that one
interval: "holds" or "reversed" where it excludes a ratio of 1, "equivalent" where it lies within the margin,
"any difference is below X%" from its far end where it is open. A confidence sequence covers the true median at
every look with probability 1 - alpha / K, so all K intervals cover together with at least 1 - alpha (Bonferroni
needs nothing of the dependence between the claims), and every statement read from a covering interval is
true: the family's statements, whichever they are and whenever each claim stopped, are wrong together at most
alpha of the time. A level cannot change after a look (it is fixed by K before the first round), so a decision
stays where it was made.

simulate() runs the budgeted round loop on synthetic or resampled rounds, as the suite runs it on real ones,
for the tests that check the family's rate (bench/studies/family_error.py).
"""

import bisect
import dataclasses
import math
import random
from typing import Callable, Optional

from bench.analysis import paired_ratio
from bench.analysis import sign_sequence

ALPHA = 0.05
# The error rate a run states for each family of its verdicts together.
FAMILY_ALPHA = 0.05
SUMMARY, OTHER, CONTROL = "summary", "other", "control"
FAMILIES = {
    SUMMARY: "the write-ups' own claims, under their own load, server and placement (the summary's lines)",
    OTHER: "the other loads, figures and placements",
    CONTROL: "the A/A controls (each part's reference program against a second process of itself)",
}
FAMILY_RULE = ("one confidence sequence per claim at the family's rate divided by its claims (Bonferroni); its "
               "direction, its equivalence and an open claim's bound are all read from that one interval")
# The rule of the runs stored before one level covered every statement: a direction by Holm's step-down, and
# equivalence at the family's rate over its claims, each with the whole rate. Their documents still name it.
OLDER_FAMILY_RULES = ("Holm's step-down over each family's anytime p-values for a direction; equivalence at the "
                      "family's rate divided by its claims",)
# A difference inside +-5% is practically the same for claims of 25% and more; as a ratio, the interval must
# lie inside [1 / (1 + MARGIN), 1 + MARGIN] (symmetric in logs, so A/B and B/A agree).
MARGIN = 0.05
# The rounds every claim's cases run before the round loop runs only the open claims' cases. The sign sequence
# decides nothing before its fewest rounds (sign_sequence.fewest_rounds: 10 at 1%), so these buy a first look
# at every claim's spread, not a decision.
MIN_ROUNDS = 3
ROUNDS_CAP = sign_sequence.ROUNDS_CAP
# An interval wider than this factor (high / low) bounds nothing a reader can use: the line says how many rounds
# it has instead.
BOUNDED_WITHIN = 2.0

HOLDS = "holds"
REVERSED = "reversed"
EQUIVALENT = "equivalent"
OPEN = "open"

RULE = ("sign-based confidence sequence for the median per-round ratio (beta-binomial mixture), looked at after "
        "every round")
# The rule of the runs stored before the sign sequence: their documents still name it.
OLDER_RULES = ("asymptotic confidence sequence (Waudby-Smith et al.) on per-round log ratios, t-calibrated, "
               "looked at after every round",)


@dataclasses.dataclass(frozen=True)
class Options:
    """The rule's settings for one claim: the equivalence `margin`, the level `alpha` at which equivalence is
    decided (its family's rate over its claims), and `direction_alpha`, the level at which holds or reversed is
    (the same level where one interval covers every statement; None: alpha). `levels` carries a run's per-claim levels ((claim text, alpha,
    direction_alpha), ...), read back by for_claim() when its verdicts are judged again from its rows."""
    margin: float = MARGIN
    alpha: float = ALPHA
    direction_alpha: Optional[float] = None
    levels: tuple = ()

    def direction(self):
        return self.alpha if self.direction_alpha is None else max(self.direction_alpha, self.alpha)

    def for_claim(self, text):
        """The options of the claim whose verdict line reads `text`: its own levels where the run kept them."""
        for name, alpha, direction_alpha in self.levels:
            if name == text:
                return Options(self.margin, alpha, direction_alpha)
        return Options(self.margin, self.alpha, self.direction_alpha)


DEFAULT = Options()


def small_difference(decision, margin=MARGIN):
    """Whether a decided direction (HOLDS or REVERSED) is by less than the margin: its ratio lies within
    [1 / (1 + margin), 1 + margin], so the direction is known but the size is one the margin calls the same."""
    ratio = decision.get("median_ratio") or decision.get("geomean_ratio")
    return (decision.get("outcome") in (HOLDS, REVERSED) and ratio is not None
            and abs(math.log(ratio)) < math.log1p(margin))


def _sd(values):
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    return math.sqrt(math.fsum((x - mean) ** 2 for x in values) / (n - 1))


def _far_shift(rounds, interval, middle):
    """How far the rounds would move for their median to stand at the end of `interval` on the median's side of
    0: the largest difference in its direction still plausible. Past the rounds' own range where that end is
    unbounded."""
    low, high = interval
    far = low if middle < 0 else high
    if math.isinf(far):
        far = math.copysign(abs(middle) + (rounds[-1] - rounds[0]) + 1.0, far)
    return far - middle


def _rounds_to_decide(rounds, options, shift, equivalence_shift):
    """The round count at which the rounds seen, moved by `shift` (for a direction) or `equivalence_shift` (for
    equivalence), would be decided; None beyond the cap."""
    inside = math.log1p(options.margin)
    direction = sign_sequence.rounds_needed(rounds, 0.0, options.direction(), shift)
    ends = [sign_sequence.rounds_needed(rounds, m, options.alpha, equivalence_shift) for m in (-inside, inside)]
    equivalence = None if None in ends else max(ends)
    found = [n for n in (direction, equivalence) if n is not None]
    return min(found) if found else None


def decide(log_ratios, higher_is_better=True, options=DEFAULT):
    """The verdict on "A beats B" at this look, from the log ratios log(A_i / B_i) of the rounds so far:

        outcome           EQUIVALENT: every median the sequence at `alpha` keeps lies within
                          [1 / (1 + margin), 1 + margin] (checked first: a 1% difference inside a +-5% margin is
                          "the same", whatever side it is on); HOLDS: the sequence at `direction_alpha` excludes
                          every ratio at or below 1 where higher is better (above, where lower is); REVERSED: the
                          other side; OPEN: none yet
        rounds            how many rounds
        median_ratio      exp(the median log ratio); None without rounds
        geomean_ratio     exp(the mean log ratio), for the pooling across runs
        interval          [low, high] of the median ratio: the sequence at the level of the outcome (a direction
                          decided or open: direction_alpha; equivalent: alpha); an end the rounds cannot bound
                          yet is 0 or inf
        level             1 - that level: the interval's confidence
        bounded           whether the interval is within a factor of BOUNDED_WITHIN (high / low)
        p_value           the evidence against "no difference" at this look (1 / the mixture at ratio 1)
        sd_log            the sample sd of the per-round log ratio
        reach_pct         any difference is below this many percent: the interval's farther end from 1
        rounds_to_decide  the round count that would decide it if the rounds to come looked like those seen;
                          rounds_best_case, if they looked like those seen moved to the interval's far end
                          (the largest difference still plausible); None beyond the cap or under 2 rounds
        margin, alpha, direction_alpha, rule
    """
    rounds = sorted(log_ratios)
    n = len(rounds)
    direction_alpha = options.direction()
    out = {"outcome": OPEN, "rounds": n, "median_ratio": None, "geomean_ratio": None, "interval": None,
           "level": None, "bounded": False, "p_value": 1.0, "sd_log": _sd(rounds), "reach_pct": None,
           "rounds_to_decide": None, "rounds_best_case": None, "margin": options.margin, "alpha": options.alpha,
           "direction_alpha": direction_alpha, "rule": RULE}
    if n == 0:
        return out
    middle = sign_sequence.median(rounds)
    out["median_ratio"] = math.exp(middle)
    out["geomean_ratio"] = math.exp(math.fsum(rounds) / n)
    out["p_value"] = sign_sequence.p_value(rounds, 0.0)
    inside = math.log1p(options.margin)
    wide = sign_sequence.interval(rounds, options.alpha)
    narrow = sign_sequence.interval(rounds, direction_alpha)
    if -inside <= wide[0] and wide[1] <= inside:
        out["outcome"], shown, level = EQUIVALENT, wide, options.alpha
    else:
        shown, level = narrow, direction_alpha
        if narrow[0] > 0 or narrow[1] < 0:
            out["outcome"] = HOLDS if (narrow[0] > 0) == higher_is_better else REVERSED
    out["interval"] = [_exp(shown[0]), _exp(shown[1])]
    out["level"] = 1 - level
    out["bounded"] = not math.isinf(shown[0]) and not math.isinf(shown[1]) and \
        shown[1] - shown[0] <= math.log(BOUNDED_WITHIN)
    if not math.isinf(shown[0]) and not math.isinf(shown[1]):
        out["reach_pct"] = math.expm1(max(abs(shown[0]), abs(shown[1]))) * 100
    if n >= 2:
        out["rounds_to_decide"] = _rounds_to_decide(rounds, options, 0.0, 0.0)
        out["rounds_best_case"] = _rounds_to_decide(rounds, options, _far_shift(rounds, narrow, middle), -middle)
    return out


def _exp(x):
    if math.isinf(x):
        return 0.0 if x < 0 else math.inf
    return math.exp(x)


def first_decision(log_ratios, higher_is_better=True, options=DEFAULT):
    """The decision a round loop that looks after every round and stops a claim once decided reaches: the one
    at the first round count that decides it, or, when none does, the one at the last. Its `p_value` is the
    anytime p-value: the smallest over every look up to that one. Judging a stored run's rounds this way gives
    the verdict its run gave, whatever rounds its cells ran after the claim stopped."""
    smallest = 1.0
    decision = decide([], higher_is_better, options)
    seen = []
    for n, x in enumerate(log_ratios, start=1):
        bisect.insort(seen, x)
        at_one = sign_sequence.log_mixture(*sign_sequence.counts(seen, 0.0))
        smallest = min(smallest, math.exp(-at_one))
        # Only a look whose counts can decide needs the whole decision (and the last, for its interval).
        if not _could_decide(seen, at_one, options) and n < len(log_ratios):
            continue
        decision = decide(log_ratios[:n], higher_is_better, options)
        if decision["outcome"] != OPEN:
            break
    decision["p_value"] = min(smallest, 1.0)
    return decision


def _could_decide(sorted_rounds, at_one, options):
    """Whether the counts of `sorted_rounds` about 1 (`at_one`: their log mixture there) and about the margin's
    ends let decide() reach a decision: what a look must pass before its interval is worth computing."""
    if at_one >= math.log(1 / options.direction()):
        return True
    inside, needed = math.log1p(options.margin), math.log(1 / options.alpha)
    return all(sign_sequence.log_mixture(*sign_sequence.counts(sorted_rounds, m)) >= needed
               for m in (-inside, inside))


def anytime_p_value(log_ratios):
    """The smallest p-value of "no difference" over every look at the rounds in order: valid at any round a
    claim stops at."""
    smallest, seen = 1.0, []
    for x in log_ratios:
        seen.append(x)
        seen.sort()
        smallest = min(smallest, sign_sequence.p_value(seen, 0.0))
    return smallest


def log_ratios(rounds_a, rounds_b):
    """log(A_i / B_i) of two sides' per-round values ({round: value}), paired as paired_ratio.paired_rounds
    pairs them, in round order."""
    return [math.log(a / b) for a, b in paired_ratio.paired_rounds(rounds_a, rounds_b)]


def decide_rounds(rounds_a, rounds_b, higher_is_better=True, options=DEFAULT):
    """decide() on two sides' per-round values ({round: value}), paired as paired_ratio.paired_rounds pairs
    them."""
    return decide(log_ratios(rounds_a, rounds_b), higher_is_better, options)


def bound_text(decision):
    """One line for an open claim: "any difference is below 12%; about 40 rounds would decide it", or, where
    its interval is wider than a factor of BOUNDED_WITHIN, "6 rounds: not enough to bound it"."""
    n = decision["rounds"]
    if not decision.get("bounded", decision.get("reach_pct") is not None):
        return f"{n} round{'s' if n != 1 else ''}: not enough to bound it"
    needed = decision["rounds_to_decide"]
    more = (f"about {needed} rounds would decide it" if needed is not None else
            f"more than {ROUNDS_CAP} rounds would decide it at the rounds seen")
    return f"any difference is below {decision['reach_pct']:.3g}%; {more}"


def should_start_round(spent_s, budget_s, round_s):
    """Whether a round expected to take `round_s` seconds fits in what is left of the budget. A round loop that
    starts rounds only when this says so, with `round_s` from the cases' last measured durations, ends within
    the budget, or past it by no more than one round's misestimate."""
    return spent_s + round_s <= budget_s


# ------------------------------------------------------------------------------------------- the simulation

@dataclasses.dataclass(frozen=True)
class Simulation:
    """How simulate() draws: its `seed`, each round's duration varying by +-`jitter` (uniform) around its
    expectation, at most `max_rounds` rounds (None: until decided or out of budget), with each family held to
    `family_alpha` and equivalence within `margin`. `disturbed` (first round, last round, shift), where set,
    adds `shift` to every claim's log ratio in those rounds (0-based, inclusive): a stand-in for a host that
    took the CPU from one side for a while. With `set_aside`, such rounds are seen (as a round's steal is) and
    not counted: the loop runs others instead."""
    seed: int = 0
    jitter: float = 0.2
    max_rounds: Optional[int] = None
    family_alpha: float = FAMILY_ALPHA
    margin: float = MARGIN
    disturbed: Optional[tuple] = None
    set_aside: bool = False

    def shift(self, round_index):
        """The shift a round's log ratios carry (0 outside the disturbed block)."""
        if self.disturbed is None:
            return 0.0
        first, last, shift = self.disturbed
        return shift if first <= round_index <= last else 0.0


def family_levels(claims, how):
    """{claim name: Options} for every claim of `claims`: each at its family's rate (a claim's "family", default
    SUMMARY) over the family's claims, one level for all it says."""
    sizes = {}
    for claim in claims:
        sizes[claim.get("family", SUMMARY)] = sizes.get(claim.get("family", SUMMARY), 0) + 1
    return {claim["name"]: Options(how.margin, how.family_alpha / sizes[claim.get("family", SUMMARY)],
                                   how.family_alpha / sizes[claim.get("family", SUMMARY)]) for claim in claims}


def _draw(claim, rng):
    if "draw" in claim:
        return claim["draw"](rng)
    return rng.gauss(claim["log_mean"], claim["log_sd"])


def simulate(claims, case_s, budget_s, how=Simulation()):
    """A budgeted round loop on synthetic rounds, as the suite's round loop runs it on real ones: each round runs
    the cases of the claims still open (a case two open claims share runs once), each open claim gets one log
    ratio (its `draw(rng)`, or a normal of its `log_mean` and `log_sd`; plus the disturbed block's shift); after
    the round every open claim is judged (decide()) at its family's level (family_levels), and
    stops when decided. A round starts only when should_start_round() says its expected duration (the sum of
    its cases' `case_s`) fits; its actual duration varies by +-`how.jitter`. A disturbed round that is set aside
    costs its time and counts for no claim.

    `claims`: [{"name", "cases": (case_a, case_b), "log_mean", "log_sd" or "draw", "family" (default SUMMARY),
    "higher_is_better" (default True)}]; `case_s`: {case: seconds one run of it takes}. Seeded and
    deterministic. Returns {"spent_s", "rounds", "set_aside", "last_round_s", "claims": {name: decision dict,
    with "decided_at_s" where decided}}."""
    rng = random.Random(how.seed)
    seen = {c["name"]: [] for c in claims}
    ordered = {}
    decisions = {c["name"]: decide([]) for c in claims}
    spent, rounds, last, set_aside = 0.0, 0, 0.0, 0
    fewest = sign_sequence.fewest_rounds(how.family_alpha)  # the loosest level any claim can reach
    while how.max_rounds is None or rounds < how.max_rounds:
        open_claims = [c for c in claims if decisions[c["name"]]["outcome"] == OPEN]
        if not open_claims:
            break
        cases = sorted({case for c in open_claims for case in c["cases"]})
        if not should_start_round(spent, budget_s, sum(case_s[case] for case in cases)):
            break
        last = sum(case_s[case] * (1 + how.jitter * (2 * rng.random() - 1)) for case in cases)
        spent += last
        shift = how.shift(rounds)
        rounds += 1
        draws = {c["name"]: _draw(c, rng) + shift for c in open_claims}
        if shift and how.set_aside:
            set_aside += 1
            continue
        at_one = {}
        for claim in open_claims:
            mine = seen[claim["name"]]
            mine.append(draws[claim["name"]])
            bisect.insort(ordered.setdefault(claim["name"], []), draws[claim["name"]])
            at_one[claim["name"]] = sign_sequence.log_mixture(*sign_sequence.counts(ordered[claim["name"]], 0.0))
        options = family_levels(claims, how)
        for claim in open_claims:
            mine = seen[claim["name"]]
            if len(mine) < fewest or not _could_decide(ordered[claim["name"]], at_one[claim["name"]],
                                                       options[claim["name"]]):
                decisions[claim["name"]] = {**decisions[claim["name"]], "rounds": len(mine)}
                continue
            decision = decide(mine, claim.get("higher_is_better", True), options[claim["name"]])
            if decision["outcome"] != OPEN:
                decision["decided_at_s"] = spent
            decisions[claim["name"]] = decision
    return {"spent_s": spent, "rounds": rounds, "set_aside": set_aside, "last_round_s": last, "claims": decisions}


# How a claim's draws can be given to simulate(): resampled, with replacement, from rounds of its own.
def resampled(rounds) -> Callable:
    """A draw for simulate() that picks one of `rounds` at random (a bootstrap of a claim's stored rounds)."""
    rounds = list(rounds)
    return lambda rng: rounds[rng.randrange(len(rounds))]
