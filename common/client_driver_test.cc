// The client driver against real sockets on every model: the start latch, one deadline over every
// phase (connect, TLS, opening, load), per-thread histograms merged, and a connection that fails in
// the middle of a run while the others finish. Then what a fan-out needs: no latch, slots whose
// sessions are replaced, a connection pool kept across runs (and a session restarted when its kept
// connection was dead), the set-up times a session sees, and per-session deadlines.
#include "common/client_driver.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
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

// Echoes once, then closes: a server that does not keep connections alive, though it never says so.
class EchoThenClose : public ConnectionHandler {
 public:
  HandlerResult OnData(absl::string_view input, ByteBuffer& output) override {
    output.Append(input);
    return {.consumed = input.size(), .close = true};
  }
};

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
// answered by the echo server; connection `hang_up` sends "!" in the middle instead, and connection
// `refuse` finds the opening's answer unacceptable.
class PingSession : public ClientSession {
 public:
  PingSession(const SessionContext& context, Shared& shared, int rounds, bool opening, int hang_up,
              int refuse)
      : context_(context),
        shared_(shared),
        rounds_(rounds),
        opening_(opening),
        hang_up_(context.slot == hang_up),
        refuse_(context.slot == refuse),
        rtt_(context.stats->latency["rtt"]) {}

  std::string OpeningRequest() override { return opening_ ? "hi" : ""; }
  OpeningResult OnOpeningData(absl::string_view input) override {
    OpeningResult result;
    if (input.size() < 2) return result;
    if (refuse_) {
      result.error = "the server said hi";
      return result;
    }
    result.consumed = 2;
    result.open = true;
    ++shared_.opened;
    return result;
  }
  void OnStart(const ConnectionInfo& /*connection*/) override {
    shared_.opened_at_start[context_.slot] = shared_.opened.load();
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
  const bool refuse_;
  LatencyHistogram& rtt_;
  std::atomic<int> sent_{0};
  std::atomic<int> received_{0};
  bool waiting_ = false;
  int64_t sent_at_ = 0;
};

// Ping-pong until the driver raises stop_sending: a timed run's session, for warmup and duration.
class PingUntilStopped : public ClientSession {
 public:
  explicit PingUntilStopped(const SessionContext& context) : signals_(*context.signals) {}

  Output NextOutput() override {
    if (waiting_) return {};
    if (signals_.stop_sending.load(std::memory_order_relaxed)) {
      stopped_ = true;
      return {.sending_finished = true};
    }
    ++sent_;
    waiting_ = true;
    return {.data = "ping"};
  }
  InputResult OnInput(absl::string_view input) override {
    if (input.size() < 4) return {};
    ++received_;
    waiting_ = false;
    return {.consumed = 4};
  }
  std::string OnPeerClosed() override { return IsFinished() ? "" : "eof"; }
  bool IsFinished() const override { return stopped_ && !waiting_; }
  uint64_t messages_sent() const override { return sent_; }
  uint64_t messages_received() const override { return received_; }

 private:
  const RunSignals& signals_;
  std::atomic<uint64_t> sent_{0};
  std::atomic<uint64_t> received_{0};
  bool waiting_ = false;
  bool stopped_ = false;
};

// What OneRoundSessions were told, from every thread.
struct SessionLog {
  std::mutex mutex;
  std::vector<int64_t> sequences;
  std::vector<int> slots;
  std::vector<ConnectionInfo> starts;
  std::vector<bool> tls_at_start;
  std::map<std::string, int> ends;  // by cause; "" for finished
  int restarts = 0;
};

// One "ping" and its echo; its connection may be kept; a GET-like request, safe to send twice.
class OneRoundSession : public ClientSession {
 public:
  OneRoundSession(const SessionContext& context, SessionLog& log) : log_(log) {
    std::lock_guard<std::mutex> lock(log_.mutex);
    log_.sequences.push_back(context.sequence);
    log_.slots.push_back(context.slot);
  }
  void OnStart(const ConnectionInfo& connection) override {
    std::lock_guard<std::mutex> lock(log_.mutex);
    log_.starts.push_back(connection);
    log_.tls_at_start.push_back(connection.transport != nullptr &&
                                AsTls(*connection.transport) != nullptr);
  }
  Output NextOutput() override {
    if (sent_.exchange(true)) return {.sending_finished = true};
    return {.data = "ping", .sending_finished = true};
  }
  InputResult OnInput(absl::string_view input) override {
    if (input.size() < 4) return {};
    received_ = true;
    return {.consumed = 4, .finished = true};
  }
  std::string OnPeerClosed() override { return received_ ? "" : "eof"; }
  bool IsFinished() const override { return received_; }
  bool reusable() const override { return true; }
  bool Restart() override {
    sent_ = false;
    std::lock_guard<std::mutex> lock(log_.mutex);
    ++log_.restarts;
    return true;
  }
  void OnEnd(const SessionEnd& end) override {
    std::lock_guard<std::mutex> lock(log_.mutex);
    ++log_.ends[std::string(end.cause)];
  }
  uint64_t messages_sent() const override { return sent_ ? 1 : 0; }
  uint64_t messages_received() const override { return received_ ? 1 : 0; }

