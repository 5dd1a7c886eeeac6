// The load generator against peers written here: a plain blocking echo server, one that corrupts a
// byte, one that hangs up early, and a closed port. Real sockets on loopback, port 0.
#include "echo/load_generator.h"

#include <sys/socket.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "common/platform.h"
#include "common/socket.h"
#include "echo/message.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace netbench {
namespace echo {
namespace {

using ::testing::HasSubstr;

uint64_t Sum(const std::vector<uint64_t>& values) {
  return std::accumulate(values.begin(), values.end(), uint64_t{0});
}

// How TestEchoServer misbehaves: `corrupt_at` flips the byte at that offset of each connection's
// stream; `close_after` hangs up after echoing that many bytes.
struct Behaviour {
  int64_t corrupt_at = -1;
  int64_t close_after = -1;
  bool never_read = false;  // accept, then neither read nor close until the server goes away
};

// A blocking echo server: a thread per connection.
class TestEchoServer {
 public:
  TestEchoServer() : TestEchoServer(Behaviour()) {}
  explicit TestEchoServer(Behaviour behaviour) : behaviour_(behaviour) {
    absl::StatusOr<Listener> listener = Listen({.host = "127.0.0.1", .port = 0});
    EXPECT_TRUE(listener.ok()) << listener.status();
    listener_ = *std::move(listener);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }

  ~TestEchoServer() {
    shutdown(listener_.fd.get(), SHUT_RDWR);  // wakes accept()
    acceptor_.join();
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::thread& t : connections_) t.join();
  }

  int port() const { return listener_.port; }

 private:
  void AcceptLoop() {
    while (true) {
      absl::StatusOr<UniqueFd> fd = Accept(listener_.fd.get(), /*non_blocking=*/false);
      if (!fd.ok()) return;
      std::lock_guard<std::mutex> lock(mutex_);
      if (behaviour_.never_read) {
        held_.push_back(*std::move(fd));
        continue;
      }
      connections_.emplace_back(
          [this, fd = std::make_shared<UniqueFd>(*std::move(fd))] { Echo(fd->get()); });
    }
  }

  void Echo(int fd) {
    std::vector<char> buffer(64 * 1024);
    int64_t offset = 0;
    while (true) {
      ssize_t n = recv(fd, buffer.data(), buffer.size(), 0);
      if (n <= 0) return;
      if (behaviour_.corrupt_at >= offset && behaviour_.corrupt_at < offset + n) {
        buffer[behaviour_.corrupt_at - offset] ^= 0x20;
      }
      if (behaviour_.close_after >= 0 && offset + n > behaviour_.close_after) {
        n = behaviour_.close_after - offset;
        if (n > 0) SendNoSignal(fd, buffer.data(), n);
        return;  // the UniqueFd closes the connection
      }
      for (ssize_t done = 0; done < n;) {
        ssize_t w = SendNoSignal(fd, buffer.data() + done, n - done);
        if (w <= 0) return;
        done += w;
      }
      offset += n;
    }
  }

