// Both forms of platform.h: the default build tests Linux's, --config=libcxx the POSIX fallback.
#include "common/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "common/clock.h"
#include "common/unique_fd.h"
#include "gtest/gtest.h"

namespace netbench {
namespace {

bool CloseOnExec(int fd) { return (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0; }
bool NonBlocking(int fd) { return (fcntl(fd, F_GETFL) & O_NONBLOCK) != 0; }

// A non-blocking listener on 127.0.0.1 and its port.
UniqueFd ListenOnLoopback(int* port) {
  UniqueFd fd(OpenStreamSocket(AF_INET, /*non_blocking=*/true));
  EXPECT_TRUE(fd.valid()) << strerror(errno);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  EXPECT_EQ(bind(fd.get(), reinterpret_cast<sockaddr*>(&address), length), 0) << strerror(errno);
  EXPECT_EQ(listen(fd.get(), 16), 0) << strerror(errno);
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length);
  *port = ntohs(address.sin_port);
  return fd;
}

UniqueFd ConnectTo(int port) {
  UniqueFd fd(OpenStreamSocket(AF_INET, /*non_blocking=*/false));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  EXPECT_EQ(connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0)
      << strerror(errno);
  return fd;
}

TEST(PlatformTest, NamesWhichFormItBuilt) {
  EXPECT_EQ(std::string(kPlatformName), NETBENCH_LINUX ? "linux" : "posix");
  EXPECT_EQ(kHasEpoll, NETBENCH_LINUX == 1);
  EXPECT_EQ(RequestPreciseWakeups(), NETBENCH_LINUX == 1);
}

TEST(PlatformTest, SocketsAreCloseOnExecAndBlockingAsAsked) {
  for (bool non_blocking : {false, true}) {
    UniqueFd fd(OpenStreamSocket(AF_INET, non_blocking));
    ASSERT_TRUE(fd.valid()) << strerror(errno);
    EXPECT_TRUE(CloseOnExec(fd.get()));
    EXPECT_EQ(NonBlocking(fd.get()), non_blocking);
  }
}

// The listener is non-blocking: BSD's accept() would hand that on, so a blocking accept must clear
// it.
TEST(PlatformTest, AcceptedSocketsAreCloseOnExecAndBlockingAsAsked) {
  int port = 0;
  UniqueFd listener = ListenOnLoopback(&port);
  for (bool non_blocking : {false, true}) {
    UniqueFd client = ConnectTo(port);
    UniqueFd accepted(AcceptConnection(listener.get(), non_blocking));
    ASSERT_TRUE(accepted.valid()) << strerror(errno);
    EXPECT_TRUE(CloseOnExec(accepted.get()));
    EXPECT_EQ(NonBlocking(accepted.get()), non_blocking);
  }
  EXPECT_EQ(AcceptConnection(listener.get(), true), -1);
  EXPECT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK) << strerror(errno);
}

TEST(PlatformTest, PipesAreCloseOnExecAndBlockingAsAsked) {
  for (bool non_blocking : {false, true}) {
    int fds[2];
    ASSERT_EQ(OpenPipe(fds, non_blocking), 0) << strerror(errno);
    UniqueFd read_end(fds[0]), write_end(fds[1]);
    for (int fd : fds) {
      EXPECT_TRUE(CloseOnExec(fd));
      EXPECT_EQ(NonBlocking(fd), non_blocking);
    }
    ASSERT_EQ(write(write_end.get(), "x", 1), 1);
    char byte = 0;
    EXPECT_EQ(read(read_end.get(), &byte, 1), 1);
    EXPECT_EQ(byte, 'x');
  }
}

// SIGPIPE's default action would end this test process. A send after shutdown(SHUT_WR) fails with
// EPIPE (and SIGPIPE) at once, on a socket pair as on TCP.
TEST(PlatformTest, SendingOnAShutSocketGivesEpipeNotSigpipe) {
  int port = 0;
  UniqueFd listener = ListenOnLoopback(&port);
  UniqueFd client = ConnectTo(port);
  ASSERT_EQ(shutdown(client.get(), SHUT_WR), 0);
  EXPECT_EQ(SendNoSignal(client.get(), "hello", 5), -1);
  EXPECT_EQ(errno, EPIPE) << strerror(errno);

  // A socket not opened through platform.h, and sendmsg.
  int pair[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  UniqueFd a(pair[0]), b(pair[1]);
  ASSERT_EQ(shutdown(a.get(), SHUT_WR), 0);
  msghdr message{};
  iovec part{const_cast<char*>("again"), 5};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  EXPECT_EQ(SendMessageNoSignal(a.get(), &message), -1);
  EXPECT_EQ(errno, EPIPE) << strerror(errno);
}

TEST(PlatformTest, SleepsUntilTheDeadline) {
  const int64_t deadline = MonotonicNanos() + 20 * kNanosPerMilli;
  SleepUntilMonotonic(deadline);
  EXPECT_GE(MonotonicNanos(), deadline);
  SleepUntilMonotonic(MonotonicNanos() - kNanosPerSecond);  // in the past: returns at once
}

TEST(PlatformTest, CountsCpus) {
  EXPECT_GE(OnlineCpuCount(), 1);
  EXPECT_GE(AvailableCpuCount(), 1);
  EXPECT_LE(AvailableCpuCount(), OnlineCpuCount());
}

TEST(PlatformTest, ReadsNetworkLimitsWhereTheSystemSays) {
  NetworkLimits limits = ReadNetworkLimits();
  if (NETBENCH_LINUX) {
    EXPECT_GT(limits.ephemeral_port_low, 0);
    EXPECT_GT(limits.max_listen_backlog, 0);
  }
  if (limits.ephemeral_port_low != -1) {
    EXPECT_LE(limits.ephemeral_port_low, limits.ephemeral_port_high);
    EXPECT_STRNE(limits.ephemeral_ports_setting, "");
  }
  if (limits.max_listen_backlog != -1) {
    EXPECT_STRNE(limits.max_listen_backlog_setting, "");
  }
}

TEST(PlatformTest, ReadsProcessStatisticsOnlyWithProc) {
  absl::StatusOr<std::string> line = ReadProcessStatLine(getpid());
  if (NETBENCH_LINUX) {
    ASSERT_TRUE(line.ok()) << line.status();
    EXPECT_EQ(line->substr(0, line->find(' ')), std::to_string(getpid()));
  } else {
    EXPECT_TRUE(absl::IsUnimplemented(line.status())) << line.status();
  }
}

TEST(PlatformTest, ResidentMemoryGrowsWithTouchedPages) {
  const uint64_t before = ResidentMemoryBytes();
  ASSERT_GT(before, 0u);
  // 64 MiB written page by page: resident whatever the allocator, until freed.
  std::vector<char> touched(64 << 20);
  volatile char* pages = touched.data();  // volatile: the stores must happen
  for (size_t i = 0; i < touched.size(); i += 4096) pages[i] = 1;
  EXPECT_GE(ResidentMemoryBytes(), before + (32u << 20));
  EXPECT_EQ(pages[touched.size() - 4096], 1);
}

}  // namespace
}  // namespace netbench
