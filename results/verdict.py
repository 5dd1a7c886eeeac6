"""Verdicts on the write-ups' claims, computed from the samples of one run, never written by hand.

A claim says that system A beats system B on one figure (more msgs/s, less wall time). Given every sample of
both, taken in interleaved rounds, `judge()` returns the medians, their ratio, the range of the same ratio
within single rounds, a two-sided Mann-Whitney U test over the samples (SciPy, as Google Benchmark's
compare.py does) and one of these verdicts:

    HOLDS         A beats B: p < ALPHA and the ratio is on the claim's side of 1 in every round
    REVERSED      B beats A, by the same test
    NOT_SEPARABLE p >= ALPHA, or the per-round ratios fall on both sides of 1
    NOT_MEASURED  a side has no samples here (a contestant skipped or failed; `why` says which)

and, for a claim about a system this machine is not, NOT_TESTABLE (see `not_testable()`).

    v = verdict.judge(racket_msgs, go_msgs, rounds_a, rounds_b, higher_is_better=True)
    v["verdict"]  # "holds"
"""

import statistics

HOLDS = "holds"
REVERSED = "reversed"
NOT_SEPARABLE = "not separable on this machine"
NOT_MEASURED = "not measured"
NOT_TESTABLE = "not testable here"

ALPHA = 0.05


def mann_whitney_p(a, b):
    """Two-sided p-value of the Mann-Whitney U test of samples a and b (SciPy: exact for small samples
    without ties). None when either side has fewer than 2 samples or SciPy is missing."""
    if len(a) < 2 or len(b) < 2:
        return None
    try:
        from scipy.stats import mannwhitneyu
    except ImportError:  # the verdict then says why: tools/bootstrap.sh installs python3-scipy
        return None
    if len(set(a) | set(b)) == 1:
        return 1.0  # every sample equal: nothing separates them (SciPy would divide by zero)
    return float(mannwhitneyu(a, b, alternative="two-sided").pvalue)


def judge(a, b, rounds_a=None, rounds_b=None, higher_is_better=True, why_missing=None):
    """The verdict on "A beats B". `a` and `b` are the samples of each side (None entries are dropped).
    `rounds_a` and `rounds_b` map a round's index to that round's value of each side (its median, where a
    round holds several samples); the per-round ratio is taken where both sides have the round."""
    a = [x for x in a if x is not None]
    b = [x for x in b if x is not None]
    out = {"samples_a": len(a), "samples_b": len(b), "median_a": None, "median_b": None, "ratio": None,
           "per_round_min": None, "per_round_max": None, "p_value": None}
    if not a or not b:
        out["verdict"] = NOT_MEASURED
        out["why"] = why_missing or ("no samples of " + " and ".join(
            side for side, xs in (("A", a), ("B", b)) if not xs))
        return out
    out["median_a"], out["median_b"] = statistics.median(a), statistics.median(b)
    out["ratio"] = out["median_a"] / out["median_b"] if out["median_b"] else None
    per_round = []
    for index, value_a in sorted((rounds_a or {}).items()):
        value_b = (rounds_b or {}).get(index)
        if value_a is not None and value_b:
            per_round.append(value_a / value_b)
    if per_round:
        out["per_round_min"], out["per_round_max"] = min(per_round), max(per_round)
    out["p_value"] = mann_whitney_p(a, b)
    out["verdict"], out["why"] = _decide(out, higher_is_better)
    return out


def _decide(out, higher_is_better):
    p, ratio = out["p_value"], out["ratio"]
    if p is None:
        if min(out["samples_a"], out["samples_b"]) < 2:
            return NOT_SEPARABLE, (f"{out['samples_a']} and {out['samples_b']} samples: too few for a U test "
                                   "(5 a side can reach p < 0.05)")
        return NOT_SEPARABLE, "SciPy is missing (tools/bootstrap.sh installs python3-scipy)"
    if p >= ALPHA:
        return NOT_SEPARABLE, f"p = {p:.3g} >= {ALPHA}"
    low, high = out["per_round_min"], out["per_round_max"]
    if low is not None and low <= 1 <= high:
        return NOT_SEPARABLE, f"the per-round ratio crosses 1 ({low:.3g} .. {high:.3g})"
    if ratio is None or ratio == 1:
        return NOT_SEPARABLE, "equal medians"
    a_better = ratio > 1 if higher_is_better else ratio < 1
    return (HOLDS if a_better else REVERSED), f"p = {p:.3g}"


def not_testable(what_it_needs, command):
    """A claim about a system this machine is not: what it needs and the command to run there."""
    return {"verdict": NOT_TESTABLE, "why": what_it_needs, "command": command}
