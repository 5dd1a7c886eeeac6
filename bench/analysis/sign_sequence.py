"""A confidence sequence for the median of a claim's per-round log ratios that needs nothing of their shape: only
that, at the true median, a round falls above or below it like a fair coin. Rounds with an occasional outlier
(a round at 0.45 among rounds near -0.06), skewed rounds, and rounds whose spread changes over the run are all
covered at the stated level, at every look, however often the round loop looks.

For a candidate median m, count the rounds above it (`up`) and below it (`down`; a round equal to m counts for
neither). Under "m is the median" each counted round is a fair coin, and the beta-binomial mixture

    M(up, down) = B(a + up, a + down) / B(a, a) * 2^(up + down)        (a = PRIOR)

is a nonnegative martingale with mean 1 (the likelihood ratio of a coin of unknown bias, averaged over a
Beta(a, a) prior, against a fair coin). By Ville's inequality it ever reaches 1/alpha with probability at most
alpha, so the set of m whose M stays below 1/alpha is a confidence sequence for the median: valid at every
round count at once, so a claim may be stopped the first time it is decided (Howard, Ramdas, McAuliffe and
Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence sequences", Annals of Statistics 2021; Howard and
Ramdas, "Sequential estimation of quantiles with applications to A/B-testing and best-arm identification",
Bernoulli 2022). The set is an interval between two order statistics of the rounds, so it is computed exactly.

    rounds = sorted([0.11, 0.09, 0.12, 0.10, 0.08, 0.13, 0.10, 0.09, 0.11, 0.12, 0.10])
    sign_sequence.interval(rounds, alpha=0.01)       # (0.08, 0.13): every m outside is excluded
    sign_sequence.p_value(rounds, 0.0)               # 0.0029: the evidence against "no difference"
    sign_sequence.rounds_needed(rounds, 0.0, alpha=0.001)   # 14: rounds at which 0 would be excluded

What it costs: a claim decided by rounds that all agree needs at least 10 rounds at alpha = 1%, 12 at 0.25%
(fewest_rounds()), since each round gives at most one bit; a t interval needs 3. Rounds whose majority is weaker need more (a
claim whose rounds fall on one side four times in five needs about 30-40). Pure functions on sorted lists.
"""

import bisect
import math

# The mixture's prior Beta(a, a) on a round's chance of falling above m. Jeffreys' 1/2 puts more weight near 0
# and 1 than the uniform prior: the write-ups' large differences (every round on one side) decide in fewer
# rounds (10 rather than 11 at 1%), at the price of a little more for coins near 1/2.
PRIOR = 0.5
_LOG2 = math.log(2.0)
# The most rounds rounds_needed() looks ahead.
ROUNDS_CAP = 10000


def _log_beta(x, y):
    return math.lgamma(x) + math.lgamma(y) - math.lgamma(x + y)


def log_mixture(up, down, prior=PRIOR):
    """log M(up, down): the evidence, in nats, that m is not the median when `up` rounds lie above it and
    `down` below (counts may be fractional, for an expected path)."""
    return _log_beta(prior + up, prior + down) - _log_beta(prior, prior) + (up + down) * _LOG2


def counts(sorted_rounds, m):
    """(up, down): how many of `sorted_rounds` lie above m and below it."""
    return len(sorted_rounds) - bisect.bisect_right(sorted_rounds, m), bisect.bisect_left(sorted_rounds, m)


def excluded(sorted_rounds, m, alpha):
    """Whether the sequence at level `alpha` excludes m as the median at this round count."""
    return log_mixture(*counts(sorted_rounds, m)) >= math.log(1 / alpha)


def p_value(sorted_rounds, m=0.0):
    """The evidence against "m is the median" at this round count, as a p-value: 1 / M, at most 1. The
    smallest of these over every look is an anytime-valid p-value (p_values())."""
    return min(1.0, math.exp(-log_mixture(*counts(sorted_rounds, m))))


def interval(sorted_rounds, alpha):
    """(low, high): the medians the sequence at level `alpha` has not excluded, between two order statistics
    of the rounds (-inf or inf where the rounds are too few to bound that side). None for no rounds."""
    n = len(sorted_rounds)
    if n == 0:
        return None
    threshold = math.log(1 / alpha)
    # A median m between the j-th and (j+1)-th smallest round has j rounds below it and n - j above.
    kept = [j for j in range(n + 1) if log_mixture(n - j, j) < threshold]
    if not kept:  # cannot happen for alpha < 1 (j near n / 2 has M below 1 / alpha), but stay defined
        middle = median(sorted_rounds)
        return middle, middle
    low = sorted_rounds[kept[0] - 1] if kept[0] > 0 else -math.inf
    high = sorted_rounds[kept[-1]] if kept[-1] < n else math.inf
    return low, high


def median(sorted_rounds):
    n = len(sorted_rounds)
    if n == 0:
        return None
    middle = n // 2
    return sorted_rounds[middle] if n % 2 else (sorted_rounds[middle - 1] + sorted_rounds[middle]) / 2


def rounds_needed(sorted_rounds, m, alpha, shift=0.0, cap=ROUNDS_CAP):
    """The round count at which m would be excluded at level `alpha`, if the rounds still to come fell above
    and below m as the rounds seen, moved by `shift`, do (each side's share smoothed by half a round, so that
    a side never seen is not taken as impossible); the expected path, not a guarantee. None beyond `cap`."""
    n = len(sorted_rounds)
    up, down = counts(sorted_rounds, m)
    target = math.log(1 / alpha)
    if log_mixture(up, down) >= target:
        return n
    ahead_up, ahead_down = counts(sorted_rounds, m - shift)
    share_up = (ahead_up + 0.5) / (ahead_up + ahead_down + 1.0)

    def reached(k):
        return log_mixture(up + share_up * k, down + (1 - share_up) * k) >= target

    k = 1
    while not reached(k):
        if n + k > cap:
            return None
        k *= 2
    low = k // 2  # not reached at low (or low is 0), reached at k
    while k - low > 1:
        middle = (low + k) // 2
        low, k = (low, middle) if reached(middle) else (middle, k)
    return n + k if n + k <= cap else None


def fewest_rounds(alpha, prior=PRIOR):
    """The fewest rounds that can exclude a median at level `alpha`: every one of them on the same side."""
    n = 1
    while log_mixture(n, 0, prior) < math.log(1 / alpha):
        n += 1
    return n
