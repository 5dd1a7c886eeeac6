#include "httpfanout/origin_handler.h"

#include <sys/socket.h>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/platform.h"
#include "common/server.h"
#include "common/socket.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httpfanout/body_reader.h"
#include "httpfanout/origin_body.h"
#include "httpfanout/response_parser.h"
#include "testing/peer_flood.h"
#include "testing/socket_io.h"

namespace netbench {
namespace {

using ::testing::HasSubstr;

// Reads everything until the server closes the connection.
std::string ReadToEof(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return out;
    out.append(buf, n);
  }
}

void SendAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    ssize_t n = SendNoSignal(fd, data.data(), data.size());
    ASSERT_GT(n, 0);
    data.remove_prefix(n);
  }
}

// Parses consecutive responses from `text`; returns their bodies.
std::vector<std::string> ParseResponses(const std::string& text, std::vector<int>* statuses,
                                        bool head_request = false) {
  std::vector<std::string> bodies;
  size_t pos = 0;
  while (pos < text.size()) {
    ResponseHead head;
    HttpError error;
    int n = ParseResponseHead(text.data() + pos, text.size() - pos, 0, &head, &error);
    EXPECT_GT(n, 0) << HttpErrorText(error);
    if (n <= 0) break;
    pos += n;
    statuses->push_back(head.status);
    BodyReader reader;
    reader.Start(head.framing(head_request), head.content_length);
    std::string body;
    ptrdiff_t used = reader.Feed(absl::string_view(text).substr(pos),
                                 [&](absl::string_view d) { body.append(d.data(), d.size()); });
    EXPECT_GE(used, 0);
    pos += used;
    if (!reader.done()) {
      EXPECT_TRUE(reader.OnEof());
    }
    bodies.push_back(body);
  }
  return bodies;
}

class OriginTest : public testing::TestWithParam<ServerModel> {
 protected:
  void StartOrigin(const OriginOptions& options, ServerOptions server_options = {}) {
    content_ = std::make_shared<const OriginContent>(options);
    server_options.model = GetParam();
    absl::StatusOr<std::unique_ptr<Server>> server =
        Server::Start(server_options, OriginHandlerFactory(content_));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  UniqueFd Dial() {
    absl::StatusOr<UniqueFd> fd = Connect("127.0.0.1", server_->port());
    EXPECT_TRUE(fd.ok()) << fd.status();
    return fd.ok() ? *std::move(fd) : UniqueFd();
  }

  std::shared_ptr<const OriginContent> content_;
  std::unique_ptr<Server> server_;
};

TEST_P(OriginTest, PipelinedKeepAliveThenClose) {
  StartOrigin(OriginOptions{.body_size = 1000});
  UniqueFd fd = Dial();
  SendAll(fd.get(),
          "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
          "HEAD /x HTTP/1.1\r\nHost: x\r\n\r\n"
          "GET /y HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::string text = ReadToEof(fd.get());
  std::vector<int> statuses;
  // The HEAD response has no body; parse it as such by splitting at its head.
  size_t first_end = text.find("\r\n\r\n") + 4 + 1000;
  std::vector<std::string> first = ParseResponses(text.substr(0, first_end), &statuses);
  size_t second_end = text.find("\r\n\r\n", first_end) + 4;
  ParseResponses(text.substr(first_end, second_end - first_end), &statuses, /*head_request=*/true);
  std::vector<std::string> third = ParseResponses(text.substr(second_end), &statuses);
  ASSERT_EQ(statuses, (std::vector<int>{200, 200, 200}));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0], content_->body());
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(Fnv1a64(third[0]), content_->body_checksum());
  EXPECT_THAT(text.substr(second_end), HasSubstr("Connection: close"));
}

TEST_P(OriginTest, ChunkedForHttp11AndLengthForHttp10) {
  StartOrigin(OriginOptions{.body_size = 20000, .chunked = true, .chunk_size = 3000});
  UniqueFd fd = Dial();
  SendAll(fd.get(), "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.0\r\n\r\n");
  std::string text = ReadToEof(fd.get());  // HTTP/1.0 without keep-alive: the server closes
  std::vector<int> statuses;
  std::vector<std::string> bodies = ParseResponses(text, &statuses);
  ASSERT_EQ(bodies.size(), 2u);
  EXPECT_THAT(text, HasSubstr("Transfer-Encoding: chunked"));
  EXPECT_EQ(bodies[0], content_->body());
  EXPECT_EQ(bodies[1], content_->body());
}

