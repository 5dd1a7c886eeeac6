// The client driver against real sockets on every model: the start latch, one deadline over every
// phase (connect, TLS, opening, load), per-thread histograms merged, and a connection that fails in
// the middle of a run while the others finish.
#include "common/client_driver.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/connection_handler.h"
#include "common/self_signed_certificate.h"
#include "common/server.h"
#include "common/socket.h"
#include "common/tls.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/black_hole.h"

namespace netbench {
namespace {

using ::testing::HasSubstr;

// Echoes; a "!" closes the connection at once (a server that gives up on one client).
class EchoOrHangUp : public ConnectionHandler {
 public:
  HandlerResult OnData(absl::string_view input, ByteBuffer& output) override {
    if (input.find('!') != absl::string_view::npos)
      return {.consumed = input.size(), .close = true};
    output.Append(input);
    return {.consumed = input.size()};
  }
};

struct Shared {
  std::atomic<int> opened{0};
  std::atomic<int> started{0};
  std::vector<int> opened_at_start;  // written by each session at OnStart, one slot each
};

// Ping-pong: `rounds` 4-byte messages, each answered before the next; an optional "hi" opening
// answered by the echo server; connection `hang_up` sends "!" in the middle instead.
class PingSession : public ClientSession {
 public:
  PingSession(const SessionContext& context, Shared& shared, int rounds, bool opening, int hang_up)
      : context_(context),
        shared_(shared),
        rounds_(rounds),
        opening_(opening),
        hang_up_(context.connection == hang_up),
        rtt_(context.stats->latency["rtt"]) {}

  std::string OpeningRequest() override { return opening_ ? "hi" : ""; }
  OpeningResult OnOpeningData(absl::string_view input) override {
    OpeningResult result;
    if (input.size() < 2) return result;
    result.consumed = 2;
    result.open = true;
    ++shared_.opened;
    return result;
  }
  void OnStart(int /*fd*/) override {
    shared_.opened_at_start[context_.connection] = shared_.opened.load();
  }
  Output NextOutput() override {
    if (waiting_) return {};
    if (sent_ == rounds_) return {.sending_finished = true};
    if (hang_up_ && sent_ == rounds_ / 2) {
      waiting_ = true;
      return {.data = "!!!!"};
    }
    ++sent_;
    waiting_ = true;
    sent_at_ = MonotonicNanos();
    return {.data = "ping"};
  }
  InputResult OnInput(absl::string_view input) override {
    if (input.size() < 4) return {};
    ++received_;
    waiting_ = false;
    rtt_.Record(MonotonicNanos() - sent_at_);
    return {.consumed = 4, .finished = IsFinished()};
  }
  std::string OnPeerClosed() override { return IsFinished() ? "" : "eof"; }
  bool IsFinished() const override { return received_ == rounds_; }
  uint64_t messages_sent() const override { return sent_; }
  uint64_t messages_received() const override { return received_; }

 private:
  SessionContext context_;
  Shared& shared_;
  const int rounds_;
  const bool opening_;
  const bool hang_up_;
  LatencyHistogram& rtt_;
  std::atomic<int> sent_{0};
  std::atomic<int> received_{0};
  bool waiting_ = false;
  int64_t sent_at_ = 0;
};

struct Case {
  ClientModel model;
  int threads;
};

class ClientDriverTest : public ::testing::TestWithParam<Case> {
 protected:
  ClientDriverOptions Options(int port, int connections) {
    ClientDriverOptions options;
    options.address = Resolve("127.0.0.1", port)->front();
    options.connections = connections;
    options.model = GetParam().model;
    options.threads = GetParam().threads;
    options.timeout_nanos = 20 * kNanosPerSecond;
    return options;
  }

  ClientDriverResult Run(const ClientDriverOptions& options, int rounds, bool opening,
                         int hang_up = -1) {
    shared_.opened_at_start.assign(options.connections, -1);
    return RunClientDriver(options, [&](const SessionContext& context) {
      return std::make_unique<PingSession>(context, shared_, rounds, opening, hang_up);
    });
  }

  std::unique_ptr<Server> StartEchoServer() {
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(
        {.model = DefaultServerModel()}, [] { return std::make_unique<EchoOrHangUp>(); });
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }

