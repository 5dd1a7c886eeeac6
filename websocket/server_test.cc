// The WebSocket server on every server model, in process on port 0: the load client against it in
// both modes, and the survival cases: a bad handshake, a frame over the size limit, invalid UTF-8,
// and a reset in the middle of a frame each close only the offending connection, with the right
// status, while another client keeps being served.
#include "common/server.h"

#include <sys/socket.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/platform.h"
#include "common/socket.h"
#include "common/tls.h"
#include "gtest/gtest.h"
#include "testing/peer_flood.h"
#include "testing/socket_io.h"
#include "websocket/frame_writer.h"
#include "websocket/handshake.h"
#include "websocket/load_client.h"
#include "websocket/message_reader.h"
#include "websocket/server_handler.h"

namespace netbench::websocket {
namespace {

bool WriteAll(int fd, absl::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = SendNoSignal(fd, bytes.data(), bytes.size());
    if (n <= 0) return false;
    bytes.remove_prefix(n);
  }
  return true;
}

// Reads until EOF (or an error such as a reset); the server closes every connection it gives up on.
std::string ReadUntilEof(int fd) {
  std::string all;
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return all;
    all.append(buf, n);
  }
}

// A blocking test client speaking just enough WebSocket to misbehave on purpose.
class RawClient {
 public:
  explicit RawClient(int port) {
    absl::StatusOr<UniqueFd> fd = Connect("127.0.0.1", port);
    EXPECT_TRUE(fd.ok()) << fd.status();
    if (fd.ok()) fd_ = *std::move(fd);
  }
  int fd() const { return fd_.get(); }

  // The opening handshake; returns the bytes read after the 101 answer.
  bool Upgrade() {
    const std::string key = GenerateHandshakeKey();
    if (!WriteAll(fd(), BuildHandshakeRequest("127.0.0.1", "/echo", key))) return false;
    std::string in;
    char buf[4096];
    while (true) {
      const ssize_t n = ::read(fd(), buf, sizeof buf);
      if (n <= 0) return false;
      in.append(buf, n);
      absl::Status error;
      const int used = ParseHandshakeResponse(in, key, &error);
      if (used == kHandshakeError) return false;
      if (used > 0) {
        pending_ = in.substr(used);
        return true;
      }
    }
  }

  // Only the header of a masked frame announcing `payload_length` bytes.
  bool SendHeader(Opcode opcode, uint64_t payload_length) {
    char header[kMaxFrameHeaderSize];
    const size_t n = WriteFrameHeader(
        {.fin = true, .masked = true, .opcode = opcode, .payload_length = payload_length}, header);
    return WriteAll(fd(), absl::string_view(header, n));
  }

  bool Send(Opcode opcode, absl::string_view payload, bool fin = true) {
    ByteBuffer out;
    AppendFrame(out, opcode, payload, fin, /*masked=*/true, 0x01020304);
    return WriteAll(fd(), out.view());
  }

  // The next event the server sends (kNone at EOF).
  WebSocketEvent Next() {
    while (true) {
      WebSocketEvent event;
      const size_t used = reader_.Read(pending_, &event);
      if (event.type != EventType::kNone) {
        last_payload_ = std::string(event.payload);
        event.payload = last_payload_;
        pending_.erase(0, used);
        return event;
      }
      pending_.erase(0, used);
      char buf[65536];
      const ssize_t n = ::read(fd(), buf, sizeof buf);
      if (n <= 0) return WebSocketEvent{};
      pending_.append(buf, n);
    }
  }

 private:
  UniqueFd fd_;
  std::string pending_;
  std::string last_payload_;
  MessageReader reader_{{.role = Role::kClient}};
};

class WebSocketServerTest : public testing::TestWithParam<ServerModel> {
 protected:
  void StartServer(WebSocketServerMode mode, uint64_t max_message_size = kDefaultMaxMessageSize,
                   ServerOptions options = {}) {
    options.port = 0;
    options.model = GetParam();
    options.threads = 2;
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(
        options,
        WebSocketHandlerFactory(
            {.path = "/echo", .mode = mode, .max_message_size = max_message_size}, &counters_));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    url_ = absl::StrCat("ws://127.0.0.1:", server_->port(), "/echo");
  }