TEST_P(OriginTest, BadRequestGets400AndOnlyThatConnectionCloses) {
  StartOrigin(OriginOptions{.body_size = 100});
  UniqueFd good = Dial();
  UniqueFd bad = Dial();
  SendAll(bad.get(), "GARBAGE\r\n\r\n");
  std::string reply = ReadToEof(bad.get());
  EXPECT_TRUE(absl::StartsWith(reply, "HTTP/1.1 400 Bad Request\r\n")) << reply;
  EXPECT_THAT(reply, HasSubstr("bad request line"));
  SendAll(good.get(), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::vector<int> statuses;
  std::vector<std::string> bodies = ParseResponses(ReadToEof(good.get()), &statuses);
  ASSERT_EQ(statuses, std::vector<int>{200});
  EXPECT_EQ(bodies[0], content_->body());
}

TEST_P(OriginTest, OversizeHeadGets431) {
  StartOrigin(OriginOptions{.body_size = 100});
  UniqueFd fd = Dial();
  SendAll(fd.get(), absl::StrCat("GET / HTTP/1.1\r\nX-Big: ", std::string(70000, 'a')));
  std::string reply = ReadToEof(fd.get());
  EXPECT_TRUE(absl::StartsWith(reply, "HTTP/1.1 431 ")) << reply.substr(0, 100);
}

TEST_P(OriginTest, RequestBodyIsSkipped) {
  StartOrigin(OriginOptions{.body_size = 10});
  UniqueFd fd = Dial();
  SendAll(fd.get(),
          "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nHELLOGET / HTTP/1.1\r\nConnection: "
          "close\r\n\r\n");
  std::vector<int> statuses;
  ParseResponses(ReadToEof(fd.get()), &statuses);
  EXPECT_EQ(statuses, (std::vector<int>{200, 200}));
}

// 20 peers pipeline GETs for a 25 KB page and never read. Each 40-byte request makes 25 KB of
// output, so the server must leave requests unanswered (as bounded input) rather than answer them
// into an unbounded queue: its memory grows by no more than the bounds allow, and another client is
// served meanwhile. At the servers' default bounds (what a user gets), on every model: the threads
// model once held twice its bounds (glibc's per-thread arenas kept every buffer's doubling steps).
TEST_P(OriginTest, TwentyPipeliningPeersThatNeverReadCostNoMoreThanTheirBounds) {
  const size_t kInputBound = ServerOptions().max_pending_input;
  const size_t kOutputBound = ServerOptions().max_pending_output;
  StartOrigin(OriginOptions{.body_size = 25600});
  const uint64_t before = ResidentBytes();
  if (before == 0) GTEST_SKIP() << "no /proc/self/status here";
  PeerFlood flood =
      FloodWithoutReading(server_->port(), {.connections = 20,
                                            .bytes_per_connection = 16 << 20,
                                            .unit = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"});
  ASSERT_EQ(flood.connections.size(), 20u);
  EXPECT_EQ(flood.closed_by_server, 0);
  if (ResidentBytesMeaningful()) {
    EXPECT_LT(ResidentGrowthSince(before), FloodMemoryBudget(20, kInputBound, kOutputBound))
        << flood.bytes_sent << " bytes sent";
  }
  UniqueFd fd = Dial();
  SendAll(fd.get(), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::vector<int> statuses;
  std::vector<std::string> bodies = ParseResponses(ReadToEof(fd.get()), &statuses);
  ASSERT_EQ(statuses, (std::vector<int>{200}));
  EXPECT_EQ(bodies[0], content_->body());
  EXPECT_LE(server_->stats().peak_pending_input, kInputBound);
  EXPECT_LE(server_->stats().peak_pending_output, kOutputBound + content_->body().size() + 1024);
}

// A silent connection is closed by the idle timeout, one that trickles its request head a byte at a
// time (often enough never to be idle) by the head timeout, and another client is served meanwhile.
TEST_P(OriginTest, SilentAndTricklingConnectionsAreClosed) {
  StartOrigin(OriginOptions{.body_size = 1000}, {.idle_timeout_nanos = 1000 * kNanosPerMilli,
                                                 .head_timeout_nanos = 300 * kNanosPerMilli});
  UniqueFd silent = Dial();
  UniqueFd trickling = Dial();
  // Long enough that sending it whole would take 20 s.
  std::string head =
      absl::StrCat("GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ", std::string(1000, 'p'), "\r\n\r\n");
  std::thread trickler(TrickleUntilClosed, trickling.get(), head, 20);
  UniqueFd fd = Dial();
  SendAll(fd.get(), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::vector<int> statuses;
  ParseResponses(ReadToEof(fd.get()), &statuses);
  EXPECT_EQ(statuses, (std::vector<int>{200}));
  EXPECT_TRUE(ServerCloses(trickling.get()));
  EXPECT_TRUE(ServerCloses(silent.get()));
  trickler.join();
  EXPECT_GE(server_->stats().connections_timed_out, 2u);
}

INSTANTIATE_TEST_SUITE_P(Models, OriginTest, testing::ValuesIn(AvailableServerModels()),
                         [](const testing::TestParamInfo<ServerModel>& info) {
                           return std::string(ServerModelName(info.param));
                         });

TEST(OriginBodyTest, DeterministicAndPositionDependent) {
  std::string a = MakeOriginBody(25600);
  EXPECT_EQ(a.size(), 25600u);
  EXPECT_EQ(a, MakeOriginBody(25600));
  EXPECT_EQ(a[79], '\n');
  std::string shifted = a.substr(1) + a[0];
  EXPECT_NE(Fnv1a64(shifted), Fnv1a64(a));
  EXPECT_EQ(Fnv1a64Update(Fnv1a64Update(kFnv1a64Offset, a.substr(0, 100)), a.substr(100)),
            Fnv1a64(a));
}

}  // namespace
}  // namespace netbench
