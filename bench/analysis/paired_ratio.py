"""Paired statistics of two systems measured in the same interleaved rounds: the ratio A/B within each round,
its geometric mean with a 95% confidence interval, an exact sign-flip test as a check, and what the run could
have detected.

Rounds pair because A and B run back to back in each one: whatever drifts between rounds (a thermal state, a
noisy neighbour, the page cache) moves both sides alike and cancels in A_i / B_i, while a pooled test over all
samples (verdict.mann_whitney_p) counts that drift as noise. Ratios are taken in logs so that A/B and B/A are
symmetric and the interval of a ratio is a ratio.

    stats = paired_ratio.analyse({0: 130.0, 1: 262.0, 2: 390.0}, {0: 100.0, 1: 200.0, 2: 300.0})
    stats["geomean_ratio"], stats["ci95"]   # 1.303..., [1.289..., 1.318...]
    stats["sign_flip_p"]                    # 0.25: with 3 rounds no sign test can say more than 2 / 8
    stats["detectable_pct"]                 # differences above this % would have been seen (80% power)
    stats["rounds_needed"]                  # rounds that would resolve the observed difference

The t quantiles come from SciPy (`scipy.stats.t.ppf`, imported when first needed: ImportError without it).
"""

import math
import random

CONFIDENCE = 0.95
POWER = 0.80
EXACT_SIGN_FLIP_UP_TO = 16  # 2^16 = 65,536 sums: enumerated in well under a second
MONTE_CARLO_DRAWS = 20000
MONTE_CARLO_SEED = 20240521  # fixed so that a stored verdict is recomputed to the same p from the same samples
ROUNDS_NEEDED_CAP = 1000
MORE_THAN_CAP = f"more than {ROUNDS_NEEDED_CAP}"
TEST = "paired t on log ratios"


def paired_rounds(rounds_a, rounds_b):
    """(A_i, B_i) for every round index both sides have, in round order. Rounds where either side is missing
    or not positive are left out: a zero throughput (a run that did nothing) has no log ratio."""
    pairs = []
    for index in sorted(set(rounds_a or {}) & set(rounds_b or {})):
        a, b = rounds_a[index], rounds_b[index]
        if a is not None and b is not None and a > 0 and b > 0:
            pairs.append((a, b))
    return pairs


def t_quantile(q, df):
    from scipy.stats import t
    return t.ppf(q, df)


def sign_flip_p(log_ratios, seed=MONTE_CARLO_SEED):
    """Two-sided p of the sign-flip permutation test: under "no difference" each round's log ratio is as likely
    negative as positive, so the share of sign assignments whose |sum| reaches the observed |sum| is the p.
    Exact over all 2^n assignments for n <= 16; beyond, MONTE_CARLO_DRAWS random assignments seeded with `seed`,
    counted as (hits + 1) / (draws + 1) so that the observed assignment itself is included and p is never 0.
    None without any ratio. Its smallest value is 2 / 2^n (0.0625 for 5 rounds)."""
    n = len(log_ratios)
    if n == 0:
        return None
    observed = abs(sum(log_ratios))
    # Assignments whose sum equals the observed one in exact arithmetic can differ from it in the last bits
    # after a different order of additions; a relative tolerance counts them as reaching it.
    reach = observed * (1 - 1e-9) - 1e-15
    if n <= EXACT_SIGN_FLIP_UP_TO:
        sums = [0.0]
        for x in log_ratios:
            sums = [s + x for s in sums] + [s - x for s in sums]
        return sum(1 for s in sums if abs(s) >= reach) / len(sums)
    rng = random.Random(seed)
    hits = 0
    for _ in range(MONTE_CARLO_DRAWS):
        if abs(sum(x if rng.random() < 0.5 else -x for x in log_ratios)) >= reach:
            hits += 1
    return (hits + 1) / (MONTE_CARLO_DRAWS + 1)


