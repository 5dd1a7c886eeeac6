#include "common/process_tree_cpu.h"

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "common/platform.h"
#include "gtest/gtest.h"

namespace netbench {
namespace {

TEST(DescendantsTest, FollowsParentsDownTheTree) {
  const std::vector<std::pair<pid_t, pid_t>> parents = {{2, 1}, {3, 2}, {4, 1}, {5, 9}};
  std::vector<pid_t> found = Descendants(2, parents);
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, (std::vector<pid_t>{2, 3}));
  EXPECT_EQ(Descendants(7, parents), std::vector<pid_t>{7});
}

int64_t ThreadCpuNanos() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

TEST(ReadProcessTreeTest, CountsThreadsThatExited) {
  if (!ListProcessParents().ok()) GTEST_SKIP() << "this system does not list the process tree";
  int64_t spun = 0;
  std::thread spinner([&spun] {
    const int64_t start = ThreadCpuNanos();
    while (ThreadCpuNanos() - start < 50'000'000) {
    }
    spun = ThreadCpuNanos() - start;
  });
  spinner.join();
  absl::StatusOr<ProcessTree> tree = ReadProcessTree(getpid());
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_GE(tree->cpu_nanos, spun);
  EXPECT_GE(tree->processes, 1);
  EXPECT_GE(tree->threads, 1);
  EXPECT_GE(tree->cpus, 1);
}

TEST(ReadProcessTreeTest, AProcessThatHasGoneIsNotFound) {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  EXPECT_TRUE(absl::IsNotFound(ReadProcessTree(child).status()));
}

}  // namespace
}  // namespace netbench