 private:
  SessionLog& log_;
  std::atomic<bool> sent_{false};
  std::atomic<bool> received_{false};
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
                         int hang_up = -1, int refuse = -1) {
    shared_.opened_at_start.assign(options.connections, -1);
    return RunClientDriver(options, [&](const SessionContext& context) {
      return std::make_unique<PingSession>(context, shared_, rounds, opening, hang_up, refuse);
    });
  }

  // `sessions` OneRoundSessions over the options' slots, each replaced as it ends.
  static ClientDriverResult RunSessions(ClientDriverOptions options, int sessions,
                                        SessionLog& log) {
    options.replace_sessions = true;
    return RunClientDriver(options,
                           [&](const SessionContext& context) -> std::unique_ptr<ClientSession> {
                             if (context.sequence >= sessions) return nullptr;
                             return std::make_unique<OneRoundSession>(context, log);
                           });
  }

  std::unique_ptr<Server> StartEchoServer(TlsServerContext* tls = nullptr) {
    absl::StatusOr<std::unique_ptr<Server>> server =
        Server::Start({.model = DefaultServerModel(), .tls = tls},
                      [] { return std::make_unique<EchoOrHangUp>(); });
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }

  Shared shared_;
};

// The series covers the measured phase with whole intervals and a last one that ends with it, and
// comes from the same readings of the counters as `sent` and `received`: it adds up to them.
void ExpectASeriesOfTheMeasuredPhase(const ClientDriverResult& result, int64_t interval_nanos) {
  const ClientSeries& series = result.series;
  EXPECT_EQ(series.interval_nanos, interval_nanos);
  ASSERT_FALSE(series.empty());
  ASSERT_EQ(series.received.size(), series.sent.size());
  EXPECT_EQ(std::accumulate(series.sent.begin(), series.sent.end(), uint64_t{0}), result.sent);
  EXPECT_EQ(std::accumulate(series.received.begin(), series.received.end(), uint64_t{0}),
            result.received);
  EXPECT_GT(series.last_nanos, 0);
  EXPECT_LE(series.last_nanos, interval_nanos);
  EXPECT_EQ(static_cast<int64_t>(series.sent.size() - 1) * interval_nanos + series.last_nanos,
            result.elapsed_nanos);
}

TEST_P(ClientDriverTest, TheSeriesAddsUpToWhatTheMeasuredPhaseSentAndReceived) {
  std::unique_ptr<Server> server = StartEchoServer();
  ClientDriverResult result = Run(Options(server->port(), 3), /*rounds=*/100, /*opening=*/true);
  ASSERT_TRUE(result.ok()) << result.failure;
  ExpectASeriesOfTheMeasuredPhase(result, 100 * kNanosPerMilli);  // the default
  EXPECT_EQ(result.sent, 300u);

  // Intervals short enough for a run of a few hundred round trips to span several.
  ClientDriverOptions options = Options(server->port(), 3);
  options.series_interval_nanos = 200 * kNanosPerMicro;
  result = Run(options, /*rounds=*/1000, /*opening=*/false);
  ASSERT_TRUE(result.ok()) << result.failure;
  ExpectASeriesOfTheMeasuredPhase(result, 200 * kNanosPerMicro);
  EXPECT_EQ(result.sent, 3000u);
}

TEST_P(ClientDriverTest, TheSeriesBeginsAfterTheWarmupAndEndsWithTheDuration) {
  std::unique_ptr<Server> server = StartEchoServer();
  ClientDriverOptions options = Options(server->port(), 2);
  options.warmup_nanos = 20 * kNanosPerMilli;
  options.duration_nanos = 30 * kNanosPerMilli;
  options.series_interval_nanos = kNanosPerMilli;
  ClientDriverResult result = RunClientDriver(options, [](const SessionContext& context) {
    return std::make_unique<PingUntilStopped>(context);
  });
  ASSERT_TRUE(result.ok()) << result.failure;
  ExpectASeriesOfTheMeasuredPhase(result, kNanosPerMilli);
  EXPECT_LE(result.sent, result.total_sent);
}