def _power_factor(n):
    """t_{1-alpha/2, n-1} + t_{power, n-1}: how many standard errors apart two means must be for a two-sided
    test at 1 - CONFIDENCE to see the difference with probability POWER. The usual approximation (as in the
    sample-size formula n = ((z_{1-alpha/2} + z_{power}) s / delta)^2, with t for z): it ignores the far tail
    and uses central t quantiles instead of the noncentral t, so it is slightly optimistic for few rounds."""
    return t_quantile(1 - (1 - CONFIDENCE) / 2, n - 1) + t_quantile(POWER, n - 1)


def detectable_log_difference(sd, n):
    """The smallest |mean log ratio| this many rounds with this spread would detect (see _power_factor)."""
    return _power_factor(n) * sd / math.sqrt(n)


def rounds_needed(sd, mean_log):
    """The fewest rounds (at least 2) whose detectable difference is within |mean_log|: the rounds that would
    resolve the difference observed, if its spread stayed `sd`. None when the difference observed is 0;
    MORE_THAN_CAP beyond ROUNDS_NEEDED_CAP."""
    if mean_log == 0:
        return None
    if sd == 0:
        return 2
    import numpy
    ns = numpy.arange(2, ROUNDS_NEEDED_CAP + 1)
    reached = numpy.nonzero(_power_factor(ns) * sd / numpy.sqrt(ns) <= abs(mean_log))[0]
    return int(ns[reached[0]]) if len(reached) else MORE_THAN_CAP


def analyse(rounds_a, rounds_b):
    """The paired statistics of A over B. `rounds_a` and `rounds_b` map a round's index to that round's value
    of each side. Returns:

        rounds            the number of rounds paired (both sides present and positive)
        geomean_ratio     exp(mean(log(A_i / B_i))); None without a round
        ci95              [low, high] of that ratio, a t interval on the log ratios; None under 2 rounds
        t_p_value         two-sided p of the paired t test on the log ratios (below 0.05 exactly when ci95
                          excludes 1); None under 2 rounds
        sign_flip_p       sign_flip_p() of the log ratios, a check that assumes no normality
        sign_flip_method  how sign_flip_p was computed: exactly over 2^n assignments, or the Monte Carlo's
                          draws and seed
        detectable_pct    differences above this many percent would have been detected at 80% power,
                          two-sided alpha 0.05: (exp(detectable_log_difference) - 1) * 100; None under 2 rounds
        rounds_needed     rounds_needed() of the observed difference; None under 2 rounds
        test              TEST
    """
    pairs = paired_rounds(rounds_a, rounds_b)
    logs = [math.log(a / b) for a, b in pairs]
    n = len(logs)
    out = {"rounds": n, "geomean_ratio": None, "ci95": None, "t_p_value": None, "sign_flip_p": sign_flip_p(logs),
           "sign_flip_method": (f"exact, 2^{n} assignments" if n <= EXACT_SIGN_FLIP_UP_TO else
                                f"Monte Carlo, {MONTE_CARLO_DRAWS} assignments, seed {MONTE_CARLO_SEED}"),
           "detectable_pct": None, "rounds_needed": None, "test": TEST}
    if n == 0:
        return out
    mean = sum(logs) / n
    out["geomean_ratio"] = math.exp(mean)
    if n < 2:
        return out
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))
    half = t_quantile(1 - (1 - CONFIDENCE) / 2, n - 1) * sd / math.sqrt(n)
    out["ci95"] = [math.exp(mean - half), math.exp(mean + half)]
    if sd == 0:  # every round the same ratio: no spread to weigh the difference against
        out["t_p_value"] = 1.0 if mean == 0 else 0.0
    else:
        from scipy.stats import t
        out["t_p_value"] = float(2 * t.sf(abs(mean) / (sd / math.sqrt(n)), n - 1))
    out["detectable_pct"] = (math.exp(detectable_log_difference(sd, n)) - 1) * 100
    out["rounds_needed"] = rounds_needed(sd, mean)
    return out
