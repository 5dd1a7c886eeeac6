"""Sequential verdicts: a confidence sequence on the per-round log ratios that may be looked at after every
round, so that a claim stops as soon as it is decided and its error rate stays at alpha however often it was
looked at, and a budgeted simulation of the round loop that uses it.

A fixed design (paired_ratio.py) gives every claim the same rounds and one t interval at the end: looking at
that interval after each round and stopping when it excludes 1 would claim a difference far more often than
5% of the time. A confidence sequence is an interval for every round count at once, covering the true mean
at all of them together with probability 1 - alpha, so any stopping rule may use it.

    d = sequential.decide([0.11, 0.09, 0.12, 0.10], higher_is_better=True)
    d["outcome"]            # "holds", "reversed", "equivalent" (within +-margin) or "open"
    d["interval"]           # [low, high] of the ratio A/B, valid at this look and every other
    d["reach_pct"]          # any difference is below this many percent
    d["rounds_to_decide"]   # rounds that would decide it if the mean and spread seen stayed

    sequential.should_start_round(spent_s=1700, budget_s=1800, round_s=60)   # True: the round fits

The boundary is the asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas,
"Time-uniform central limit theory and asymptotic confidence sequences" (Annals of Statistics, 2024; arXiv
2103.06476), its normal-mixture form:

    mean_n +- sd_n * sqrt( 2 (n rho^2 + 1) / (n^2 rho^2) * log( sqrt(n rho^2 + 1) / alpha ) )

with sd_n the sample standard deviation, and rho^2 = (-W_{-1}(-alpha^2 exp(alpha^2 - 1)) - 1) / n_opt (W_{-1}
the lower branch of Lambert's W) making it tightest at n_opt rounds. Its guarantee is asymptotic: with the
spread estimated from a handful of rounds it undercovers (a simulation of Gaussian rounds with no difference,
looked at after every round from the third, claims one in 14-18% of runs). So this module keeps the boundary's own per-look
level and reads it from Student's t with n - 1 degrees of freedom instead of the normal: where the normal
boundary stands at z standard errors, this one stands at the t quantile of the same tail probability. The two
agree as n grows (the asymptotic guarantee is untouched) and the small-n looks pay for the spread they
guess: over 300 looks the false-claim rate is then about 3% for Gaussian rounds and 2% for t(3) ones
(sequential_test.py measures 2.1% on 1,000 seeded runs of 100 looks). Strongly skewed rounds still undercover
(8% for lognormal ones of shape 0.5).

Pure functions; SciPy (Debian's python3-scipy) for Lambert's W and the t quantiles, imported when first needed.
"""

import bisect
import dataclasses
import functools
import math
import random

from bench.analysis import paired_ratio

ALPHA = 0.05
# The error rate a run states for all its verdicts together: with K claims judged, each claim's sequence runs at
# FAMILY_ALPHA / K (Bonferroni), so that the chance that any verdict of the run is wrong stays under FAMILY_ALPHA
# whatever the dependence between the claims (they share rounds, cases and the host's moods).
FAMILY_ALPHA = 0.05
FAMILY_RULE = "Bonferroni over the run's claims: each claim's sequence at 5% divided by the number of claims"
# A difference inside +-5% is practically the same for claims of 25% and more; as a ratio, the interval must
# lie inside [1 / (1 + MARGIN), 1 + MARGIN] (symmetric in logs, so A/B and B/A agree).
MARGIN = 0.05
# The round count at which the sequence is tightest. Its width is flat near the optimum (tuned for 20, it is
# within 2% of the best possible width anywhere from 10 to 60 rounds, 7% at 5), and 10-40 is where the claims that need
# deciding fall in a 30-minute budget: the steady ones decide in under 10, the noisy ones need 30-60.
TIGHTEST_AT = 20
# Two rounds give one difference and a spread from it; three are the fewest this rule decides on.
MIN_ROUNDS = 3
ROUNDS_CAP = 10000

HOLDS = "holds"
REVERSED = "reversed"
EQUIVALENT = "equivalent"
OPEN = "open"


def rho_squared(tightest_at=TIGHTEST_AT, alpha=ALPHA):
    """The mixture's rho^2 that minimises the boundary's width at `tightest_at` rounds (Waudby-Smith et al.,
    the exact optimum through Lambert's W, lower branch)."""
    from scipy.special import lambertw
    return float((-lambertw(-alpha * alpha * math.exp(alpha * alpha - 1), k=-1).real - 1) / tightest_at)


