"""Whether a claim's per-round ratio drifted during a run: changepoints in the series of its rounds' log ratios.

A verdict pools its rounds as draws of one ratio. When the host moved from one state to another partway (a
neighbour arrived, the VM was moved), the rounds before and after are two ratios, and the pooled one is their
mixture in proportion to how long each lasted: a second run, in other proportions, gets another answer. The
report says so beside the verdict rather than hiding it in the interval's width.

    found = drift.drift([0.0] * 12 + [0.3] * 12, rounds=list(range(24)))
    found["at_rounds"], found["ratios"]       # [12], [1.0, 1.35]

The segmentation is steady_state.py's PELT (normal mean-and-variance cost) with a penalty for rounds rather
than 100-ms intervals, and segments whose ratios differ by less than the verdicts' margin are one: a drift is
reported only when it is one the margin would call a difference.
"""

import math
import statistics

from bench.analysis import steady_state

# Per changepoint, PENALTY_PER_LOG_N * log(rounds). A round is already a whole run's figure, not a 100-ms
# count: 15 log n (steady_state's) would need a shift of three standard deviations over 40 rounds. With 4 log n
# and the rounds clipped first (WINSORIZE_AT), 1% of 60-round series of heavy-tailed noise (Student's t, 3
# degrees of freedom) show a drift and 86% of 40-round series with a 1.5-sd step do (drift_test.py).
PENALTY_PER_LOG_N = 4.0
# A round's log ratio is clipped to the median +- this many robust standard deviations (1.4826 MAD) before the
# search: the cost is a normal's, and one wild round (the stored runs have ratios from 0.36 to 2.07) would
# otherwise be a segment of its own.
WINSORIZE_AT = 2.0
# The shortest stretch of rounds that is a state of the host rather than a burst.
MIN_ROUNDS = 5


def drift(log_ratios, rounds, margin=0.05):
    """None, or {"at_rounds": the rounds (from `rounds`, one per log ratio, in order) where a new state begins,
    "ratios": each state's geometric mean ratio}: the segments of `log_ratios` whose ratios differ by more than
    `margin`."""
    n = len(log_ratios)
    if n < 2 * MIN_ROUNDS:
        return None
    clipped = _winsorized(log_ratios)
    cuts = steady_state.changepoints(clipped, penalty=PENALTY_PER_LOG_N * math.log(n), min_segment=MIN_ROUNDS)
    found = _merged(steady_state.segments(log_ratios, cuts), log_ratios, math.log1p(margin))
    if len(found) < 2:
        return None
    return {"at_rounds": [rounds[start] for start, _, _ in found[1:]],
            "ratios": [math.exp(mean) for _, _, mean in found]}


def _winsorized(values):
    middle = statistics.median(values)
    spread = 1.4826 * statistics.median(abs(v - middle) for v in values)
    if spread == 0:
        return list(values)
    low, high = middle - WINSORIZE_AT * spread, middle + WINSORIZE_AT * spread
    return [min(max(v, low), high) for v in values]


def _merged(found, values, within):
    """Adjacent segments whose mean log ratios differ by no more than `within` joined, until none do."""
    merged = list(found)
    joined = True
    while joined and len(merged) > 1:
        joined = False
        for i in range(len(merged) - 1):
            (s1, _, m1), (_, e2, m2) = merged[i], merged[i + 1]
            if abs(m1 - m2) <= within:
                merged[i:i + 2] = [(s1, e2, math.fsum(values[s1:e2]) / (e2 - s1))]
                joined = True
                break
    return merged

