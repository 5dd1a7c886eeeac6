"""A run's steady state, found in its time series rather than assumed: changepoints in the rate per interval
that a load generator reports (its `series:` line), and the class of the run they make.

A 1-s run and a 180-s run of the same server measure different things when the server warms up, or slows down,
within the run: a mean over the whole run mixes the phases in proportion to the run's length, so the ratio of
two systems moves with the length. This module finds the phases. It follows Barrett et al., "Virtual Machine
Warmup Blows Hot and Cold" (OOPSLA 2017): PELT (Killick, Fearnhead and Eckley, "Optimal detection of
changepoints with a linear computational cost", JASA 2012) with the normal mean-and-variance cost and a penalty
of 15 log n, adjacent segments whose means are within a tolerance merged as equivalent, and each run classed:

    flat             one segment: the rate did not change
    warm-up          the last segment is the fastest: the run reached its steady state after a slower start
    slowdown         an earlier segment was faster than the last: the run fell to its steady state
    no steady state  the rate still changed in the last quarter of the run: no segment to call steady

Neither ruptures nor R's changepoint is packaged in Debian 12; PELT with this cost is short enough to write in
NumPy, and steady_state_test.py checks it on series made with known changepoints.

    found = steady_state.classify(series)        # series: {"interval_s", "last_s", "sent": [...], ...}
    found["class"], found["steady_start_s"], found["steady_rate"], found["whole_rate"]
    steady_state.changepoints([5.0] * 50 + [9.0] * 50)      # [50]
"""

import math

import numpy

FLAT, WARM_UP, SLOWDOWN, NO_STEADY_STATE = "flat", "warm-up", "slowdown", "no steady state"
CLASSES = (FLAT, WARM_UP, SLOWDOWN, NO_STEADY_STATE)
# Barrett et al.'s penalty, per changepoint: 15 log n. BIC's 2 log n (the changepoint package's default for a
# change in mean and variance) finds a changepoint in every burst of a busy VM's noise.
PENALTY_PER_LOG_N = 15.0
# The shortest segment, in intervals: at 100 ms, half a second. A shorter one is a burst, not a phase.
MIN_SEGMENT = 5
# Two segments whose means differ by less than this share of the larger are one phase (Barrett et al. merge
# segments within a tolerance too): below the verdicts' 5% margin, above a 100-ms interval's rounding.
EQUIVALENT_WITHIN = 0.02
# A changepoint in the last quarter of the run leaves no steady state (Barrett et al.: the last 500 of 2,000
# iterations).
STEADY_TAIL = 0.25
# Fewer intervals than this cannot hold two segments of MIN_SEGMENT and a tail: such a run is judged flat,
# and says so (`too_short`).
MIN_POINTS = 2 * MIN_SEGMENT


def _segment_costs(cumsum, cumsum2, starts, end, floor):
    """The normal mean-and-variance cost (twice the negative log-likelihood, constants left out) of the
    segments [s, end) for every s in `starts`: n log(variance), the variance floored so that a constant run
    has a finite cost."""
    n = end - starts
    total = cumsum[end] - cumsum[starts]
    squares = cumsum2[end] - cumsum2[starts]
    variance = numpy.maximum(squares / n - (total / n) ** 2, floor)
    return n * numpy.log(variance)


def changepoints(values, penalty=None, min_segment=MIN_SEGMENT):
    """The indices where a new segment begins (0 < i < len(values)), by PELT with the normal mean-and-variance
    cost and `penalty` per changepoint (default 15 log n). Exact: the same segmentation as trying every one,
    with the candidates that can never again be optimal pruned (Killick et al.; the cost's K is 0)."""
    x = numpy.asarray(values, dtype=float)
    n = len(x)
    if n < 2 * min_segment:
        return []
    penalty = PENALTY_PER_LOG_N * math.log(n) if penalty is None else penalty
    cumsum = numpy.concatenate(([0.0], numpy.cumsum(x)))
    cumsum2 = numpy.concatenate(([0.0], numpy.cumsum(x * x)))
    # A variance floor relative to the series' scale: counts per interval are integers, and a segment of
    # equal counts would otherwise cost minus infinity.
    scale = max(float(numpy.mean(numpy.abs(x))), 1e-12)
    floor = (1e-3 * scale) ** 2
    best = numpy.full(n + 1, numpy.inf)
    best[0] = -penalty
    last = numpy.zeros(n + 1, dtype=int)
    candidates = numpy.array([0])
    for end in range(min_segment, n + 1):
        ready = end - candidates >= min_segment
        usable = candidates[ready]
        costs = best[usable] + _segment_costs(cumsum, cumsum2, usable, end, floor)
        chosen = int(numpy.argmin(costs))
        best[end], last[end] = costs[chosen] + penalty, usable[chosen]
        # Prune: a start whose cost up to `end` already exceeds the best with a changepoint more can never
        # be optimal later (K = 0 for this cost); starts not yet `min_segment` back stay.
        keep = ~ready
        keep[ready] = costs <= best[end]
        candidates = numpy.append(candidates[keep], end - min_segment + 1)
    found, at = [], n
    while at > 0:
        at = int(last[at])
        if at > 0:
            found.append(at)
    return sorted(found)