def normal_margin(n, rho2, alpha=ALPHA):
    """The asymptotic confidence sequence's half-width at `n` rounds for data of unit standard deviation."""
    return math.sqrt(2 * (n * rho2 + 1) / (n * n * rho2) * math.log(math.sqrt(n * rho2 + 1) / alpha))


@functools.lru_cache(maxsize=None)
def _factors(alpha, tightest_at):
    """half-width / sd for n = 0 .. ROUNDS_CAP (inf below MIN_ROUNDS): the normal boundary's tail probability
    at each n, read back from Student's t with n - 1 degrees of freedom."""
    import numpy
    from scipy.stats import norm, t
    rho2 = rho_squared(tightest_at, alpha)
    n = numpy.arange(MIN_ROUNDS, ROUNDS_CAP + 1, dtype=float)
    z = numpy.sqrt(2 * (n * rho2 + 1) / (n * rho2) * numpy.log(numpy.sqrt(n * rho2 + 1) / alpha))
    return (math.inf,) * MIN_ROUNDS + tuple(float(f) for f in t.isf(norm.sf(z), n - 1) / numpy.sqrt(n))


def half_width_factor(n, alpha=ALPHA, tightest_at=TIGHTEST_AT):
    """The sequence's half-width at `n` rounds, in standard deviations of one round's log ratio (inf under
    MIN_ROUNDS). Falls as n grows; beyond ROUNDS_CAP, the normal boundary itself."""
    if n <= ROUNDS_CAP:
        return _factors(alpha, tightest_at)[n]
    return normal_margin(n, rho_squared(tightest_at, alpha), alpha)


def rounds_to_decide(mean, sd, n_seen=0, margin=MARGIN, alpha=ALPHA, tightest_at=TIGHTEST_AT):
    """The fewest rounds (at least MIN_ROUNDS and n_seen) at which a sequence with this mean and spread of the
    log ratio would be decided: excluding 0 (|mean| > half-width) or inside the margin (|mean| + half-width
    < log(1 + margin)). None beyond ROUNDS_CAP."""
    if sd == 0:
        return max(n_seen, MIN_ROUNDS)
    inside = math.log1p(margin)
    threshold = max(abs(mean), inside - abs(mean)) / sd  # decided once the factor drops below this
    factors = _factors(alpha, tightest_at)
    # The factors fall with n: bisect their negatives, which rise.
    first = bisect.bisect_right(_negated(alpha, tightest_at), -threshold, lo=MIN_ROUNDS)
    if first > ROUNDS_CAP or not factors[first] < threshold:
        return None
    return max(first, n_seen, MIN_ROUNDS)


@functools.lru_cache(maxsize=None)
def _negated(alpha, tightest_at):
    return tuple(-f for f in _factors(alpha, tightest_at))


def summarize(log_ratios):
    """(n, mean, sample sd) of the log ratios; sd is None under 2."""
    n = len(log_ratios)
    if n == 0:
        return 0, None, None
    mean = math.fsum(log_ratios) / n
    if n < 2:
        return n, mean, None
    return n, mean, math.sqrt(math.fsum((x - mean) ** 2 for x in log_ratios) / (n - 1))


@dataclasses.dataclass(frozen=True)
class Options:
    """The rule's settings: the equivalence `margin` (a ratio within [1 / (1 + margin), 1 + margin] is "the
    same"), the error rate `alpha`, and the round count the sequence is tightest at."""
    margin: float = MARGIN
    alpha: float = ALPHA
    tightest_at: int = TIGHTEST_AT


DEFAULT = Options()


def family_options(claims, margin=MARGIN, family_alpha=FAMILY_ALPHA):
    """Options for each of `claims` claims judged in one run, so that all their verdicts together are wrong with
    probability at most `family_alpha`: each at family_alpha / claims (Bonferroni). The union bound needs no
    independence between the claims, and a confidence sequence is valid at every look, so each claim may stop
    on its own: the run's decisions, however many rounds each took, keep the family's rate."""
    return Options(margin=margin, alpha=family_alpha / max(int(claims), 1))


