// What only the uring model has: its probe, made to fail the way a container runtime's seccomp
// profile makes it fail; its provided buffer ring, run out by more connections bursting at
// once than it has buffers; its quiet sends (one enter per ping-pong round trip, and the cases
// they must not stall). (server_test runs every other server test on uring too.)
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/internal/server_models.h"
#include "common/internal/uring_probe.h"
#include "common/server.h"
#include "common/socket.h"
#include "gtest/gtest.h"
#include "testing/echo_back.h"
#include "testing/refuse_io_uring.h"
#include "testing/socket_io.h"

namespace netbench {
namespace {

// In a child (the filter stays with it): the probe names the cause, uring leaves the list of
// models, and a server asked for it refuses to start with the probe's words. The child reports
// what it found as one line on a pipe; the parent checks it.
TEST(UringProbeTest, ASeccompFilterThatRefusesIoUringIsNamedAndUringIsLeftOut) {
  ASSERT_TRUE(internal::ProbeUring().ok()) << "io_uring must work here for this test to mean "
                                              "anything: "
                                           << internal::ProbeUring();
  const RefusedRun child = RunWithIoUringRefused([] {
    internal::ForgetUringSupport();  // what the parent found before the filter no longer holds
    const absl::Status probe = internal::ProbeUring();
    const std::vector<ServerModel> models = AvailableServerModels();
    const bool listed =
        std::find(models.begin(), models.end(), ServerModel::kUring) != models.end();
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(
        {.port = 0, .model = ServerModel::kUring}, [] { return std::make_unique<EchoBack>(); });
    return absl::StrCat(probe.ok() ? "probe ok" : "probe failed", "|",
                        listed ? "listed" : "left out", "|", server.ok() ? "started" : "refused",
                        "|", server.ok() ? "" : server.status().ToString(), "|", probe.ToString());
  });
  const std::string& found = child.output;
  std::printf("child: %s\n", found.c_str());
  EXPECT_EQ(child.exit_status, 0) << found;
  EXPECT_TRUE(absl::StartsWith(found, "probe failed|left out|refused|")) << found;
  EXPECT_TRUE(absl::StrContains(found, "FAILED_PRECONDITION")) << found;
  for (const char* words : kIoUringRefusedWords) {
    EXPECT_TRUE(absl::StrContains(found, words)) << found;
  }
}

// Sixty-four connections burst 4 KiB each at once into a loop that lends the kernel two buffers:
// receives run out of buffers (ENOBUFS ends a multishot receive) and must be armed again, or the
// connections left without would never be answered. Every byte comes back, in order.
TEST(UringBufferRingTest, MoreConnectionsBurstingThanBuffersAreAllServed) {
  if (!UringSupport().ok()) GTEST_SKIP() << UringSupport();
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start({.port = 0, .model = ServerModel::kUring, .uring_buffers = 2},
                    [] { return std::make_unique<EchoBack>(); });
  ASSERT_TRUE(server.ok()) << server.status();
  constexpr int kConnections = 64;
  constexpr size_t kBurst = 4096;
  constexpr int kRounds = 8;
  std::vector<UniqueFd> clients;
  for (int i = 0; i < kConnections; ++i) {
    absl::StatusOr<UniqueFd> client = Connect((*server)->address());
    ASSERT_TRUE(client.ok()) << client.status();
    clients.push_back(*std::move(client));
  }
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::string> sent;
    for (int i = 0; i < kConnections; ++i) {
      sent.push_back(std::string(kBurst, static_cast<char>('a' + (i + round) % 26)));
      ASSERT_TRUE(WriteAll(clients[i].get(), sent.back())) << i;
    }
    for (int i = 0; i < kConnections; ++i) {
      ASSERT_EQ(ReadExactly(clients[i].get(), kBurst), sent[i]) << "connection " << i;
    }
  }
  const ServerStats stats = (*server)->stats();
  std::printf("%d connections x %d rounds of %zu bytes, 2 buffers: %llu receives ran out\n",
              kConnections, kRounds, kBurst,
              static_cast<unsigned long long>(stats.receive_buffer_shortages));
  // Counted before they were echoed, so all of them by now (a send is counted when its completion
  // is reaped, which may come after its bytes reached the client).
  EXPECT_EQ(stats.bytes_read, kConnections * kRounds * kBurst);
  EXPECT_TRUE((*server)->status().ok()) << (*server)->status();
}

// A reply the socket takes at once is a quiet send (uring_server.cc, UringWorker::QuietSend): it
// does not end the enter's wait, so a ping-pong round trip costs the server one enter, which sends
// the reply and waits for the next request. (It cost two when the send's completion ended the
// wait; epoll pays three.) The count is the server's own, of every system call it made.
TEST(UringQuietSendTest, APingPongRoundTripCostsOneEnter) {
  if (!UringSupport().ok()) GTEST_SKIP() << UringSupport();
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(
      {.port = 0, .model = ServerModel::kUring}, [] { return std::make_unique<EchoBack>(); });
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<UniqueFd> client = Connect((*server)->address());
  ASSERT_TRUE(client.ok()) << client.status();
  const std::string message(22, 'x');
  ASSERT_TRUE(WriteAll(client->get(), message));  // the connection is set up by the first
  ASSERT_EQ(ReadExactly(client->get(), message.size()), message);
  constexpr uint64_t kRoundTrips = 2000;
  const uint64_t before = (*server)->stats().system_calls;
  for (uint64_t i = 0; i < kRoundTrips; ++i) {
    ASSERT_TRUE(WriteAll(client->get(), message));
    ASSERT_EQ(ReadExactly(client->get(), message.size()), message) << i;
  }
  const uint64_t calls = (*server)->stats().system_calls - before;
  std::printf("%llu round trips: %llu server system calls\n",
              static_cast<unsigned long long>(kRoundTrips), static_cast<unsigned long long>(calls));
  // A request that arrives in two pieces costs an enter more; two per round trip would fail.
  EXPECT_LE(calls, kRoundTrips + kRoundTrips / 10);
  EXPECT_GE(calls, kRoundTrips);
}

// The cases where a quiet send would stall a connection if the rule that makes it quiet were
// wrong: a reply larger than the socket takes (the quiet send falls short; its completion must
// end the wait and the rest must go out while the peer only waits for it), and a reply followed
// by silence (the idle timer must still close the connection: the enter's wait is bounded by the
// next timer whatever the sends).
TEST(UringQuietSendTest, AReplyLargerThanTheSocketTakesGoesOutWhole) {
  if (!UringSupport().ok()) GTEST_SKIP() << UringSupport();
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start({.port = 0,
                     .model = ServerModel::kUring,
                     .max_pending_output = 64 << 20,
                     .max_pending_input = 64 << 20},
                    [] { return std::make_unique<EchoBack>(); });
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<UniqueFd> client = Connect((*server)->address());
  ASSERT_TRUE(client.ok()) << client.status();
  for (int round = 0; round < 3; ++round) {
    // Written whole before a byte is read back: the server's replies outgrow the socket's buffers.
    const std::string burst(8 << 20, static_cast<char>('a' + round));
    ASSERT_TRUE(WriteAll(client->get(), burst));
    ASSERT_EQ(ReadExactly(client->get(), burst.size()), burst) << "round " << round;
    // Then a small round trip: the connection went back to quiet sends and still answers.
    ASSERT_TRUE(WriteAll(client->get(), "ping"));
    ASSERT_EQ(ReadExactly(client->get(), 4), "ping") << "round " << round;
  }
  EXPECT_TRUE((*server)->status().ok()) << (*server)->status();
}

TEST(UringQuietSendTest, TheIdleTimerClosesAConnectionSilentAfterItsReply) {
  if (!UringSupport().ok()) GTEST_SKIP() << UringSupport();
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start({.port = 0, .model = ServerModel::kUring, .idle_timeout_nanos = 200'000'000},
                    [] { return std::make_unique<EchoBack>(); });
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<UniqueFd> client = Connect((*server)->address());
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE(WriteAll(client->get(), "hello"));
  ASSERT_EQ(ReadExactly(client->get(), 5), "hello");
  EXPECT_TRUE(ServerCloses(client->get()));
  EXPECT_EQ((*server)->stats().connections_timed_out, 1u);
}

}  // namespace
}  // namespace netbench
