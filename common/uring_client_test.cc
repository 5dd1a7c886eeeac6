// What only the client driver's uring model has (client_driver_test runs every other driver test
// on uring too): its provided buffer ring, run out by more connections receiving at once than it
// has buffers; one enter per ping-pong round trip; and the probe made to fail as a container
// runtime's seccomp profile makes it fail.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/client_driver.h"
#include "common/internal/server_models.h"
#include "common/server.h"
#include "gtest/gtest.h"
#include "testing/echo_back.h"
#include "testing/refuse_io_uring.h"

namespace netbench {
namespace {

// `rounds` bursts of `burst` bytes, each answered in full (byte for byte) before the next.
class BurstSession : public ClientSession {
 public:
  BurstSession(int slot, size_t burst, int rounds, std::atomic<uint64_t>& matched)
      : burst_(burst), rounds_(rounds), matched_(matched) {
    for (size_t i = 0; i < burst; ++i) data_.push_back(static_cast<char>('a' + (slot + i) % 26));
  }

  Output NextOutput() override {
    if (sent_.load(std::memory_order_relaxed) == rounds_) return {.sending_finished = true};
    if (awaiting_) return {};
    awaiting_ = true;
    sent_.fetch_add(1, std::memory_order_relaxed);
    return {.data = data_};
  }
  InputResult OnInput(absl::string_view input) override {
    uint64_t received = received_.load(std::memory_order_relaxed);
    for (char byte : input) {
      if (byte != data_[received % burst_]) {
        return {
            .consumed = input.size(), .error = "mismatch", .error_text = "a byte came back wrong"};
      }
      ++received;
    }
    received_.store(received, std::memory_order_relaxed);
    matched_.fetch_add(input.size(), std::memory_order_relaxed);
    if (received == sent_.load(std::memory_order_relaxed) * burst_) awaiting_ = false;
    return {.consumed = input.size(), .finished = IsFinished()};
  }
  std::string OnPeerClosed() override { return IsFinished() ? "" : "eof"; }
  bool IsFinished() const override {
    return received_.load(std::memory_order_relaxed) == rounds_ * burst_;
  }
  uint64_t messages_sent() const override { return sent_; }
  uint64_t messages_received() const override { return received_ / burst_; }