def small_difference(decision, margin=MARGIN):
    """Whether a decided direction (HOLDS or REVERSED) is by less than the margin: its ratio lies within
    [1 / (1 + margin), 1 + margin], so the direction is known but the size is one the margin calls the same."""
    ratio = decision.get("geomean_ratio")
    return (decision.get("outcome") in (HOLDS, REVERSED) and ratio is not None
            and abs(math.log(ratio)) < math.log1p(margin))


def decide(log_ratios, higher_is_better=True, margin=MARGIN, alpha=ALPHA, tightest_at=TIGHTEST_AT):
    """The sequential verdict on "A beats B" from the log ratios log(A_i / B_i) of the rounds so far."""
    return decide_summary(*summarize(log_ratios), higher_is_better=higher_is_better,
                          options=Options(margin, alpha, tightest_at))


def decide_summary(n, mean, sd, higher_is_better=True, options=DEFAULT):
    """decide() from the rounds' count, mean and sample sd of the log ratio (a round loop keeps these running),
    under `options` (Options). Returns:

        outcome           HOLDS: the interval excludes 1 on the claim's side (A better: above 1 where higher is
                          better); REVERSED: on the other side; EQUIVALENT: it lies within
                          [1 / (1 + margin), 1 + margin] (checked first: a 1% difference inside a +-5% margin
                          is "the same", whatever side it is on); OPEN: none yet
        rounds            n
        geomean_ratio     exp(mean); None without rounds
        interval          [low, high] of the ratio A/B; None under MIN_ROUNDS
        sd_log            the sample sd of the per-round log ratio
        reach_pct         any difference (either way, A/B or B/A) is below this many percent: the interval's
                          farther end from 1, (exp(max(|log low|, |log high|)) - 1) * 100
        rounds_to_decide  rounds_to_decide() at the mean and spread seen; None when beyond ROUNDS_CAP or
                          unknown (under 2 rounds)
        margin, alpha, tightest_at, rule
    """
    margin, alpha, tightest_at = options.margin, options.alpha, options.tightest_at
    out = {"outcome": OPEN, "rounds": n, "geomean_ratio": None if mean is None else math.exp(mean),
           "interval": None, "sd_log": sd, "reach_pct": None, "rounds_to_decide": None, "margin": margin,
           "alpha": alpha, "tightest_at": tightest_at, "rule": RULE}
    if sd is None:
        return out
    out["rounds_to_decide"] = rounds_to_decide(mean, sd, n, margin, alpha, tightest_at)
    if n < MIN_ROUNDS:
        return out
    half = sd * half_width_factor(n, alpha, tightest_at)
    low, high = mean - half, mean + half
    out["interval"] = [math.exp(low), math.exp(high)]
    out["reach_pct"] = math.expm1(max(abs(low), abs(high))) * 100
    inside = math.log1p(margin)
    if -inside <= low and high <= inside:
        out["outcome"] = EQUIVALENT
    elif low > 0 or high < 0:
        out["outcome"] = HOLDS if (low > 0) == higher_is_better else REVERSED
    return out


def first_decision(log_ratios, higher_is_better=True, options=DEFAULT):
    """The decision a round loop that looks after every round and stops a claim once decided reaches: the one
    at the first round count that decides it, or, when none does, the one at the last. Judging a stored run's
    rounds this way gives the verdict its run gave, whatever rounds its cells ran after the claim stopped."""
    stats = _Running()
    decision = decide_summary(0, None, None, higher_is_better, options)
    for x in log_ratios:
        stats.add(x)
        decision = decide_summary(stats.n, stats.mean, stats.sd(), higher_is_better, options)
        if decision["outcome"] != OPEN:
            break
    return decision


RULE = ("asymptotic confidence sequence (Waudby-Smith et al.) on per-round log ratios, t-calibrated, "
        "looked at after every round")


def log_ratios(rounds_a, rounds_b):
    """log(A_i / B_i) of two sides' per-round values ({round: value}), paired as paired_ratio.paired_rounds
    pairs them, in round order."""
    return [math.log(a / b) for a, b in paired_ratio.paired_rounds(rounds_a, rounds_b)]


def decide_rounds(rounds_a, rounds_b, higher_is_better=True, options=DEFAULT):
    """decide() on two sides' per-round values ({round: value}), paired as paired_ratio.paired_rounds pairs
    them."""
    return decide_summary(*summarize(log_ratios(rounds_a, rounds_b)), higher_is_better, options)