  // A well-behaved client gets a 1000-byte echo back.
  void ExpectStillServing() {
    RawClient good(server_->port());
    ASSERT_TRUE(good.Upgrade());
    const std::string payload(1000, 'k');
    ASSERT_TRUE(good.Send(Opcode::kText, payload));
    WebSocketEvent event = good.Next();
    ASSERT_EQ(event.type, EventType::kMessage);
    EXPECT_EQ(event.payload, payload);
  }

  WebSocketServerCounters counters_;
  std::unique_ptr<Server> server_;
  std::string url_;
};

TEST_P(WebSocketServerTest, LoadClientEchoModeExactCounts) {
  StartServer(WebSocketServerMode::kEcho);
  LoadClientOptions options;
  options.url = url_;
  options.clients = 3;
  options.messages = 2000;
  options.mode = ClientMode::kEcho;
  options.pipeline = 8;
  for (ClientModel model : AvailableClientModels()) {
    options.model = model;
    absl::StatusOr<LoadClientResult> result = RunLoadClient(options);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->messages_sent, 6000);
    EXPECT_EQ(result->messages_received, 6000);
    EXPECT_EQ(result->mismatches, 0);
    EXPECT_EQ(result->connections_ok, 3);
    EXPECT_TRUE(result->errors.empty()) << result->first_error;
    EXPECT_EQ(result->latency.count(), 6000);
  }
}

TEST_P(WebSocketServerTest, LoadClientSinkModeServerReceivesEverything) {
  StartServer(WebSocketServerMode::kSink);
  LoadClientOptions options;
  options.url = url_;
  options.clients = 4;
  options.messages = 5000;
  options.size = 300;  // 16-bit lengths
  options.pipeline = 3;
  absl::StatusOr<LoadClientResult> result = RunLoadClient(options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->messages_sent, 20000);
  EXPECT_EQ(result->connections_ok, 4);
  EXPECT_TRUE(result->errors.empty()) << result->first_error;
  // Every connection finished its close handshake, so the server has read every message.
  EXPECT_EQ(counters_.messages.load(), 20000u);
  EXPECT_EQ(counters_.closes.load(), 4u);
}

TEST_P(WebSocketServerTest, BadHandshakesGetHttpErrors) {
  StartServer(WebSocketServerMode::kEcho);
  struct Case {
    std::string request;
    const char* status_line;
  };
  const Case cases[] = {
      {"GET /echo HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400 "},
      {"GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n",
       "HTTP/1.1 426 "},
      {"GET /other HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
       "HTTP/1.1 404 "},
      {std::string(20000, 'A'), "HTTP/1.1 400 "},
  };
  for (const Case& c : cases) {
    RawClient bad(server_->port());
    WriteAll(bad.fd(), c.request);
    const std::string answer = ReadUntilEof(bad.fd());
    EXPECT_TRUE(absl::StartsWith(answer, c.status_line)) << answer;
  }
  ExpectStillServing();
  EXPECT_EQ(counters_.rejected_handshakes.load(), 4u);
}

TEST_P(WebSocketServerTest, OversizeFrameClosesWith1009BeforeThePayload) {
  StartServer(WebSocketServerMode::kEcho, /*max_message_size=*/1 << 16);
  RawClient big(server_->port());
  ASSERT_TRUE(big.Upgrade());
  // Only the header of a 1 GiB frame is sent: the server must not wait for (or buffer) the payload.
  ASSERT_TRUE(big.SendHeader(Opcode::kBinary, 1ull << 30));
  WebSocketEvent event = big.Next();
  ASSERT_EQ(event.type, EventType::kClose);
  EXPECT_EQ(event.close_code, kCloseMessageTooBig);
  EXPECT_EQ(big.Next().type, EventType::kNone);  // then EOF
  ExpectStillServing();
}

