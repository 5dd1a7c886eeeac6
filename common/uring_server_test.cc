// What only the uring model has: its probe, made to fail the way a container runtime's seccomp
// profile makes it fail, and its provided buffer ring, run out by more connections bursting at
// once than it has buffers. (server_test runs every other server test on uring too.)
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

}  // namespace
}  // namespace netbench