  Shared shared_;
};

TEST_P(ClientDriverTest, EveryConnectionIsOpenBeforeAnyLoadStarts) {
  std::unique_ptr<Server> server = StartEchoServer();
  ClientDriverResult result = Run(Options(server->port(), 8), /*rounds=*/10, /*opening=*/true);
  ASSERT_TRUE(result.ok()) << result.failure;
  for (int opened : shared_.opened_at_start) EXPECT_EQ(opened, 8);
  EXPECT_EQ(result.finished, 8);
  EXPECT_EQ(result.total_sent, 80u);
  EXPECT_EQ(result.total_received, 80u);
}

TEST_P(ClientDriverTest, HistogramsOfEveryThreadAreMerged) {
  std::unique_ptr<Server> server = StartEchoServer();
  ClientDriverResult result = Run(Options(server->port(), 5), /*rounds=*/200, /*opening=*/false);
  ASSERT_TRUE(result.ok()) << result.failure;
  EXPECT_EQ(result.stats.latency.at("rtt").count(), 1000);
  EXPECT_EQ(result.sent, 1000u);  // no warmup: the measured phase is the whole run
}

TEST_P(ClientDriverTest, AConnectionThatFailsMidRunFailsAloneAndIsCountedByCause) {
  std::unique_ptr<Server> server = StartEchoServer();
  ClientDriverResult result =
      Run(Options(server->port(), 3), /*rounds=*/100, /*opening=*/false, /*hang_up=*/1);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.failed, 1);
  EXPECT_EQ(result.finished, 2);
  EXPECT_EQ(result.stats.errors["eof"], 1);
  EXPECT_EQ(result.total_received, 250u);  // 100 + 50 + 100
  EXPECT_THAT(result.failure, HasSubstr("1 of 3 connections failed"));
}

TEST_P(ClientDriverTest, TheDeadlineCoversConnecting) {
  SynDroppingListener drop;
  ClientDriverOptions options = Options(drop.port(), 3);
  options.timeout_nanos = 300 * kNanosPerMilli;
  ClientDriverResult result = Run(options, 10, false);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.timeout_phase, "connect");
  EXPECT_EQ(result.reached[static_cast<int>(ConnectionPhase::kOpen)], 0);
  EXPECT_THAT(result.failure, HasSubstr("0 of 3 open (3 still connecting)"));
  EXPECT_EQ(result.stats.errors["timeout"], 3);
}

TEST_P(ClientDriverTest, TheDeadlineCoversTheOpening) {
  SilentListener silent;
  ClientDriverOptions options = Options(silent.port(), 3);
  options.timeout_nanos = 300 * kNanosPerMilli;
  ClientDriverResult result = Run(options, 10, /*opening=*/true);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.timeout_phase, "opening");
  EXPECT_THAT(result.failure, HasSubstr("3 still opening"));
}

TEST_P(ClientDriverTest, TheDeadlineCoversTheTlsHandshake) {
  SilentListener silent;
  absl::StatusOr<std::unique_ptr<TlsClientContext>> tls =
      TlsClientContext::Create({.insecure = true});
  ASSERT_TRUE(tls.ok()) << tls.status();
  ClientDriverOptions options = Options(silent.port(), 2);
  options.tls = tls->get();
  options.server_name = "127.0.0.1";
  options.timeout_nanos = 300 * kNanosPerMilli;
  ClientDriverResult result = Run(options, 10, false);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.timeout_phase, "tls");
  EXPECT_THAT(result.failure, HasSubstr("2 still in the TLS handshake"));
}

TEST_P(ClientDriverTest, TheDeadlineCoversTheLoad) {
  SilentListener silent;  // connections open (no opening), and no answer ever comes
  ClientDriverOptions options = Options(silent.port(), 2);
  options.timeout_nanos = 300 * kNanosPerMilli;
  ClientDriverResult result = Run(options, 10, false);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.timeout_phase, "load");
  EXPECT_EQ(result.reached[static_cast<int>(ConnectionPhase::kOpen)], 2);
  EXPECT_EQ(result.finished, 0);
  EXPECT_EQ(result.stats.errors["timeout"], 2);
}

TEST_P(ClientDriverTest, ARefusedConnectionStopsTheRunBeforeItStarts) {
  int port;
  {
    absl::StatusOr<Listener> listener = Listen({.port = 0});
    ASSERT_TRUE(listener.ok());
    port = listener->port;
  }
  ClientDriverResult result = Run(Options(port, 3), 10, false);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.stats.errors["connect.ECONNREFUSED"], 3);
  EXPECT_EQ(result.total_sent, 0u);
  EXPECT_THAT(result.failure, HasSubstr("3 of 3 connections"));
}

// Each model built here; event loops run two threads, so that statistics of several are merged.
std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (ClientModel model : AvailableServerModels()) {
    cases.push_back({model, model == ClientModel::kThreads ? 1 : 2});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Models, ClientDriverTest, ::testing::ValuesIn(Cases()),
                         [](const auto& info) {
                           return std::string(ServerModelName(info.param.model));
                         });

}  // namespace
}  // namespace netbench
