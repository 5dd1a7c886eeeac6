"""Latency histograms of several client processes, rounds or machines merged exactly, and their percentiles
computed as common/histogram.cc computes them. A histogram is the object a netbench program writes under
"histograms" in its run document (common/README.md): every non-empty bucket as [lowest value, count] with
HdrHistogram's 3-significant-digit layout, so adding the counts of equal buckets is the merge, exact, and a
percentile read from the merged buckets is the one LatencyHistogram::Merge then ValueAtPercentile give.

    total = histogram_merge.merge([client_a["histograms"]["rtt"], client_b["histograms"]["rtt"]])
    total["percentiles"]["99"]                               # ns, as the C++ would report it
    histogram_merge.value_at_percentile(total, 99.9)

count, min, max, overflow_count, buckets and every percentile are exact. mean and stddev are pooled from
each part's mean and stddev (the C++ keeps 128-bit sums the document does not carry, and prints 9 significant
digits), so they agree with the C++ merge to about 1e-8 relative, not to the last bit.
"""

import math

# LatencyHistogram's layout (common/histogram.cc): 2^11 sub-buckets per bucket, the upper half new in each.
SUB_BUCKET_COUNT_MAGNITUDE = 11
SUB_BUCKET_COUNT = 1 << SUB_BUCKET_COUNT_MAGNITUDE
SUB_BUCKET_HALF_COUNT_MAGNITUDE = SUB_BUCKET_COUNT_MAGNITUDE - 1
SUB_BUCKET_HALF_COUNT = SUB_BUCKET_COUNT // 2
SUB_BUCKET_MASK = SUB_BUCKET_COUNT - 1
SIGNIFICANT_DIGITS = 3
# The percentiles a run document reports (common/run_report.cc's kReportedPercentiles), keyed as "%g" prints.
REPORTED_PERCENTILES = (50, 90, 99, 99.9, 99.99)


class MergeError(ValueError):
    """Histograms that cannot be merged exactly (another range or layout), or one that is malformed."""


def percentile_key(percentile):
    return f"{percentile:g}"


def _bucket_index(value):
    pow2_ceiling = (value | SUB_BUCKET_MASK).bit_length()
    return pow2_ceiling - (SUB_BUCKET_HALF_COUNT_MAGNITUDE + 1)


def _counts_index(value):
    bucket = _bucket_index(value)
    sub_bucket = value >> bucket
    return ((bucket + 1) << SUB_BUCKET_HALF_COUNT_MAGNITUDE) + (sub_bucket - SUB_BUCKET_HALF_COUNT)


def _value_from_index(index):
    bucket = (index >> SUB_BUCKET_HALF_COUNT_MAGNITUDE) - 1
    sub_bucket = (index & (SUB_BUCKET_HALF_COUNT - 1)) + SUB_BUCKET_HALF_COUNT
    if bucket < 0:
        sub_bucket -= SUB_BUCKET_HALF_COUNT
        bucket = 0
    return sub_bucket << bucket


def lowest_equivalent_value(value):
    return _value_from_index(_counts_index(value))


def highest_equivalent_value(value):
    """The highest value that shares `value`'s bucket (LatencyHistogram::HighestEquivalentValue)."""
    bucket = _bucket_index(value)
    sub_bucket = value >> bucket
    width = (1 << (bucket + 1)) if sub_bucket >= SUB_BUCKET_COUNT else (1 << bucket)
    return lowest_equivalent_value(value) + width - 1


def value_at_percentile(histogram, percentile):
    """LatencyHistogram::ValueAtPercentile over a histogram object: the highest value equivalent to the one at
    1-based rank ceil(percentile/100 * count), clamped to [min, max]; 0 for an empty histogram."""
    total = histogram["count"]
    if total == 0:
        return 0
    if percentile <= 0:
        return histogram["min"]
    if percentile >= 100:
        return histogram["max"]
    rank = min(max(math.ceil(percentile / 100.0 * total), 1), total)
    seen = 0
    for lowest, count in sorted(histogram["buckets"]):
        seen += count
        if seen >= rank:
            return min(max(highest_equivalent_value(lowest), histogram["min"]), histogram["max"])
    return histogram["max"]


