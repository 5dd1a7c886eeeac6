#include "common/cpu_time.h"

#include <unistd.h>

#include "common/platform.h"
#include "gtest/gtest.h"

namespace netbench {
namespace {

TEST(CpuTimeTest, ParsesProcStatEvenWithSpacesAndParensInTheName) {
  const char* line =
      "1234 (my (odd) prog) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 1 0 100 1000 10";
  absl::StatusOr<CpuTimes> times = ParseProcStat(line, 100);
  ASSERT_TRUE(times.ok()) << times.status();
  EXPECT_EQ(times->user_nanos, 2500000000);
  EXPECT_EQ(times->system_nanos, 750000000);
  EXPECT_EQ(times->total_nanos(), 3250000000);
}

TEST(CpuTimeTest, RejectsMalformedLines) {
  EXPECT_FALSE(ParseProcStat("garbage", 100).ok());
  EXPECT_FALSE(ParseProcStat("1 (x) S 1 2", 100).ok());
}

TEST(CpuTimeTest, SelfTimeGrowsWithWork) {
  CpuTimes before = SelfCpuTimes();
  volatile uint64_t sink = 0;
  // Burn CPU until getrusage shows it: bounded by count, not time.
  for (uint64_t i = 0; i < 4000000000ull && SelfCpuTimes().total_nanos() == before.total_nanos();
       ++i) {
    sink = sink + i;
  }
  EXPECT_GT(SelfCpuTimes().total_nanos(), before.total_nanos());
}

TEST(CpuTimeTest, ReadsThisProcess) {
  absl::StatusOr<CpuTimes> times = CpuTimesOfProcess(getpid());
  ASSERT_TRUE(times.ok()) << times.status();
  EXPECT_GE(times->total_nanos(), 0);
  EXPECT_FALSE(CpuTimesOfProcess(-1).ok());
}

TEST(CpuTimeTest, ReadsAnotherProcessWhereThereIsProc) {
  absl::StatusOr<CpuTimes> parent = CpuTimesOfProcess(getppid());
  if (NETBENCH_LINUX) {
    EXPECT_TRUE(parent.ok()) << parent.status();
  } else {
    EXPECT_TRUE(absl::IsUnimplemented(parent.status())) << parent.status();
  }
}

}  // namespace
}  // namespace netbench
