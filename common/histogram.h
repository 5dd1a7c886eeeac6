// A latency histogram in the HdrHistogram style: log-linear buckets that keep 3 significant decimal digits
// over the whole range, so recording is a handful of instructions and memory is fixed (about 270 KB for the
// default range of 1 ns .. 1 hour), whatever is recorded.
//
//   LatencyHistogram h;
//   h.Record(rtt_nanos);                  // constant time, no allocation
//   total.Merge(h);                       // exact: per-thread histograms add up to the whole
//   int64_t p99 = total.ValueAtPercentile(99.0);
//
// A value reported for a percentile is the highest value equivalent to the recorded one (it may exceed the
// true value by at most 1 part in 1000). min(), max(), mean() and stddev() are exact, computed from the
// recorded values. Not thread-safe: keep one per thread and Merge.
#ifndef NETBENCH_COMMON_HISTOGRAM_H_
#define NETBENCH_COMMON_HISTOGRAM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "common/clock.h"

namespace netbench {

class LatencyHistogram {
 public:
  static constexpr int kSignificantDigits = 3;

  // Values above `highest_trackable` are recorded as `highest_trackable` and counted in overflow_count().
  explicit LatencyHistogram(int64_t highest_trackable = 3600 * kNanosPerSecond);
  LatencyHistogram(const LatencyHistogram& other);
  LatencyHistogram& operator=(const LatencyHistogram& other);
  LatencyHistogram(LatencyHistogram&&) noexcept = default;
  LatencyHistogram& operator=(LatencyHistogram&&) noexcept = default;

  // Negative values are recorded as 0.
  void Record(int64_t value) { RecordN(value, 1); }
  void RecordN(int64_t value, int64_t count);
  // Adds everything `other` recorded. Both must have the same highest_trackable.
  void Merge(const LatencyHistogram& other);
  void Reset();

  int64_t count() const { return total_count_; }
  int64_t min() const { return total_count_ == 0 ? 0 : min_; }
  int64_t max() const { return total_count_ == 0 ? 0 : max_; }
  int64_t overflow_count() const { return overflow_count_; }
  int64_t highest_trackable() const { return highest_trackable_; }
  double mean() const;
  double stddev() const;

  // The value below which `percentile` percent of the recorded values fall (0 <= percentile <= 100);
  // 0 for an empty histogram. 0 gives min(), 100 gives max().
  int64_t ValueAtPercentile(double percentile) const;

  // Every non-empty bucket, in increasing order, as (lowest value the bucket holds, count). Recording
  // these pairs into an empty histogram of the same range reproduces the buckets exactly.
  void ForEachBucket(const std::function<void(int64_t lowest_value, int64_t count)>& visit) const;

  // Bucket bounds, exposed for tests: the range of values that share `value`'s bucket.
  int64_t LowestEquivalentValue(int64_t value) const;
  int64_t HighestEquivalentValue(int64_t value) const;

 private:
  int BucketIndex(int64_t value) const;
  int CountsIndex(int64_t value) const;
  int64_t ValueFromIndex(int index) const;

  int64_t highest_trackable_;
  int bucket_count_;
  int counts_length_;
  std::unique_ptr<int64_t[]> counts_;
  int64_t total_count_ = 0;
  int64_t overflow_count_ = 0;
  int64_t min_ = INT64_MAX;
  int64_t max_ = 0;
  // Exact moments of the recorded (clamped) values in 128-bit integers: exact, cheaper than floating point
  // on the record path, and wide enough for 10^12 records of an hour each.
  unsigned __int128 sum_ = 0;
  unsigned __int128 sum_of_squares_ = 0;
};

}  // namespace netbench

#endif  // NETBENCH_COMMON_HISTOGRAM_H_