def _check_mergeable(histograms):
    ranges = {h["highest_trackable"] for h in histograms}
    if len(ranges) > 1:
        raise MergeError(f"histograms of different ranges (highest_trackable {sorted(ranges)}) do not merge exactly")
    digits = {h.get("significant_digits", SIGNIFICANT_DIGITS) for h in histograms}
    if digits != {SIGNIFICANT_DIGITS}:
        raise MergeError(f"significant_digits {sorted(digits)}: this merge knows only the layout of "
                         f"{SIGNIFICANT_DIGITS}")
    for h in histograms:
        if h.get("unit", "ns") != "ns":
            raise MergeError(f"unit {h['unit']!r}: histograms are in ns")
        if sum(count for _, count in h["buckets"]) != h["count"]:
            raise MergeError(f"a histogram's buckets hold {sum(c for _, c in h['buckets'])} values, its count "
                             f"says {h['count']}: it cannot be merged exactly")
        for lowest, _ in h["buckets"]:
            if lowest_equivalent_value(lowest) != lowest:
                raise MergeError(f"bucket {lowest} is not the lowest value of a bucket of this layout")


def merge(histograms):
    """One histogram holding everything `histograms` recorded, in the run document's form (percentiles at
    REPORTED_PERCENTILES). Raises MergeError for histograms of different ranges or a malformed one."""
    histograms = [h for h in histograms if h is not None]
    if not histograms:
        raise MergeError("nothing to merge")
    _check_mergeable(histograms)
    counts = {}
    for h in histograms:
        for lowest, count in h["buckets"]:
            counts[lowest] = counts.get(lowest, 0) + count
    recorded = [h for h in histograms if h["count"] > 0]
    total = sum(h["count"] for h in recorded)
    merged = {
        "unit": "ns",
        "count": total,
        "min": min((h["min"] for h in recorded), default=0),
        "max": max((h["max"] for h in recorded), default=0),
        "mean": None,
        "stddev": None,
        "percentiles": {},
        "overflow_count": sum(h["overflow_count"] for h in histograms),
        "highest_trackable": histograms[0]["highest_trackable"],
        "significant_digits": SIGNIFICANT_DIGITS,
        "buckets": [[lowest, counts[lowest]] for lowest in sorted(counts) if counts[lowest]],
    }
    merged["mean"], merged["stddev"] = _pooled_moments(recorded, total)
    for p in REPORTED_PERCENTILES:
        merged["percentiles"][percentile_key(p)] = value_at_percentile(merged, p)
    return merged


def merge_case_histograms(rows, key_fields=("server", "load")):
    """The latency histograms of a detail bench's rows merged per case over its rounds: each row's
    "histograms" (a client's, by name, with every bucket) is taken out of the row and added to its case's.
    Returns [{server, load, name, rounds, histogram}] in the rows' order; rows whose client failed, and a
    case whose histograms do not merge (another range), are left out. Stored per case rather than per round, a bench's histograms take a fifth of the space, and the
    rounds' percentiles stay in the rows (p50_us, p99_us) for the U tests."""
    merged, order = {}, []
    for row in rows:
        histograms = row.pop("histograms", None) or {}
        if row.get("returncode", 0) != 0:
            continue
        for name, histogram in histograms.items():
            key = tuple(row.get(k) for k in key_fields) + (name,)
            if key not in merged:
                merged[key] = ([], [])
                order.append(key)
            merged[key][0].append(row.get("round", 0))
            merged[key][1].append(histogram)
    out = []
    for key in order:
        try:
            histogram = merge(merged[key][1])
        except MergeError:
            continue
        out.append({**dict(zip(key_fields, key[:-1])), "name": key[-1], "rounds": merged[key][0],
                    "histogram": histogram})
    return out


def _pooled_moments(recorded, total):
    if total == 0:
        return 0.0, 0.0
    if any(h["mean"] is None or h["stddev"] is None for h in recorded):
        return None, None
    mean = sum(h["mean"] * h["count"] for h in recorded) / total
    # E[x^2] of each part is its variance plus its squared mean (population moments, as the C++ computes).
    second = sum((h["stddev"] ** 2 + h["mean"] ** 2) * h["count"] for h in recorded) / total
    variance = second - mean * mean
    return mean, math.sqrt(variance) if variance > 0 else 0.0


def merge_documents_histograms(documents):
    """{name: merged histogram} over every histogram name in any of the run `documents` (netbench.run/1, one
    per client process or host of a fleet); a name only some documents carry merges what they have."""
    names = list(dict.fromkeys(name for d in documents for name in (d.get("histograms") or {})))
    return {name: merge([(d.get("histograms") or {}).get(name) for d in documents]) for name in names}
