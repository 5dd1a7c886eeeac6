#include "common/histogram.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace netbench {
namespace {

// The value a sorted array gives for `percentile`, ranked as the histogram ranks (ceil, 1-based).
int64_t ReferencePercentile(const std::vector<int64_t>& sorted, double percentile) {
  if (percentile <= 0) return sorted.front();
  if (percentile >= 100) return sorted.back();
  size_t rank = static_cast<size_t>(std::ceil(percentile / 100.0 * sorted.size()));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

std::vector<int64_t> LogNormalNanos(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> dist(std::log(50e3), 1.5);  // ~50 us median, long tail
  std::vector<int64_t> values(n);
  for (int64_t& v : values) v = static_cast<int64_t>(dist(rng));
  return values;
}

TEST(LatencyHistogramTest, PercentilesMatchSortedReferenceWithinPrecision) {
  std::vector<int64_t> values = LogNormalNanos(200000, 42);
  LatencyHistogram h;
  for (int64_t v : values) h.Record(v);
  std::sort(values.begin(), values.end());
  for (double p : {0.0, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    int64_t expected = ReferencePercentile(values, p);
    int64_t actual = h.ValueAtPercentile(p);
    // The reported value is the top of the reference value's bucket: never below it, and above it by no
    // more than one part in 1000 (3 significant digits).
    EXPECT_GE(actual, expected) << "p" << p;
    EXPECT_LE(actual - expected, std::max<int64_t>(1, expected / 1000)) << "p" << p;
  }
  EXPECT_EQ(h.count(), 200000);
  EXPECT_EQ(h.min(), values.front());
  EXPECT_EQ(h.max(), values.back());
}

TEST(LatencyHistogramTest, MeanAndStddevAreExact) {
  LatencyHistogram h;
  for (int64_t v : {2, 4, 4, 4, 5, 5, 7, 9}) h.Record(v * 1000000);
  EXPECT_DOUBLE_EQ(h.mean(), 5e6);
  EXPECT_DOUBLE_EQ(h.stddev(), 2e6);  // population standard deviation
}

TEST(LatencyHistogramTest, SmallValuesAreExact) {
  LatencyHistogram h;
  for (int64_t v = 0; v < 2048; ++v) {
    EXPECT_EQ(h.LowestEquivalentValue(v), v);
    EXPECT_EQ(h.HighestEquivalentValue(v), v);
  }
}

TEST(LatencyHistogramTest, BucketsKeepThreeSignificantDigits) {
  LatencyHistogram h;
  for (int64_t v : {int64_t{2048}, int64_t{123456}, int64_t{987654321}, int64_t{3599} * kNanosPerSecond}) {
    int64_t low = h.LowestEquivalentValue(v);
    int64_t high = h.HighestEquivalentValue(v);
    EXPECT_LE(low, v);
    EXPECT_GE(high, v);
    EXPECT_LE(static_cast<double>(high - low + 1) / v, 1.0 / 1000) << v;
  }
}

TEST(LatencyHistogramTest, MergeEqualsRecordingEverythingInOne) {
  std::vector<int64_t> a = LogNormalNanos(50000, 1);
  std::vector<int64_t> b = LogNormalNanos(70000, 2);
  LatencyHistogram ha, hb, all;
  for (int64_t v : a) ha.Record(v), all.Record(v);
  for (int64_t v : b) hb.Record(v), all.Record(v);
  ha.Merge(hb);
  EXPECT_EQ(ha.count(), all.count());
  EXPECT_EQ(ha.min(), all.min());
  EXPECT_EQ(ha.max(), all.max());
  EXPECT_NEAR(ha.mean(), all.mean(), 1e-6 * all.mean());
  EXPECT_NEAR(ha.stddev(), all.stddev(), 1e-6 * all.stddev());
  for (double p = 0; p <= 100; p += 0.5) EXPECT_EQ(ha.ValueAtPercentile(p), all.ValueAtPercentile(p)) << p;
  std::vector<std::pair<int64_t, int64_t>> merged, single;
  ha.ForEachBucket([&](int64_t v, int64_t c) { merged.emplace_back(v, c); });
  all.ForEachBucket([&](int64_t v, int64_t c) { single.emplace_back(v, c); });
  EXPECT_EQ(merged, single);
}

TEST(LatencyHistogramTest, BucketsReplayIntoAnIdenticalHistogram) {
  std::vector<int64_t> values = LogNormalNanos(10000, 3);
  LatencyHistogram original, replayed;
  for (int64_t v : values) original.Record(v);
  original.ForEachBucket([&](int64_t v, int64_t c) { replayed.RecordN(v, c); });
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    EXPECT_EQ(replayed.ValueAtPercentile(p), original.ValueAtPercentile(p));
  }
}

TEST(LatencyHistogramTest, OverflowIsClampedAndCounted) {
  LatencyHistogram h(/*highest_trackable=*/kNanosPerSecond);
  h.Record(10);
  h.Record(5 * kNanosPerSecond);
  h.Record(INT64_MAX);
  EXPECT_EQ(h.count(), 3);
  EXPECT_EQ(h.overflow_count(), 2);
  EXPECT_EQ(h.max(), kNanosPerSecond);
  EXPECT_EQ(h.ValueAtPercentile(100), kNanosPerSecond);
}

TEST(LatencyHistogramTest, NegativeValuesCountAsZero) {
  LatencyHistogram h;
  h.Record(-5);
  EXPECT_EQ(h.count(), 1);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
}

TEST(LatencyHistogramTest, EmptyHistogramReportsZeros) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0);
  EXPECT_EQ(h.stddev(), 0);
}

TEST(LatencyHistogramTest, ResetAndCopyAreIndependent) {
  LatencyHistogram h;
  h.RecordN(1000, 5);
  LatencyHistogram copy = h;
  h.Reset();
  EXPECT_EQ(h.count(), 0);
  EXPECT_EQ(copy.count(), 5);
  EXPECT_EQ(copy.ValueAtPercentile(50), 1000);
}

}  // namespace
}  // namespace netbench