// A client that keeps sending after its frame was refused still gets the 1009 close frame: the
// payload the server never reads must not turn the close into a reset that destroys the reply.
TEST_P(WebSocketServerTest, OversizeFrameStillClosesWith1009WhileThePayloadKeepsComing) {
  StartServer(WebSocketServerMode::kEcho, /*max_message_size=*/1 << 16);
  RawClient big(server_->port());
  ASSERT_TRUE(big.Upgrade());
  ASSERT_TRUE(big.SendHeader(Opcode::kBinary, 1ull << 20));
  // Part of the payload, written whatever the server has done meanwhile (a send may fail once the
  // server closed: that is fine, the close frame is what matters).
  const std::string payload(256 << 10, 'p');
  WriteAll(big.fd(), payload);
  WebSocketEvent event = big.Next();
  ASSERT_EQ(event.type, EventType::kClose);
  EXPECT_EQ(event.close_code, kCloseMessageTooBig);
  ExpectStillServing();
}

// In echo mode a message is held whole before it goes back: the server's input bound caps it
// (here far below --max_message_size). A frame announcing more than the bound is refused at its
// header, and a fragmented message that never ends once it passes the bound, both with 1009, while
// another client is served.
TEST_P(WebSocketServerTest, MessagesPastTheInputBoundCloseWith1009) {
  constexpr size_t kInputBound = 64 * 1024;
  StartServer(WebSocketServerMode::kEcho, kDefaultMaxMessageSize,
              {.max_pending_input = kInputBound});
  RawClient huge(server_->port());
  ASSERT_TRUE(huge.Upgrade());
  ASSERT_TRUE(huge.SendHeader(Opcode::kBinary, kInputBound + 1));
  WebSocketEvent event = huge.Next();
  ASSERT_EQ(event.type, EventType::kClose);
  EXPECT_EQ(event.close_code, kCloseMessageTooBig);
  EXPECT_EQ(event.payload, "message too big");

  RawClient endless(server_->port());
  ASSERT_TRUE(endless.Upgrade());
  const std::string fragment(1000, 'e');
  ASSERT_TRUE(endless.Send(Opcode::kBinary, fragment, /*fin=*/false));
  // Fragments go on until the server refuses the message (a send may fail once it has closed).
  uint64_t sent = fragment.size();
  while (sent <= 2 * kInputBound && endless.Send(Opcode::kContinuation, fragment, /*fin=*/false)) {
    sent += fragment.size();
  }
  event = endless.Next();
  ASSERT_EQ(event.type, EventType::kClose);
  EXPECT_EQ(event.close_code, kCloseMessageTooBig);
  ExpectStillServing();
  EXPECT_EQ(counters_.protocol_errors.load(), 2u);
}

// A message within the input bound, in fragments, is echoed whole.
TEST_P(WebSocketServerTest, FragmentedMessageWithinTheInputBoundIsEchoed) {
  constexpr size_t kInputBound = 64 * 1024;
  StartServer(WebSocketServerMode::kEcho, kDefaultMaxMessageSize,
              {.max_pending_input = kInputBound});
  RawClient c(server_->port());
  ASSERT_TRUE(c.Upgrade());
  const std::string fragment(1000, 'w');
  ASSERT_TRUE(c.Send(Opcode::kBinary, fragment, /*fin=*/false));
  for (int i = 1; i < 60; ++i) ASSERT_TRUE(c.Send(Opcode::kContinuation, fragment, i == 59));
  WebSocketEvent event = c.Next();
  ASSERT_EQ(event.type, EventType::kMessage);
  EXPECT_EQ(event.payload.size(), 60 * fragment.size());
}

