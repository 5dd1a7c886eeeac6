// The echo server on every model, driven the way the benchmarks drive it.
#include "common/server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/byte_buffer.h"
#include "common/clock.h"
#include "common/socket.h"
#include "common/tls.h"
#include "echo/echo_handler.h"
#include "gtest/gtest.h"
#include "testing/peer_flood.h"
#include "testing/socket_io.h"

namespace netbench {
namespace {

// The write-up's message: an 8-byte header (payload length, op-code) and "hello, friend\n", with
// the sequence number folded into the op-code so that reordering would show.
std::string Message(uint32_t sequence) {
  std::string payload = "hello, friend\n";
  std::string m(8, '\0');
  uint32_t length = payload.size();
  std::memcpy(m.data(), &length, 4);
  std::memcpy(m.data() + 4, &sequence, 4);
  return m + payload;
}

class EchoServerTest : public testing::TestWithParam<ServerModel> {
 protected:
  void SetUp() override {
    ServerOptions options = DefaultOptions();
    options.max_pending_output = 128 * 1024;
    options.max_pending_input = 64 * 1024;
    options.read_size = 16 * 1024;
    Restart(options);
  }

  // The server's own defaults on the model under test.
  ServerOptions DefaultOptions() const {
    ServerOptions options;
    options.model = GetParam();
    return options;
  }