  Behaviour behaviour_;
  Listener listener_;
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> connections_;
  std::vector<UniqueFd> held_;
};

LoadOptions Options(int port) {
  LoadOptions options;
  options.port = port;
  options.clients = 3;
  options.messages = 30000;
  options.timeout_nanos = 60 * kNanosPerSecond;
  return options;
}

void ExpectExact(const LoadResult& result, int64_t messages) {
  EXPECT_TRUE(result.ok()) << result.failure;
  EXPECT_EQ(result.error_count(), 0u);
  EXPECT_EQ(result.total_written, static_cast<uint64_t>(messages));
  EXPECT_EQ(result.total_echoed, static_cast<uint64_t>(messages));
  EXPECT_EQ(result.messages_written, static_cast<uint64_t>(messages));
  EXPECT_EQ(result.aborted_connections, 0);
}

TEST(EchoMessageTest, MatchesTheGoSpammersMessage) {
  const std::string message = BuildEchoMessage(22);
  EXPECT_EQ(message, std::string("\x0e\x00\x00\x00\x01\x00\x00\x00hello, friend\n", 22));
  EXPECT_EQ(BuildEchoMessage(5), "hello");
  EXPECT_EQ(BuildEchoMessage(30).substr(8), "hello, friend\nhello, f");
}

TEST(EchoPatternTest, ChecksChunksAtAnyOffset) {
  const std::string message = BuildEchoMessage(22);
  const std::string stream = RepeatMessage(message, 10);
  EchoPattern pattern(message, 100);
  for (size_t offset = 0; offset < 50; ++offset) {
    EXPECT_TRUE(pattern.Matches(stream.data() + offset, 100, offset));
    EXPECT_FALSE(pattern.Matches(stream.data() + offset, 100, offset + 1));
  }
  std::string bad = stream;
  bad[30] ^= 1;
  bad[31] ^= 1;
  bad[70] ^= 1;
  EXPECT_EQ(pattern.CountMismatchedMessages(bad.data() + 10, 100, 10), 2u);
}

class ModelTest : public ::testing::TestWithParam<ClientModel> {};

TEST_P(ModelTest, StreamSendsAndGetsBackExactlyTheMessagesAsked) {
  TestEchoServer server;
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.messages = 30001;  // not a multiple of the clients
  LoadResult result = RunLoad(options);
  ExpectExact(result, 30001);
  EXPECT_EQ(result.connections, 3);
}

TEST_P(ModelTest, StreamBatchesWrites) {
  TestEchoServer server;
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.batch = 7;
  options.messages = 10001;
  ExpectExact(RunLoad(options), 10001);
}

// The reader's wakeup watermark must not hold back the last echoes, whether it is off or larger
// than everything a connection sends.
TEST_P(ModelTest, ReadCoalescingNeverHoldsBackTheLastEchoes) {
  TestEchoServer server;
  for (int coalesce : {0, 1 << 20}) {
    LoadOptions options = Options(server.port());
    options.model = GetParam();
    options.read_coalesce_bytes = coalesce;
    options.messages = 10001;
    ExpectExact(RunLoad(options), 10001);
  }
}

TEST_P(ModelTest, PingPongTimesEveryRoundTrip) {
  TestEchoServer server;
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.mode = LoadMode::kPipeline;
  options.messages = 3000;
  LoadResult result = RunLoad(options);
  ExpectExact(result, 3000);
  EXPECT_EQ(result.latency.at("rtt").count(), 3000);
  EXPECT_GT(result.latency.at("rtt").min(), 0);
}

TEST_P(ModelTest, PipelineKeepsSeveralInFlight) {
  TestEchoServer server;
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.mode = LoadMode::kPipeline;
  options.pipeline = 16;
  options.messages = 20000;
  LoadResult result = RunLoad(options);
  ExpectExact(result, 20000);
  EXPECT_EQ(result.latency.at("rtt").count(), 20000);
}

TEST_P(ModelTest, RateModeRecordsCorrectedAndRawLatency) {
  TestEchoServer server;
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.rate = 20000;
  options.messages = 3000;
  LoadResult result = RunLoad(options);
  ExpectExact(result, 3000);
  const LatencyHistogram& corrected = result.latency.at("rtt_corrected");
  const LatencyHistogram& raw = result.latency.at("rtt_raw");
  EXPECT_EQ(corrected.count(), 3000);
  EXPECT_EQ(raw.count(), 3000);
  // A message never goes out before it is due, so its latency from the intended time is the larger.
  EXPECT_GE(corrected.mean(), raw.mean());
  EXPECT_GE(corrected.max(), raw.max());
}

// Far behind schedule, every pass of the loop model writes its whole quota of messages; with a
// multiple of that quota to send, the last message goes out as a quota runs out, and sending must
// still end.
TEST_P(ModelTest, RateBeyondWhatTheClientCanSendStillEnds) {
  TestEchoServer server;
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.clients = 1;
  options.rate = 1e9;
  options.messages = 1600;
  ExpectExact(RunLoad(options), 1600);
}

TEST_P(ModelTest, DurationRunStopsByItself) {
  TestEchoServer server;
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.messages = 0;
  options.duration_nanos = 200 * kNanosPerMilli;
  LoadResult result = RunLoad(options);
  EXPECT_TRUE(result.ok()) << result.failure;
  EXPECT_GT(result.messages_written, 0u);
  EXPECT_EQ(result.total_echoed, result.total_written);
  EXPECT_EQ(result.aborted_connections, 0);
}

TEST_P(ModelTest, CountsEveryCorruptedEcho) {
  TestEchoServer server({.corrupt_at = 22 * 100 + 9});
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.messages = 3000;
  LoadResult result = RunLoad(options);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.errors["echo.mismatch"], 3);  // one message on each of the 3 connections
  EXPECT_THAT(result.failure, HasSubstr("echo.mismatch"));
}