def segments(values, cuts):
    """[(start, end, mean)] of `values` cut at `cuts`."""
    bounds = [0] + list(cuts) + [len(values)]
    return [(s, e, float(numpy.mean(values[s:e]))) for s, e in zip(bounds, bounds[1:])]


def merge_equivalent(found, within=EQUIVALENT_WITHIN, values=None):
    """Adjacent segments whose means are within `within` of the larger joined, their mean recomputed from
    `values` where given (else weighted by length), until no neighbours are equivalent."""
    merged = list(found)
    changed = True
    while changed and len(merged) > 1:
        changed = False
        for i in range(len(merged) - 1):
            (s1, e1, m1), (s2, e2, m2) = merged[i], merged[i + 1]
            if abs(m1 - m2) <= within * max(abs(m1), abs(m2)):
                mean = (float(numpy.mean(values[s1:e2])) if values is not None
                        else (m1 * (e1 - s1) + m2 * (e2 - s2)) / (e2 - s1))
                merged[i:i + 2] = [(s1, e2, mean)]
                changed = True
                break
    return merged


def rates(series, key="sent"):
    """The rate per second in each interval of a `series:` line's counts (the last interval by its own
    length); [] where the series lacks `key`."""
    counts = series.get(key) or []
    interval = float(series["interval_s"])
    last = float(series.get("last_s") or interval)
    out = [c / interval for c in counts[:-1]]
    if counts:
        out.append(counts[-1] / last if last > 0 else 0.0)
    return out


def classify_rates(values, interval_s, higher_is_better=True, ignore_at_s=()):
    """The class of one run's rates per interval: {"class", "changepoints_s" (each cut, seconds into the
    run), "segments" ([start_s, end_s, mean] after merging), "steady_start_s", "steady_rate" (the last
    segment's mean; None without a steady state), "too_short"}. Cuts within one interval of a time in
    `ignore_at_s` are the host's (a changepoint the other contestant's run shares) and do not count."""
    x = numpy.asarray(values, dtype=float)
    # The last interval is partial: its rate is noisier than the others' and its weight is no greater.
    body = x[:-1] if len(x) > MIN_POINTS else x
    out = {"too_short": len(body) < MIN_POINTS}
    cuts = [c for c in changepoints(body)
            if not any(abs(c * interval_s - t) <= interval_s * 1.5 for t in ignore_at_s)]
    found = merge_equivalent(segments(body, cuts), values=body)
    out["changepoints_s"] = [round(s * interval_s, 3) for s, _, _ in found[1:]]
    out["segments"] = [[round(s * interval_s, 3), round(e * interval_s, 3), m] for s, e, m in found]
    last_start, _, last_mean = found[-1]
    sign = 1 if higher_is_better else -1
    if len(found) == 1:
        kind = FLAT
    elif last_start >= (1 - STEADY_TAIL) * len(body):
        kind = NO_STEADY_STATE
    elif any(sign * (m - last_mean) > EQUIVALENT_WITHIN * max(abs(m), abs(last_mean)) for _, _, m in found[:-1]):
        kind = SLOWDOWN
    else:
        kind = WARM_UP
    out["class"] = kind
    out["steady_start_s"] = None if kind == NO_STEADY_STATE else round(last_start * interval_s, 3)
    out["steady_rate"] = None if kind == NO_STEADY_STATE else last_mean
    return out


def classify(series, key="sent", ignore_at_s=()):
    """classify_rates of a `series:` line's `key` counts, with "whole_rate": the count over the whole run
    divided by its length, as the write-ups counted (their "sent N in T"); None without a series."""
    if not series or not series.get(key):
        return None
    interval = float(series["interval_s"])
    found = classify_rates(rates(series, key), interval, ignore_at_s=ignore_at_s)
    seconds = interval * (len(series[key]) - 1) + float(series.get("last_s") or interval)
    found["whole_rate"] = sum(series[key]) / seconds if seconds > 0 else None
    found["seconds"] = round(seconds, 3)
    return found


def shared_changepoints(first, second, within_s):
    """The changepoint times (seconds into the run) that two runs' classes share within `within_s`: a change
    at the same moment of both contestants' runs is the setting's or the host's, not either program's."""
    return [t for t in (first or {}).get("changepoints_s", [])
            if any(abs(t - u) <= within_s for u in (second or {}).get("changepoints_s", []))]