def bound_text(decision):
    """One line for an open claim: "any difference is below 12%; about 40 rounds would decide it"."""
    if decision["reach_pct"] is None:
        return f"{decision['rounds']} round{'s' if decision['rounds'] != 1 else ''}: too few to bound it"
    needed = decision["rounds_to_decide"]
    more = (f"about {needed} rounds would decide it" if needed is not None else
            f"more than {ROUNDS_CAP} rounds would decide it at the spread seen")
    reach = decision["reach_pct"]
    shown = f"{reach:.3g}" if reach < 999.5 else f"{reach:.0f}"  # 1234, not 1.23e+03
    return f"any difference is below {shown}%; {more}"


def should_start_round(spent_s, budget_s, round_s):
    """Whether a round expected to take `round_s` seconds fits in what is left of the budget. A round loop that
    starts rounds only when this says so, with `round_s` from the cases' last measured durations, ends within
    the budget, or past it by no more than one round's misestimate."""
    return spent_s + round_s <= budget_s


class _Running:
    """Welford's running mean and variance of one claim's log ratios."""

    def __init__(self):
        self.n, self.mean, self.m2 = 0, 0.0, 0.0

    def add(self, x):
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)

    def sd(self):
        return math.sqrt(self.m2 / (self.n - 1)) if self.n >= 2 else None


@dataclasses.dataclass(frozen=True)
class Simulation:
    """How simulate() draws: its `seed`, each round's duration varying by +-`jitter` (uniform) around its
    expectation, at most `max_rounds` rounds (None: until decided or out of budget), under `options`.
    `disturbed` (first round, last round, shift), where set, adds `shift` to every claim's log ratio in those
    rounds (0-based, inclusive): a stand-in for a host that took the CPU from one side for a while. With
    `set_aside`, such rounds are seen (as a round's steal is) and not counted: the loop runs others instead."""
    seed: int = 0
    jitter: float = 0.2
    max_rounds: int = None
    options: Options = DEFAULT
    disturbed: tuple = None
    set_aside: bool = False

    def shift(self, round_index):
        """The shift a round's log ratios carry (0 outside the disturbed block)."""
        if self.disturbed is None:
            return 0.0
        first, last, shift = self.disturbed
        return shift if first <= round_index <= last else 0.0


def simulate(claims, case_s, budget_s, how=Simulation()):
    """A budgeted round loop on synthetic rounds, as the scheduler runs it on real ones: each round runs the
    cases of the claims still open (a case two open claims share runs once), each open claim gets one log
    ratio drawn from a normal of its `log_mean` and `log_sd` (plus the disturbed block's shift), is decided with
    decide_summary(), and stops when decided. A round starts only when should_start_round() says its expected
    duration (the sum of its cases' `case_s`) fits; its actual duration varies by +-`how.jitter`, so the budget
    can be passed by at most the last round's excess over its expectation. A disturbed round that is set aside
    costs its time and counts for no claim.

    `claims`: [{"name", "cases": (case_a, case_b), "log_mean", "log_sd", "higher_is_better" (default True)}];
    `case_s`: {case: seconds one run of it takes}. Seeded and deterministic. Returns {"spent_s", "rounds" (the
    rounds run), "set_aside" (rounds not counted), "last_round_s", "claims": {name: decision dict, with
    "decided_at_s" where decided}}."""
    rng = random.Random(how.seed)
    running = {c["name"]: _Running() for c in claims}
    decisions = {c["name"]: decide_summary(0, None, None, options=how.options) for c in claims}
    spent, rounds, last, set_aside = 0.0, 0, 0.0, 0
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
        draws = {c["name"]: rng.gauss(c["log_mean"], c["log_sd"]) + shift for c in open_claims}
        if shift and how.set_aside:
            set_aside += 1
            continue
        for claim in open_claims:
            stats = running[claim["name"]]
            stats.add(draws[claim["name"]])
            decision = decide_summary(stats.n, stats.mean, stats.sd(), claim.get("higher_is_better", True),
                                      how.options)
            if decision["outcome"] != OPEN:
                decision["decided_at_s"] = spent
            decisions[claim["name"]] = decision
    return {"spent_s": spent, "rounds": rounds, "set_aside": set_aside, "last_round_s": last, "claims": decisions}