TEST_P(ModelTest, ReportsAServerThatHangsUpEarly) {
  TestEchoServer server({.close_after = 22 * 50});
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.mode = LoadMode::kPipeline;
  options.messages = 300;
  LoadResult result = RunLoad(options);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.errors["read.eof"], 3);
  EXPECT_EQ(result.total_echoed, 150u);
  EXPECT_GT(result.errors["echo.missing"], 0);
}

TEST_P(ModelTest, WarmupIsLoadedButNotCounted) {
  TestEchoServer server;
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.messages = 0;
  options.warmup_nanos = 100 * kNanosPerMilli;
  options.duration_nanos = 100 * kNanosPerMilli;
  LoadResult result = RunLoad(options);
  EXPECT_TRUE(result.ok()) << result.failure;
  EXPECT_GT(result.messages_written, 0u);
  EXPECT_LT(result.messages_written, result.total_written);
  EXPECT_EQ(result.total_echoed, result.total_written);
  // The series covers the measured phase only, as the counts do.
  ASSERT_FALSE(result.series.empty());
  EXPECT_EQ(Sum(result.series.sent), result.messages_written);
  EXPECT_EQ(Sum(result.series.received), result.messages_echoed);
}

// A server that takes the connection and never reads: the client must still stop by itself, and say
// that the echoes never came.
TEST_P(ModelTest, AServerThatNeverEchoesIsReportedNotWaitedForForever) {
  TestEchoServer server({.never_read = true});
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.messages = 0;
  options.duration_nanos = 100 * kNanosPerMilli;
  options.drain_timeout_nanos = 100 * kNanosPerMilli;
  LoadResult result = RunLoad(options);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.total_echoed, 0u);
  EXPECT_GT(result.errors["echo.missing"], 0);
  EXPECT_THAT(result.failure, HasSubstr("echo.missing"));
}

TEST_P(ModelTest, PingPongToAServerThatNeverEchoesStopsAtTheDrainTimeout) {
  TestEchoServer server({.never_read = true});
  LoadOptions options = Options(server.port());
  options.model = GetParam();
  options.mode = LoadMode::kPipeline;
  options.messages = 30;
  options.drain_timeout_nanos = 100 * kNanosPerMilli;
  options.timeout_nanos = 500 * kNanosPerMilli;
  LoadResult result = RunLoad(options);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.total_written, 3u);  // one in flight on each connection, never answered
  EXPECT_EQ(result.errors["echo.missing"], 3);
  EXPECT_EQ(result.errors["timeout"], 1);
}

INSTANTIATE_TEST_SUITE_P(Models, ModelTest, ::testing::ValuesIn(AvailableClientModels()),
                         [](const auto& info) { return std::string(ServerModelName(info.param)); });

TEST(LoadGeneratorTest, SizesFromOneByteToOneMebibyte) {
  TestEchoServer server;
  for (int size : {1, 7, 8, 22, 1000, 65537, 1 << 20}) {
    LoadOptions options = Options(server.port());
    options.size = size;
    options.clients = 2;
    options.messages = size >= 65536 ? 20 : 2000;
    SCOPED_TRACE(size);
    ExpectExact(RunLoad(options), options.messages);
  }
}

