#include "common/sample_summary.h"

#include <cmath>

#include "gtest/gtest.h"

namespace netbench {
namespace {

TEST(SampleSummaryTest, KnownValues) {
  SampleSummary s = Summarize({4, 1, 3, 2, 5});
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.5));
  double half = 2.776 * std::sqrt(2.5) / std::sqrt(5.0);
  EXPECT_NEAR(s.ci95_low, 3 - half, 1e-12);
  EXPECT_NEAR(s.ci95_high, 3 + half, 1e-12);
}

TEST(SampleSummaryTest, EvenCountMedianIsMidpoint) {
  EXPECT_DOUBLE_EQ(Summarize({10, 1, 4, 2}).median, 3);
}

TEST(SampleSummaryTest, SingleAndEmpty) {
  SampleSummary one = Summarize({7});
  EXPECT_EQ(one.count, 1u);
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.stddev, 0);
  EXPECT_DOUBLE_EQ(one.ci95_low, 7);
  EXPECT_DOUBLE_EQ(one.ci95_high, 7);
  SampleSummary none = Summarize({});
  EXPECT_EQ(none.count, 0u);
}

TEST(SampleSummaryTest, StudentTTable) {
  EXPECT_DOUBLE_EQ(StudentT95(1), 12.706);
  EXPECT_DOUBLE_EQ(StudentT95(9), 2.262);
  EXPECT_DOUBLE_EQ(StudentT95(1000), 1.960);
  EXPECT_TRUE(std::isinf(StudentT95(0)));
}

}  // namespace
}  // namespace netbench
