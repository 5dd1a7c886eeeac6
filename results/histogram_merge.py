"""Exact merge of the latency histograms in netbench.run/1 documents (common/README.md), as
LatencyHistogram::Merge does in C++: the clients of a fleet each write one document, and the fleet's row
carries one histogram per name with every client's samples.

    merged = histogram_merge.merge([doc_a["histograms"]["rtt_sampled"], doc_b["histograms"]["rtt_sampled"]])
    merged["count"], merged["percentiles"]["99"], merged["buckets"]

The buckets ([lowest value, count]) add up exactly; count, min, max and the overflow count follow; mean and
standard deviation are combined from each part's moments (exact up to floating point); percentiles are read
from the merged buckets by the same rule as LatencyHistogram::ValueAtPercentile, so a merged histogram reports
what the C++ merge of the same histograms would. Standard library only.
"""

import math

# The percentiles every netbench program reports (common/run_report.cc, kReportedPercentiles).
REPORTED_PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99)
# common/histogram.cc: 2^11 sub-buckets per bucket, the upper half new in every bucket after the first.
_SUB_BUCKET_COUNT_MAGNITUDE = 11
_SUB_BUCKET_COUNT = 1 << _SUB_BUCKET_COUNT_MAGNITUDE
_SUB_BUCKET_MASK = _SUB_BUCKET_COUNT - 1


class MergeError(ValueError):
    """Histograms that cannot be merged (different ranges or precision)."""


def _bucket_index(value):
    return (value | _SUB_BUCKET_MASK).bit_length() - _SUB_BUCKET_COUNT_MAGNITUDE


def highest_equivalent_value(value):
    """The highest value that shares `value`'s bucket (LatencyHistogram::HighestEquivalentValue)."""
    bucket = _bucket_index(value)
    sub_bucket = value >> bucket
    width = (1 << (bucket + 1)) if sub_bucket >= _SUB_BUCKET_COUNT else (1 << bucket)
    lowest = sub_bucket << bucket
    return lowest + width - 1


def percentile_key(percentile):
    """"50", "99.9": the key run_report.cc writes for a percentile."""
    return f"{percentile:g}"


def value_at_percentile(buckets, count, minimum, maximum, percentile):
    """LatencyHistogram::ValueAtPercentile over sorted [lowest value, count] buckets."""
    if count == 0:
        return 0
    if percentile <= 0:
        return minimum
    if percentile >= 100:
        return maximum
    rank = min(max(math.ceil(percentile / 100.0 * count), 1), count)
    seen = 0
    for lowest, n in buckets:
        seen += n
        if seen >= rank:
            return min(max(highest_equivalent_value(lowest), minimum), maximum)
    return maximum


def merge(histograms):
    """One histogram (the run document's shape) holding every sample of `histograms`."""
    histograms = [h for h in histograms if h]
    if not histograms:
        return None
    for key in ("highest_trackable", "significant_digits", "unit"):
        values = {h.get(key) for h in histograms}
        if len(values) > 1:
            raise MergeError(f"histograms with different {key}: {sorted(map(str, values))}")
    counts = {}
    for h in histograms:
        for lowest, n in h.get("buckets", []):
            counts[lowest] = counts.get(lowest, 0) + n
    buckets = sorted([lowest, n] for lowest, n in counts.items() if n)
    total = sum(h["count"] for h in histograms)
    if total != sum(n for _, n in buckets):
        raise MergeError("a histogram's buckets do not add up to its count (written without buckets?)")
    non_empty = [h for h in histograms if h["count"]]
    minimum = min((h["min"] for h in non_empty), default=0)
    maximum = max((h["max"] for h in non_empty), default=0)
    mean = sum(h["mean"] * h["count"] for h in non_empty) / total if total else 0.0
    # Each part's sum of squares is count * (stddev^2 + mean^2); the whole's variance follows from the sums.
    squares = sum(h["count"] * (h["stddev"] ** 2 + h["mean"] ** 2) for h in non_empty)
    variance = squares / total - mean * mean if total else 0.0
    merged = {"unit": histograms[0].get("unit", "ns"), "count": total, "min": minimum, "max": maximum,
              "mean": mean, "stddev": math.sqrt(variance) if variance > 0 else 0.0,
              "percentiles": {percentile_key(p): value_at_percentile(buckets, total, minimum, maximum, p)
                              for p in REPORTED_PERCENTILES},
              "overflow_count": sum(h.get("overflow_count", 0) for h in histograms),
              "buckets": buckets}
    for key in ("highest_trackable", "significant_digits"):
        if key in histograms[0]:
            merged[key] = histograms[0][key]
    return merged


def merge_documents_histograms(documents):
    """{name: merged histogram} over every histogram name in any of the run `documents`."""
    names = list(dict.fromkeys(name for d in documents for name in (d.get("histograms") or {})))
    return {name: merge([(d.get("histograms") or {}).get(name) for d in documents]) for name in names}