  // Replaces the server SetUp started with one on `options`.
  void Restart(const ServerOptions& options) {
    server_.reset();
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(options, EchoHandlerFactory());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  UniqueFd ConnectClient() {
    absl::StatusOr<UniqueFd> fd = Connect("127.0.0.1", server_->port());
    EXPECT_TRUE(fd.ok()) << fd.status();
    return fd.ok() ? *std::move(fd) : UniqueFd();
  }

  std::unique_ptr<Server> server_;
};

// Three clients, one write per 22-byte message and a reader per connection, as the Go spammer.
TEST_P(EchoServerTest, StreamsOfSmallMessagesComeBackExactlyInOrder) {
  constexpr int kClients = 3;
  constexpr uint32_t kMessages = 20000;
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([this] {
      UniqueFd fd = ConnectClient();
      std::string expected;
      for (uint32_t i = 0; i < kMessages; ++i) expected += Message(i);
      std::thread writer([&] {
        for (uint32_t i = 0; i < kMessages; ++i) ASSERT_TRUE(WriteAll(fd.get(), Message(i)));
      });
      std::string echoed = ReadExactly(fd.get(), expected.size());
      writer.join();
      EXPECT_TRUE(echoed == expected);
    });
  }
  for (std::thread& t : threads) t.join();
  // A client can read an echo before the server thread that wrote it has counted it: stop first.
  server_->Stop();
  ServerStats stats = server_->stats();
  EXPECT_EQ(stats.bytes_read, uint64_t{kClients} * kMessages * 22);
  EXPECT_EQ(stats.bytes_written, stats.bytes_read);
}

TEST_P(EchoServerTest, MessagesFromOneByteToOneMebibyte) {
  UniqueFd fd = ConnectClient();
  for (size_t size = 1; size <= (1 << 20); size *= 4) {
    std::string message(size, '\0');
    for (size_t i = 0; i < size; ++i) message[i] = static_cast<char>(i * 131 + size);
    std::thread writer([&] { EXPECT_TRUE(WriteAll(fd.get(), message)); });
    std::string echoed = ReadExactly(fd.get(), size);
    writer.join();
    EXPECT_TRUE(echoed == message) << size;
  }
}

TEST_P(EchoServerTest, HalfCloseGetsTheRestThenEof) {
  UniqueFd fd = ConnectClient();
  std::string message(50000, 'q');
  ASSERT_TRUE(WriteAll(fd.get(), message));
  ASSERT_EQ(shutdown(fd.get(), SHUT_WR), 0);
  EXPECT_EQ(ReadExactly(fd.get(), message.size() + 1), message);  // then EOF: no extra byte
}

TEST_P(EchoServerTest, NonReaderStaysBoundedWhileOthersAreServed) {
  UniqueFd stuck = ConnectClient();
  std::thread writer([&] {
    std::string chunk(64 * 1024, 'z');
    for (int i = 0; i < 1024; ++i) {  // 64 MiB: far beyond every buffer on the way
      if (!WriteAll(stuck.get(), chunk)) return;
    }
    ADD_FAILURE() << "the server kept reading from a client that never reads";
  });
  UniqueFd other = ConnectClient();
  for (uint32_t i = 0; i < 2000; ++i) {
    ASSERT_TRUE(WriteAll(other.get(), Message(i)));
    ASSERT_EQ(ReadExactly(other.get(), 22), Message(i));
  }
  EXPECT_LE(server_->stats().peak_pending_output, 128u * 1024 + 16 * 1024);
  shutdown(stuck.get(), SHUT_RDWR);
  writer.join();
  EXPECT_LE(server_->stats().peak_pending_output, 128u * 1024 + 16 * 1024);
}

// 20 peers write raw bytes and never read: the server stops reading each once its bounds are
// reached, so its memory grows by no more than the bounds allow, and it serves another client. At
// the default bounds, what a user gets.
TEST_P(EchoServerTest, TwentyPeersThatNeverReadCostNoMoreThanTheirBounds) {
  ServerOptions options = DefaultOptions();
  const size_t kInputBound = options.max_pending_input;
  const size_t kOutputBound = options.max_pending_output;
  ASSERT_NO_FATAL_FAILURE(Restart(options));
  const uint64_t before = ResidentBytes();
  if (before == 0) GTEST_SKIP() << "no /proc/self/status here";
  PeerFlood flood = FloodWithoutReading(
      server_->port(), {.connections = 20, .bytes_per_connection = 32 << 20, .unit = "echo me "});
  ASSERT_EQ(flood.connections.size(), 20u);
  EXPECT_EQ(flood.closed_by_server, 0);
  if (ResidentBytesMeaningful()) {
    EXPECT_LT(ResidentGrowthSince(before), FloodMemoryBudget(20, kInputBound, kOutputBound))
        << flood.bytes_sent << " bytes sent";
  }
  UniqueFd other = ConnectClient();
  ASSERT_TRUE(WriteAll(other.get(), Message(7)));
  EXPECT_EQ(ReadExactly(other.get(), 22), Message(7));
  EXPECT_LE(server_->stats().peak_pending_input, kInputBound);
  EXPECT_LE(server_->stats().peak_pending_output, kOutputBound + options.read_size);
}

// After a burst, buffers that drained give their memory back: 20 peers flood without reading until
// the server holds its bounds for each, then read every echo back and make one more round trip (so
// the server has finished the writes that drained them). The connections stay open, idle, and the
// server's memory is back near where it started: at most a read's worth per buffer, not its peak.
TEST_P(EchoServerTest, IdleConnectionsGiveBackWhatABurstGrew) {
  ServerOptions options = DefaultOptions();
  ASSERT_NO_FATAL_FAILURE(Restart(options));
  const uint64_t before = ResidentBytes();
  if (before == 0) GTEST_SKIP() << "no /proc/self/status here";
  PeerFlood flood = FloodWithoutReading(
      server_->port(), {.connections = 20, .bytes_per_connection = 16 << 20, .unit = "burst "});
  ASSERT_EQ(flood.connections.size(), 20u);
  // The event loops queued output past a read's size (the threads model blocks in its write with
  // one read's echo instead).
  if (GetParam() != ServerModel::kThreads) {
    ASSERT_GT(server_->stats().peak_pending_output, 2 * ByteBuffer::kSmallCapacity);
  }
  // Every byte sent comes back, over whichever connection it went out on.
  std::vector<pollfd> fds;
  for (const UniqueFd& fd : flood.connections) fds.push_back({fd.get(), POLLIN, 0});
  uint64_t received = 0;
  std::vector<char> chunk(1 << 16);
  while (received < flood.bytes_sent) {
    ASSERT_GT(poll(fds.data(), fds.size(), 60 * 1000), 0) << received << " of " << flood.bytes_sent;
    for (const pollfd& entry : fds) {
      if (entry.revents == 0) continue;
      const ssize_t n = recv(entry.fd, chunk.data(), chunk.size(), MSG_DONTWAIT);
      ASSERT_TRUE(n > 0 || (n < 0 && errno == EAGAIN)) << "the server closed a connection";
      if (n > 0) received += static_cast<uint64_t>(n);
    }
  }
  ASSERT_EQ(received, flood.bytes_sent);
  for (const UniqueFd& fd : flood.connections) {
    fcntl(fd.get(), F_SETFL, fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);  // the flood's were not
    ASSERT_TRUE(WriteAll(fd.get(), "!"));
    ASSERT_EQ(ReadExactly(fd.get(), 1), "!");
  }
  if (ResidentBytesMeaningful()) {
    EXPECT_LT(ResidentGrowthSince(before), 20 * 2 * ByteBuffer::kSmallCapacity + (8u << 20));
  }
}

// The idle timeout closes a silent connection (an echo server's peer can only be silent or
// sending: there is no head to time out), and another client is served meanwhile.
TEST_P(EchoServerTest, IdleTimeoutClosesASilentConnection) {
  ServerOptions options = DefaultOptions();
  options.idle_timeout_nanos = 300 * kNanosPerMilli;
  ASSERT_NO_FATAL_FAILURE(Restart(options));
  UniqueFd silent = ConnectClient();
  UniqueFd other = ConnectClient();
  ASSERT_TRUE(WriteAll(other.get(), Message(1)));
  EXPECT_EQ(ReadExactly(other.get(), 22), Message(1));
  EXPECT_TRUE(ServerCloses(silent.get()));
  EXPECT_GE(server_->stats().connections_timed_out, 1u);
}

// A peer that writes and never reads stalls its echo; once nothing has moved for the idle timeout
// the server gives up on it (a write that takes nothing counts as idle), on every model.
TEST_P(EchoServerTest, IdleTimeoutClosesAPeerThatNeverReads) {
  ServerOptions options = DefaultOptions();
  options.max_pending_output = 64 * 1024;
  options.idle_timeout_nanos = 300 * kNanosPerMilli;
  ASSERT_NO_FATAL_FAILURE(Restart(options));
  PeerFlood flood = FloodWithoutReading(
      server_->port(), {.connections = 2, .bytes_per_connection = 64 << 20, .unit = "unread "});
  ASSERT_EQ(flood.connections.size(), 2u);
  for (const UniqueFd& fd : flood.connections) EXPECT_TRUE(ServerCloses(fd.get()));
  EXPECT_GE(server_->stats().connections_timed_out, 2u);
}

// The echo server over TLS on every model: three connections take turns sending bursts of the
// write-up's messages, each message its own record, and get every byte back in order.
TEST_P(EchoServerTest, TlsStreamsComeBackExactlyInOrder) {
  absl::StatusOr<std::unique_ptr<TlsServerContext>> tls = TlsServerContext::SelfSigned();
  ASSERT_TRUE(tls.ok()) << tls.status();
  ServerOptions options = DefaultOptions();
  options.tls = tls->get();
  ASSERT_NO_FATAL_FAILURE(Restart(options));
  absl::StatusOr<std::unique_ptr<TlsClientContext>> context =
      TlsClientContext::Create({.ca_pem = (*tls)->certificate_pem()});
  ASSERT_TRUE(context.ok()) << context.status();
  std::vector<std::unique_ptr<Transport>> clients;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<std::unique_ptr<Transport>> client =
        (*context)->Wrap(ConnectClient(), "127.0.0.1");
    ASSERT_TRUE(client.ok()) << client.status();
    clients.push_back(*std::move(client));
  }
  constexpr int kRounds = 20;
  constexpr int kBurst = 100;
  uint32_t sequence = 0;
  size_t total = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (auto& client : clients) {
      std::string sent;
      for (int i = 0; i < kBurst; ++i) {
        const std::string message = Message(sequence++);
        IoResult r = client->Write(message.data(), message.size());
        ASSERT_EQ(r.status, IoStatus::kOk) << r.message;
        ASSERT_EQ(r.bytes, message.size());
        sent += message;
      }
      std::string echoed(sent.size(), '\0');
      size_t got = 0;
      while (got < echoed.size()) {
        IoResult r = client->Read(echoed.data() + got, echoed.size() - got);
        ASSERT_EQ(r.status, IoStatus::kOk) << r.message;
        got += r.bytes;
      }
      ASSERT_EQ(echoed, sent);
      total += sent.size();
    }
  }
  // A client can read an echo before the server thread that wrote it has counted it: stop first
  // (TSan's pace showed it on uring, 129800 of 132000 counted).
  clients.clear();
  server_->Stop();
  EXPECT_EQ(server_->stats().bytes_written, total);
  EXPECT_EQ((*tls)->stats().handshakes, 3);
}

INSTANTIATE_TEST_SUITE_P(Models, EchoServerTest, testing::ValuesIn(AvailableServerModels()),
                         [](const testing::TestParamInfo<ServerModel>& info) {
                           return std::string(ServerModelName(info.param));
                         });

}  // namespace
}  // namespace netbench