TEST_P(ClientDriverTest, NoSeriesIntervalRecordsNoSeries) {
  std::unique_ptr<Server> server = StartEchoServer();
  ClientDriverOptions options = Options(server->port(), 2);
  options.series_interval_nanos = 0;
  ClientDriverResult result = Run(options, /*rounds=*/10, /*opening=*/false);
  ASSERT_TRUE(result.ok()) << result.failure;
  EXPECT_TRUE(result.series.empty());
  EXPECT_EQ(result.series.interval_nanos, 0);
}

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

TEST_P(ClientDriverTest, SystemCallsAreCountedAndGrowWithMessages) {
  std::unique_ptr<Server> server = StartEchoServer();
  ClientDriverResult few = Run(Options(server->port(), 2), /*rounds=*/10, /*opening=*/true);
  ASSERT_TRUE(few.ok()) << few.failure;
  ClientDriverResult many = Run(Options(server->port(), 2), /*rounds=*/110, /*opening=*/true);
  ASSERT_TRUE(many.ok()) << many.failure;
  // Opening alone takes a socket, a connect, the opening's write and read and a close each.
  EXPECT_GE(few.stats.system_calls, 2u * 5);
  // Ping-pong: every round of each connection writes once and reads at least once; on uring one
  // enter sends and waits, and the two connections' rounds may share it, but no round is answered
  // without one. Bounds on the longer run alone: what the shorter one spent besides its rounds
  // (the threads model's waits) varies from run to run.
  const uint64_t per_round = GetParam().model == ClientModel::kUring ? 1 : 2 * 2;
  EXPECT_GE(many.stats.system_calls, per_round * 110);
  EXPECT_GT(many.stats.system_calls, few.stats.system_calls);
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

TEST_P(ClientDriverTest, WithoutTheLatchAnOpeningThatFailsFailsOnlyItsOwnSession) {
  std::unique_ptr<Server> server = StartEchoServer();
  ClientDriverOptions options = Options(server->port(), 3);
  // With the latch, no load starts when one connection cannot open...
  ClientDriverResult latched =
      Run(options, /*rounds=*/10, /*opening=*/true, /*hang_up=*/-1, /*refuse=*/1);
  EXPECT_THAT(latched.failure, HasSubstr("1 of 3 connections"));
  EXPECT_THAT(latched.failure, HasSubstr("could not be opened"));
  EXPECT_EQ(latched.total_sent, 0u);
  // ...without it, the load started with the first connect, and the others run to the end.
  options.open_before_start = false;
  ClientDriverResult result =
      Run(options, /*rounds=*/10, /*opening=*/true, /*hang_up=*/-1, /*refuse=*/1);
  EXPECT_EQ(result.failed, 1);
  EXPECT_EQ(result.finished, 2);
  EXPECT_EQ(result.stats.errors["opening"], 1);
  EXPECT_EQ(result.total_received, 20u);
  EXPECT_EQ(result.open_nanos, 0);
  EXPECT_THAT(result.failure, HasSubstr("1 of 3 connections failed"));
}

TEST_P(ClientDriverTest, SlotsRunSessionsOneAfterAnotherUntilTheFactorySaysNoMore) {
  std::unique_ptr<Server> server = StartEchoServer();
  ClientDriverOptions options = Options(server->port(), 3);
  options.open_before_start = false;
  SessionLog log;
  ClientDriverResult result = RunSessions(options, 10, log);
  ASSERT_TRUE(result.ok()) << result.failure;
  EXPECT_EQ(result.connections, 3);
  EXPECT_EQ(result.sessions, 10);
  EXPECT_EQ(result.finished, 10);
  EXPECT_EQ(result.total_received, 10u);
  EXPECT_EQ(result.connections_opened, 10);  // no pool: a connection each
  std::vector<int64_t> sequences = log.sequences;
  std::sort(sequences.begin(), sequences.end());
  std::vector<int64_t> expected(10);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(sequences, expected);
  for (int slot : log.slots) EXPECT_TRUE(slot >= 0 && slot < 3) << slot;
  for (const ConnectionInfo& start : log.starts) EXPECT_FALSE(start.reused);
}

TEST_P(ClientDriverTest, APoolKeepsConnectionsAcrossSessionsAndRuns) {
  std::unique_ptr<Server> server = StartEchoServer();
  ConnectionPool pool;
  ClientDriverOptions options = Options(server->port(), 3);
  options.pool = &pool;
  SessionLog first;
  ClientDriverResult result = RunSessions(options, 10, first);
  ASSERT_TRUE(result.ok()) << result.failure;
  EXPECT_EQ(result.finished, 10);
  EXPECT_EQ(result.connections_opened, 3);  // one per slot; its later sessions reuse it
  EXPECT_EQ(pool.idle(), 3u);
  SessionLog second;
  result = RunSessions(options, 6, second);
  ASSERT_TRUE(result.ok()) << result.failure;
  EXPECT_EQ(result.finished, 6);
  EXPECT_EQ(result.connections_opened, 0);
  for (const ConnectionInfo& start : second.starts) {
    EXPECT_TRUE(start.reused);
    EXPECT_EQ(start.connected_nanos, 0);
  }
  EXPECT_EQ(pool.idle(), 3u);
}

TEST_P(ClientDriverTest, ASessionWhoseKeptConnectionWasClosedRunsOnceMoreOnAFreshOne) {
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(
      {.model = DefaultServerModel()}, [] { return std::make_unique<EchoThenClose>(); });
  ASSERT_TRUE(server.ok()) << server.status();
  ConnectionPool pool;
  ClientDriverOptions options = Options((*server)->port(), 2);
  options.pool = &pool;
  SessionLog first;
  ASSERT_TRUE(RunSessions(options, 2, first).ok());
  EXPECT_EQ(pool.idle(), 2u);  // the server closes them, but said nothing
  SessionLog second;
  ClientDriverResult result = RunSessions(options, 2, second);
  ASSERT_TRUE(result.ok()) << result.failure;
  EXPECT_EQ(result.finished, 2);
  EXPECT_EQ(second.restarts, 2);
  EXPECT_EQ(result.connections_opened, 2);
  ASSERT_EQ(second.starts.size(), 4u);  // on the dead kept connection, then on a fresh one
  EXPECT_EQ(std::count_if(second.starts.begin(), second.starts.end(),
                          [](const ConnectionInfo& c) { return c.reused; }),
            2);
  EXPECT_EQ(second.ends[""], 2);  // the failed attempts are no session's end
}

TEST_P(ClientDriverTest, SessionsSeeWhenConnectingBeganAndWhenTcpAndTlsWereDone) {
  absl::StatusOr<std::unique_ptr<TlsServerContext>> server_tls = TlsServerContext::SelfSigned();
  ASSERT_TRUE(server_tls.ok()) << server_tls.status();
  std::unique_ptr<Server> server = StartEchoServer(server_tls->get());
  absl::StatusOr<std::unique_ptr<TlsClientContext>> tls =
      TlsClientContext::Create({.insecure = true});
  ASSERT_TRUE(tls.ok()) << tls.status();
  ClientDriverOptions options = Options(server->port(), 2);
  options.tls = tls->get();
  options.server_name = "127.0.0.1";
  options.open_before_start = false;
  SessionLog log;
  const int64_t before = MonotonicNanos();
  ClientDriverResult result = RunSessions(options, 4, log);
  ASSERT_TRUE(result.ok()) << result.failure;
  ASSERT_EQ(log.starts.size(), 4u);
  for (size_t i = 0; i < log.starts.size(); ++i) {
    const ConnectionInfo& c = log.starts[i];
    EXPECT_GE(c.begin_nanos, before);
    EXPECT_GE(c.connected_nanos, c.begin_nanos);
    EXPECT_GE(c.tls_nanos, c.connected_nanos);
    EXPECT_FALSE(c.reused);
    EXPECT_GE(c.fd, 0);
    EXPECT_TRUE(log.tls_at_start[i]);
  }
}

TEST_P(ClientDriverTest, ASessionDeadlineEndsEachSessionAndTheRunGoesOn) {
  SilentListener silent;  // connected, and never answered
  ClientDriverOptions options = Options(silent.port(), 2);
  options.open_before_start = false;
  options.session_timeout_nanos = 150 * kNanosPerMilli;
  SessionLog log;
  ClientDriverResult result = RunSessions(options, 4, log);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.sessions, 4);
  EXPECT_EQ(result.failed, 4);
  EXPECT_EQ(result.stats.errors["session_timeout"], 4);
  EXPECT_EQ(log.ends["session_timeout"], 4);
  EXPECT_THAT(result.first_error, HasSubstr("not done within 150 ms"));
}

TEST_P(ClientDriverTest, AConnectDeadlineIsCountedByItsOwnCause) {
  SynDroppingListener drop;
  ClientDriverOptions options = Options(drop.port(), 2);
  options.open_before_start = false;
  options.connect_timeout_nanos = 100 * kNanosPerMilli;
  options.session_timeout_nanos = 5 * kNanosPerSecond;
  SessionLog log;
  ClientDriverResult result = RunSessions(options, 2, log);
  EXPECT_EQ(result.stats.errors["connect_timeout"], 2);
  EXPECT_EQ(log.ends["connect_timeout"], 2);
  EXPECT_EQ(result.reached[static_cast<int>(ConnectionPhase::kTls)], 0);
  EXPECT_EQ(result.connections_opened, 0);
  EXPECT_THAT(result.first_error, HasSubstr("no answer within 100 ms"));
}

// Each model built here; event loops run two threads, so that statistics of several are merged.
std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (ClientModel model : AvailableClientModels()) {
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