TEST_P(WebSocketServerTest, InvalidUtf8ClosesWith1007) {
  StartServer(WebSocketServerMode::kEcho);
  RawClient bad(server_->port());
  ASSERT_TRUE(bad.Upgrade());
  ASSERT_TRUE(bad.Send(Opcode::kText, "fine"));
  ASSERT_TRUE(bad.Send(Opcode::kText, "bad \xc3\x28 text"));
  WebSocketEvent event = bad.Next();
  ASSERT_EQ(event.type, EventType::kMessage);
  EXPECT_EQ(event.payload, "fine");
  event = bad.Next();
  ASSERT_EQ(event.type, EventType::kClose);
  EXPECT_EQ(event.close_code, kCloseInvalidPayload);
  ExpectStillServing();
}

TEST_P(WebSocketServerTest, ProtocolErrorClosesWith1002AndPingIsAnswered) {
  StartServer(WebSocketServerMode::kEcho);
  RawClient c(server_->port());
  ASSERT_TRUE(c.Upgrade());
  ASSERT_TRUE(c.Send(Opcode::kPing, "are you there"));
  WebSocketEvent event = c.Next();
  ASSERT_EQ(event.type, EventType::kPong);
  EXPECT_EQ(event.payload, "are you there");
  ASSERT_TRUE(c.Send(Opcode::kContinuation, "orphan"));
  event = c.Next();
  ASSERT_EQ(event.type, EventType::kClose);
  EXPECT_EQ(event.close_code, kCloseProtocolError);
  ExpectStillServing();
}

TEST_P(WebSocketServerTest, ResetInTheMiddleOfAFrame) {
  StartServer(WebSocketServerMode::kEcho);
  {
    RawClient rude(server_->port());
    ASSERT_TRUE(rude.Upgrade());
    ByteBuffer frame;
    AppendFrame(frame, Opcode::kBinary, std::string(100000, 'r'), true, true, 0x55667788);
    ASSERT_TRUE(WriteAll(rude.fd(), frame.view().substr(0, 50000)));
    // SO_LINGER 0: close() sends a reset instead of a FIN.
    linger hard{.l_onoff = 1, .l_linger = 0};
    ASSERT_EQ(setsockopt(rude.fd(), SOL_SOCKET, SO_LINGER, &hard, sizeof hard), 0);
  }
  ExpectStillServing();
}

TEST_P(WebSocketServerTest, CloseHandshakeEchoesCodeAndFragmentsReassemble) {
  StartServer(WebSocketServerMode::kEcho);
  RawClient c(server_->port());
  ASSERT_TRUE(c.Upgrade());
  ASSERT_TRUE(c.Send(Opcode::kText, "frag", false));
  ASSERT_TRUE(c.Send(Opcode::kPing, "mid"));
  ASSERT_TRUE(c.Send(Opcode::kContinuation, "mented"));
  WebSocketEvent event = c.Next();
  ASSERT_EQ(event.type, EventType::kPong);
  event = c.Next();
  ASSERT_EQ(event.type, EventType::kMessage);
  EXPECT_EQ(event.payload, "fragmented");
  ASSERT_TRUE(c.Send(Opcode::kClose, std::string("\x0f\xa0", 2) + "bye"));  // 4000
  event = c.Next();
  ASSERT_EQ(event.type, EventType::kClose);
  EXPECT_EQ(event.close_code, 4000);
}

TEST_P(WebSocketServerTest, WssEchoWithAVerifiedCertificate) {
  absl::StatusOr<std::unique_ptr<TlsServerContext>> tls = TlsServerContext::SelfSigned();
  ASSERT_TRUE(tls.ok()) << tls.status();
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string ca_file = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/ws_server_test_ca.pem");
  {
    std::ofstream out(ca_file);
    out << (*tls)->certificate_pem();
  }
  ServerOptions options;
  options.port = 0;
  options.model = GetParam();
  options.tls = tls->get();
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(
      options, WebSocketHandlerFactory({.mode = WebSocketServerMode::kEcho}, nullptr));
  ASSERT_TRUE(server.ok()) << server.status();
  LoadClientOptions client;
  client.url = absl::StrCat("wss://127.0.0.1:", (*server)->port(), "/echo");
  client.ca_file = ca_file;
  client.clients = 2;
  client.messages = 300;
  client.size = 20000;  // frames larger than one TLS record
  client.mode = ClientMode::kEcho;
  client.pipeline = 4;
  absl::StatusOr<LoadClientResult> result = RunLoadClient(client);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->messages_received, 600);
  EXPECT_EQ(result->mismatches, 0);
  EXPECT_TRUE(result->errors.empty()) << result->first_error;
  // Without the certificate, verification fails and the client says so.
  client.ca_file.clear();
  result = RunLoadClient(client);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::StrContains(result.status().message(), "certificate")) << result.status();
}

