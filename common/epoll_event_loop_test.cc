// The epoll backend's own failure: Linux only, so it is built only where epoll is (if_epoll) and
// may name epoll and /proc (//:portability_test allows this file, as it does the backend).
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "common/event_loop.h"
#include "common/unique_fd.h"
#include "gtest/gtest.h"

namespace netbench {
namespace {

// The fds of this process that are epoll instances.
std::set<int> EpollFds() {
  std::set<int> fds;
  for (int fd = 0; fd < 1024; ++fd) {
    char target[64] = {};
    std::string link = "/proc/self/fd/" + std::to_string(fd);
    ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
    if (n > 0 && std::string(target, n) == "anon_inode:[eventpoll]") fds.insert(fd);
  }
  return fds;
}

// epoll_wait(2) fails with EINVAL when its fd is not an epoll instance: put a pipe in the place of
// the loop's epoll fd, and every wait fails.
TEST(EventLoopErrorTest, EpollWaitFailureIsReturnedByRunOnceAndRun) {
  std::set<int> before = EpollFds();
  absl::StatusOr<std::unique_ptr<EventLoop>> loop = EventLoop::Create(EventLoopBackend::kEpoll);
  ASSERT_TRUE(loop.ok()) << loop.status();
  int epoll_fd = -1;
  for (int fd : EpollFds()) {
    if (before.count(fd) == 0) epoll_fd = fd;
  }
  ASSERT_GE(epoll_fd, 0) << "the loop's epoll fd was not found in /proc/self/fd";
  int pair[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  UniqueFd other_end(pair[1]);
  ASSERT_EQ(dup2(pair[0], epoll_fd), epoll_fd);  // the loop closes it when it goes
  close(pair[0]);

  absl::StatusOr<int> once = (*loop)->RunOnce(0);
  ASSERT_FALSE(once.ok());
  EXPECT_EQ(once.status().code(), absl::StatusCode::kInvalidArgument) << once.status();
  EXPECT_TRUE(absl::StrContains(once.status().message(), "epoll_wait")) << once.status();
  EXPECT_EQ((*loop)->Run(), once.status());  // no Stop(): returns only because the wait fails
}

}  // namespace
}  // namespace netbench
