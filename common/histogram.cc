#include "common/histogram.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

namespace netbench {
namespace {

// 3 significant digits need single-unit resolution up to 2 * 10^3, so each bucket is split into
// 2^11 = 2048 sub-buckets, of which the upper half (1024) are new in every bucket after the first.
constexpr int kSubBucketCountMagnitude = 11;
constexpr int64_t kSubBucketCount = int64_t{1} << kSubBucketCountMagnitude;
constexpr int kSubBucketHalfCountMagnitude = kSubBucketCountMagnitude - 1;
constexpr int64_t kSubBucketHalfCount = kSubBucketCount / 2;
constexpr int64_t kSubBucketMask = kSubBucketCount - 1;

int BucketsNeeded(int64_t highest_trackable) {
  int64_t smallest_untrackable = kSubBucketCount;
  int buckets = 1;
  while (smallest_untrackable <= highest_trackable) {
    if (smallest_untrackable > INT64_MAX / 2) return buckets + 1;
    smallest_untrackable <<= 1;
    ++buckets;
  }
  return buckets;
}

}  // namespace

LatencyHistogram::LatencyHistogram(int64_t highest_trackable)
    : highest_trackable_(std::max<int64_t>(highest_trackable, 2 * kSubBucketCount)),
      bucket_count_(BucketsNeeded(highest_trackable_)),
      counts_length_(static_cast<int>((bucket_count_ + 1) * kSubBucketHalfCount)),
      counts_(new int64_t[counts_length_]()) {}

LatencyHistogram::LatencyHistogram(const LatencyHistogram& other)
    : highest_trackable_(other.highest_trackable_),
      bucket_count_(other.bucket_count_),
      counts_length_(other.counts_length_),
      counts_(new int64_t[counts_length_]),
      total_count_(other.total_count_),
      overflow_count_(other.overflow_count_),
      min_(other.min_),
      max_(other.max_),
      sum_(other.sum_),
      sum_of_squares_(other.sum_of_squares_) {
  std::memcpy(counts_.get(), other.counts_.get(), sizeof(int64_t) * counts_length_);
}

LatencyHistogram& LatencyHistogram::operator=(const LatencyHistogram& other) {
  if (this != &other) *this = LatencyHistogram(other);
  return *this;
}

int LatencyHistogram::BucketIndex(int64_t value) const {
  // The power of two at or above value, counted from the first bucket.
  int pow2_ceiling = 64 - __builtin_clzll(static_cast<uint64_t>(value) | kSubBucketMask);
  return pow2_ceiling - (kSubBucketHalfCountMagnitude + 1);
}

int LatencyHistogram::CountsIndex(int64_t value) const {
  int bucket = BucketIndex(value);
  int64_t sub_bucket = value >> bucket;
  return static_cast<int>(((static_cast<int64_t>(bucket) + 1) << kSubBucketHalfCountMagnitude) +
                          (sub_bucket - kSubBucketHalfCount));
}

int64_t LatencyHistogram::ValueFromIndex(int index) const {
  int bucket = (index >> kSubBucketHalfCountMagnitude) - 1;
  int64_t sub_bucket = (index & (kSubBucketHalfCount - 1)) + kSubBucketHalfCount;
  if (bucket < 0) {
    sub_bucket -= kSubBucketHalfCount;
    bucket = 0;
  }
  return sub_bucket << bucket;
}

int64_t LatencyHistogram::LowestEquivalentValue(int64_t value) const {
  return ValueFromIndex(CountsIndex(value));
}

int64_t LatencyHistogram::HighestEquivalentValue(int64_t value) const {
  int bucket = BucketIndex(value);
  int64_t sub_bucket = value >> bucket;
  int64_t range = sub_bucket >= kSubBucketCount ? (int64_t{1} << (bucket + 1)) : (int64_t{1} << bucket);
  return LowestEquivalentValue(value) + range - 1;
}

void LatencyHistogram::RecordN(int64_t value, int64_t count) {
  if (count <= 0) return;
  if (value < 0) value = 0;
  if (value > highest_trackable_) {
    value = highest_trackable_;
    overflow_count_ += count;
  }
  counts_[CountsIndex(value)] += count;
  total_count_ += count;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  unsigned __int128 v = static_cast<uint64_t>(value);
  sum_ += v * static_cast<uint64_t>(count);
  sum_of_squares_ += v * v * static_cast<uint64_t>(count);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  assert(other.counts_length_ == counts_length_);
  if (other.total_count_ == 0) return;
  for (int i = 0; i < counts_length_; ++i) counts_[i] += other.counts_[i];
  total_count_ += other.total_count_;
  overflow_count_ += other.overflow_count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
  sum_of_squares_ += other.sum_of_squares_;
}

void LatencyHistogram::Reset() {
  std::memset(counts_.get(), 0, sizeof(int64_t) * counts_length_);
  total_count_ = overflow_count_ = 0;
  min_ = INT64_MAX;
  max_ = 0;
  sum_ = sum_of_squares_ = 0;
}

double LatencyHistogram::mean() const {
  return total_count_ == 0 ? 0.0 : static_cast<double>(static_cast<long double>(sum_) / total_count_);
}

double LatencyHistogram::stddev() const {
  if (total_count_ == 0) return 0.0;
  long double mean = static_cast<long double>(sum_) / total_count_;
  long double variance = static_cast<long double>(sum_of_squares_) / total_count_ - mean * mean;
  return variance <= 0 ? 0.0 : static_cast<double>(std::sqrt(variance));
}

int64_t LatencyHistogram::ValueAtPercentile(double percentile) const {
  if (total_count_ == 0) return 0;
  if (percentile <= 0) return min_;
  if (percentile >= 100) return max_;
  // The rank of the value, 1-based, rounded as a sorted array would be indexed.
  int64_t rank = static_cast<int64_t>(std::ceil(percentile / 100.0 * total_count_));
  rank = std::clamp<int64_t>(rank, 1, total_count_);
  int64_t seen = 0;
  for (int i = 0; i < counts_length_; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      int64_t value = HighestEquivalentValue(ValueFromIndex(i));
      return std::clamp(value, min_, max_);
    }
  }
  return max_;
}

void LatencyHistogram::ForEachBucket(
    const std::function<void(int64_t lowest_value, int64_t count)>& visit) const {
  for (int i = 0; i < counts_length_; ++i) {
    if (counts_[i] != 0) visit(ValueFromIndex(i), counts_[i]);
  }
}

}  // namespace netbench