// 20 peers upgrade, then write masked 1000-byte frames and never read the echoes: the server stops
// reading each once its bounds are reached, so its memory grows by no more than the bounds (message
// reassembly included) allow, and another client is served meanwhile. At the default bounds.
TEST_P(WebSocketServerTest, TwentyPeersThatNeverReadCostNoMoreThanTheirBounds) {
  const size_t kInputBound = ServerOptions().max_pending_input;
  const size_t kOutputBound = ServerOptions().max_pending_output;
  StartServer(WebSocketServerMode::kEcho);
  const uint64_t before = ResidentBytes();
  if (before == 0) GTEST_SKIP() << "no /proc/self/status here";
  ByteBuffer frame;
  AppendFrame(frame, Opcode::kBinary, std::string(1000, 'f'), /*fin=*/true, /*masked=*/true,
              0x01020304);
  PeerFlood flood = FloodWithoutReading(
      server_->port(),
      {.connections = 20,
       .bytes_per_connection = 16 << 20,
       .prefix = BuildHandshakeRequest("127.0.0.1", "/echo", GenerateHandshakeKey()),
       .unit = std::string(frame.view())});
  ASSERT_EQ(flood.connections.size(), 20u);
  EXPECT_EQ(flood.closed_by_server, 0);
  if (ResidentBytesMeaningful()) {
    EXPECT_LT(ResidentGrowthSince(before), FloodMemoryBudget(20, kInputBound, kOutputBound))
        << flood.bytes_sent << " bytes sent";
  }
  ExpectStillServing();
  EXPECT_LE(server_->stats().peak_pending_input, kInputBound);
}

// A connection that trickles its opening handshake is closed by the handshake (head) timeout, a
// silent one by the idle timeout, and another client is served meanwhile.
TEST_P(WebSocketServerTest, SilentAndTricklingHandshakesAreClosed) {
  ServerOptions options;
  options.idle_timeout_nanos = 1000 * kNanosPerMilli;
  options.head_timeout_nanos = 300 * kNanosPerMilli;
  StartServer(WebSocketServerMode::kEcho, kDefaultMaxMessageSize, options);
  RawClient silent(server_->port());
  RawClient trickling(server_->port());
  std::thread trickler(TrickleUntilClosed, trickling.fd(),
                       BuildHandshakeRequest("127.0.0.1", "/echo", GenerateHandshakeKey()), 20);
  ExpectStillServing();
  EXPECT_TRUE(ServerCloses(trickling.fd()));
  EXPECT_TRUE(ServerCloses(silent.fd()));
  trickler.join();
  EXPECT_GE(server_->stats().connections_timed_out, 2u);
}

INSTANTIATE_TEST_SUITE_P(Models, WebSocketServerTest, testing::ValuesIn(AvailableServerModels()),
                         [](const testing::TestParamInfo<ServerModel>& info) {
                           return std::string(ServerModelName(info.param));
                         });

TEST(LoadClientTest, RefusedConnectionIsAClearError) {
  absl::StatusOr<Listener> listener = Listen({.port = 0});
  ASSERT_TRUE(listener.ok());
  const int port = listener->port;
  listener->fd.reset();  // nobody listens there now
  LoadClientOptions options;
  options.url = absl::StrCat("ws://127.0.0.1:", port, "/echo");
  options.messages = 10;
  absl::StatusOr<LoadClientResult> result = RunLoadClient(options);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::StrContains(result.status().message(), "ECONNREFUSED")) << result.status();
}

}  // namespace
}  // namespace netbench::websocket