 private:
  const size_t burst_;
  const uint64_t rounds_;
  std::atomic<uint64_t>& matched_;
  std::string data_;
  // Counted on the runner's thread, read by the driver's (messages_sent, messages_received).
  std::atomic<uint64_t> sent_{0};
  std::atomic<uint64_t> received_{0};
  bool awaiting_ = false;
};

// Sixty-four connections each get 32 KiB echoed at once into a loop that lends the kernel two
// 16 KiB buffers: receives run out of buffers (ENOBUFS ends a multishot receive) and must be armed
// again, or the connections left without would never hear their answers. Every byte arrives, in
// order.
TEST(UringClientBufferRingTest, MoreConnectionsReceivingThanBuffersAllGetEveryByte) {
  if (!UringSupport().ok()) GTEST_SKIP() << UringSupport();
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start({.port = 0, .model = ServerModel::kEpoll, .threads = 2},
                    [] { return std::make_unique<EchoBack>(); });
  ASSERT_TRUE(server.ok()) << server.status();
  constexpr int kConnections = 64;
  constexpr size_t kBurst = 32 * 1024;
  constexpr int kRounds = 8;
  std::atomic<uint64_t> matched{0};
  ClientDriverOptions options;
  options.address = (*server)->address();
  options.connections = kConnections;
  options.model = ClientModel::kUring;
  options.uring_buffers = 2;
  ClientDriverResult result = RunClientDriver(options, [&](const SessionContext& context) {
    return std::make_unique<BurstSession>(context.slot, kBurst, kRounds, matched);
  });
  ASSERT_TRUE(result.ok()) << result.failure;
  std::printf("%d connections x %d rounds of %zu bytes, 2 buffers: %llu receives ran out\n",
              kConnections, kRounds, kBurst,
              static_cast<unsigned long long>(result.stats.receive_buffer_shortages));
  EXPECT_EQ(result.finished, kConnections);
  EXPECT_EQ(matched.load(), kConnections * kRounds * kBurst);
  EXPECT_EQ(result.total_received, static_cast<uint64_t>(kConnections * kRounds));
  EXPECT_GT(result.stats.system_calls, 0u);
}

// A ping-pong: the enter that submits a round's send also waits for its answer (one completion
// more than the pass's sends), so a round trip costs one system call, not two.
TEST(UringClientPassTest, APingPongRoundTripTakesOneEnter) {
  if (!UringSupport().ok()) GTEST_SKIP() << UringSupport();
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(
      {.port = 0, .model = ServerModel::kEpoll}, [] { return std::make_unique<EchoBack>(); });
  ASSERT_TRUE(server.ok()) << server.status();
  constexpr int kRounds = 2000;
  std::atomic<uint64_t> matched{0};
  ClientDriverOptions options;
  options.address = (*server)->address();
  options.model = ClientModel::kUring;
  ClientDriverResult result = RunClientDriver(options, [&](const SessionContext& context) {
    return std::make_unique<BurstSession>(context.slot, /*burst=*/8, kRounds, matched);
  });
  ASSERT_TRUE(result.ok()) << result.failure;
  EXPECT_EQ(matched.load(), 8u * kRounds);
  std::printf("%d round trips: %llu system calls\n", kRounds,
              static_cast<unsigned long long>(result.stats.system_calls));
  // Two per round trip if a send's own completion ended the wait; opening and closing add a few.
  EXPECT_GE(result.stats.system_calls, static_cast<uint64_t>(kRounds));
  EXPECT_LE(result.stats.system_calls, kRounds + kRounds / 10 + 20u);
}

TEST(UringClientBufferRingTest, ABufferCountThatIsNotAPowerOfTwoIsRefused) {
  if (!UringSupport().ok()) GTEST_SKIP() << UringSupport();
  ClientDriverOptions options;
  options.address = Resolve("127.0.0.1", 9)->front();
  options.model = ClientModel::kUring;
  options.uring_buffers = 3;
  std::atomic<uint64_t> matched{0};
  ClientDriverResult result = RunClientDriver(options, [&](const SessionContext& context) {
    return std::make_unique<BurstSession>(context.slot, 1, 1, matched);
  });
  EXPECT_EQ(result.failure, "uring_buffers must be a power of two from 1 to 32768, got 3");
}

// In a child (the filter stays with it): uring leaves the client models, a client's --model=uring
// is refused with the probe's words, and so is a driver run asked for it. The child reports what
// it found as one line on a pipe; the parent checks it.
TEST(UringClientProbeTest, ASeccompFilterThatRefusesIoUringIsNamedAndUringIsLeftOut) {
  if (!UringSupport().ok())
    GTEST_SKIP() << "io_uring must work here for this test to mean anything";
  const RefusedRun child = RunWithIoUringRefused([] {
    internal::ForgetUringSupport();  // what the parent found before the filter no longer holds
    const std::vector<ClientModel> models = AvailableClientModels();
    const bool listed =
        std::find(models.begin(), models.end(), ClientModel::kUring) != models.end();
    const absl::StatusOr<ClientModel> parsed = ParseClientModel("uring");
    ClientDriverOptions options;
    options.address = Resolve("127.0.0.1", 9)->front();
    options.model = ClientModel::kUring;
    std::atomic<uint64_t> matched{0};
    ClientDriverResult result = RunClientDriver(options, [&](const SessionContext& context) {
      return std::make_unique<BurstSession>(context.slot, 1, 1, matched);
    });
    return absl::StrCat(listed ? "listed" : "left out", "|", parsed.ok() ? "parsed" : "refused",
                        "|", result.ok() ? "ran" : "failed", "|", parsed.status().ToString(), "|",
                        result.failure);
  });
  const std::string& found = child.output;
  std::printf("child: %s\n", found.c_str());
  EXPECT_EQ(child.exit_status, 0) << found;
  EXPECT_TRUE(absl::StartsWith(found, "left out|refused|failed|FAILED_PRECONDITION")) << found;
  for (const char* words : kIoUringRefusedWords) {
    EXPECT_TRUE(absl::StrContains(found, words)) << found;
  }
}

}  // namespace
}  // namespace netbench