TEST(LoadGeneratorTest, ClosedPortIsRefusedAndReportedByCause) {
  int port;
  {
    absl::StatusOr<Listener> listener = Listen({.host = "127.0.0.1", .port = 0});
    ASSERT_TRUE(listener.ok());
    port = listener->port;
  }  // closed: nothing listens there now
  LoadOptions options = Options(port);
  LoadResult result = RunLoad(options);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.connections, 0);
  EXPECT_EQ(result.errors["connect.ECONNREFUSED"], 3);
  EXPECT_THAT(result.failure, HasSubstr("3 of 3 connections"));
  EXPECT_THAT(result.failure, HasSubstr("ECONNREFUSED"));
}

TEST(LoadGeneratorTest, AGivenTimeoutLowersADefaultDurationAndRefusesAGivenOne) {
  const FlagSetting timeout{.name = "timeout", .given = true, .duration = true};
  const FlagSetting duration{.name = "duration", .duration = true};
  LoadOptions options;
  options.duration_nanos = 10 * kNanosPerSecond;
  options.timeout_nanos = 8 * kNanosPerSecond;  // holds the 5 s drain and 3 s of sending
  absl::StatusOr<std::string> note = AgreeRunTimeout(timeout, duration, options);
  ASSERT_TRUE(note.ok()) << note.status();
  EXPECT_EQ(options.duration_nanos, 3 * kNanosPerSecond);
  EXPECT_THAT(*note, HasSubstr("--duration lowered from its default 10s to 3s, what --timeout=8s"));

  FlagSetting given_duration = duration;
  given_duration.given = true;
  options.duration_nanos = 10 * kNanosPerSecond;
  note = AgreeRunTimeout(timeout, given_duration, options);
  ASSERT_FALSE(note.ok());
  EXPECT_THAT(note.status().message(), HasSubstr("give --timeout >= 15s, or --duration <= 3s"));
  EXPECT_EQ(options.duration_nanos, 10 * kNanosPerSecond);

  options.timeout_nanos = 4 * kNanosPerSecond;  // not even the drain
  EXPECT_FALSE(AgreeRunTimeout(timeout, duration, options).ok());

  options.timeout_nanos = 0;  // derived from the run: agrees as it is
  note = AgreeRunTimeout(timeout, given_duration, options);
  ASSERT_TRUE(note.ok());
  EXPECT_EQ(*note, "");
  options.timeout_nanos = 1 * kNanosPerSecond;
  options.messages = 1000;  // no duration to hold
  EXPECT_TRUE(AgreeRunTimeout(timeout, given_duration, options).ok());
}

TEST(LoadGeneratorTest, RejectsBadOptions) {
  LoadOptions options;
  options.clients = 0;
  EXPECT_THAT(ValidateLoadOptions(options).message(), HasSubstr("--clients"));
  options = LoadOptions();
  options.mode = LoadMode::kPipeline;
  options.rate = 100;
  EXPECT_THAT(ValidateLoadOptions(options).message(), HasSubstr("--rate"));
  options = LoadOptions();
  options.messages = 10;
  options.warmup_nanos = 1;
  EXPECT_FALSE(ValidateLoadOptions(options).ok());
  options = LoadOptions();
  options.series_interval_nanos = 5 * kNanosPerMilli;
  EXPECT_THAT(ValidateLoadOptions(options).message(), HasSubstr("--series_interval"));
  options.series_interval_nanos = 0;  // no series
  EXPECT_TRUE(ValidateLoadOptions(options).ok());
  options = LoadOptions();
  options.read_coalesce_bytes = -1;
  EXPECT_THAT(ValidateLoadOptions(options).message(), HasSubstr("--read_coalesce"));
  EXPECT_FALSE(ParseLoadMode("bogus").ok());
  EXPECT_FALSE(ParseServerModel("bogus").ok());
  LoadResult result = RunLoad(options);
  EXPECT_FALSE(result.ok());
}

}  // namespace
}  // namespace echo
}  // namespace netbench
