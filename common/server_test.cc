#include "common/server.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "common/byte_buffer.h"
#include "common/clock.h"
#include "common/platform.h"
#include "common/socket.h"
#include "common/tls.h"
#include "gtest/gtest.h"
#include "testing/open_descriptors.h"
#include "testing/scoped_fd_limit.h"
#include "testing/socket_io.h"

namespace netbench {
namespace {

// Shared by every connection of one test server.
struct Observer {
  size_t threshold = SIZE_MAX;
  std::atomic<bool> crossed{false};
  std::promise<void> crossed_promise;  // set once a connection's pending output passed `threshold`
};

// Echo, plus two commands used by single tests: "CLOSE" replies "bye" and closes, "DELAY" echoes
// after 2 ms. Payloads elsewhere are lower-case, so they never look like commands.
class TestHandler : public ConnectionHandler {
 public:
  explicit TestHandler(Observer* observer) : observer_(observer) {}

  HandlerResult OnData(absl::string_view input, ByteBuffer& output) override {
    HandlerResult result{.consumed = input.size()};
    if (absl::StartsWith(input, "CLOSE")) {
      output.Append("bye");
      result.close = true;
    } else if (absl::StartsWith(input, "DELAY")) {
      output.Append(input);
      result.send_not_before_nanos = MonotonicNanos() + 2 * kNanosPerMilli;
    } else {
      output.Append(input);
    }
    if (output.size() > observer_->threshold && !observer_->crossed.exchange(true)) {
      observer_->crossed_promise.set_value();
    }
    return result;
  }

  void OnPeerClosed(ByteBuffer& output) override { output.Append("."); }

 private:
  Observer* observer_;
};

std::string Pattern(size_t size, int seed) {
  std::string s(size, 'a');
  for (size_t i = 0; i < size; ++i) s[i] = static_cast<char>('a' + (i * 7 + seed) % 26);
  return s;
}

// Sends `message` from another thread while reading the echo here, so sizes beyond the socket
// buffers cannot deadlock.
std::string RoundTrip(int fd, const std::string& message) {
  std::thread writer([&] { EXPECT_TRUE(WriteAll(fd, message)); });
  std::string echo = ReadExactly(fd, message.size());
  writer.join();
  return echo;
}

// Waits, yielding (never sleeping), until `server` has closed every connection it accepted. Each
// model closes a connection's socket before it counts it closed, so the descriptor is free then.
void AwaitNoOpenConnections(const Server& server) {
  while (true) {
    ServerStats stats = server.stats();
    if (stats.connections_closed >= stats.connections_accepted) return;
    std::this_thread::yield();
  }
}

// A client socket, not yet connected, numbered `floor` or above: opened while the limit is as the
// process started, it then holds none of the descriptors below a limit lowered to `floor`, which
// are left to the server under test, and connecting needs no new one.
UniqueFd ClientSocketAtOrAbove(int floor) {
  UniqueFd low(OpenStreamSocket(AF_INET, /*non_blocking=*/false));
  if (!low.valid()) return UniqueFd();
  return UniqueFd(fcntl(low.get(), F_DUPFD_CLOEXEC, floor));
}

enum class Fate { kServed, kRefused, kWaiting };

// Says "x" on a connected client and waits for the echo (served) or for the server to close the
// connection (EOF, or a reset since "x" came to a closed socket: refused). kWaiting: neither came
// in `guard_seconds`, the connection was left in the backlog. A hang guard, not a timing check.
Fate ServedOrRefused(int client, int guard_seconds = 60) {
  WriteAll(client, "x");  // fails, harmlessly, if the reset is here already
  pollfd entry{client, POLLIN, 0};
  int ready;
  do {
    ready = poll(&entry, 1, guard_seconds * 1000);
  } while (ready < 0 && errno == EINTR);
  if (ready == 0) return Fate::kWaiting;
  char byte = 0;
  ssize_t n = recv(client, &byte, 1, 0);
  if (n == 1 && byte == 'x') return Fate::kServed;
  EXPECT_TRUE(n == 0 || (n < 0 && errno == ECONNRESET)) << "read " << n << ", errno " << errno;
  return Fate::kRefused;
}

class ServerTest : public testing::TestWithParam<ServerModel> {
 protected:
  void StartServer(ServerOptions options = {}) {
    options.port = 0;
    options.model = GetParam();
    absl::StatusOr<std::unique_ptr<Server>> server =
        Server::Start(options, [this] { return std::make_unique<TestHandler>(&observer_); });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  UniqueFd ConnectClient() {
    absl::StatusOr<UniqueFd> fd = Connect("127.0.0.1", server_->port());
    EXPECT_TRUE(fd.ok()) << fd.status();
    return fd.ok() ? *std::move(fd) : UniqueFd();
  }

  void ExpectEcho(int fd, const std::string& message) {
    EXPECT_EQ(RoundTrip(fd, message), message);
  }

  // A TLS client of the server that trusts `tls`'s certificate, its handshake done; null (with the
  // failure recorded) if any step failed.
  std::unique_ptr<Transport> ConnectTlsClient(const TlsServerContext& tls) {
    if (tls_client_context_ == nullptr) {
      absl::StatusOr<std::unique_ptr<TlsClientContext>> context =
          TlsClientContext::Create({.ca_pem = tls.certificate_pem()});
      EXPECT_TRUE(context.ok()) << context.status();
      if (!context.ok()) return nullptr;
      tls_client_context_ = *std::move(context);
    }
    absl::StatusOr<std::unique_ptr<Transport>> client =
        tls_client_context_->Wrap(ConnectClient(), "127.0.0.1");
    EXPECT_TRUE(client.ok()) << client.status();
    if (!client.ok()) return nullptr;
    IoResult handshake = (*client)->Handshake();
    EXPECT_EQ(handshake.status, IoStatus::kOk) << handshake.message;
    if (handshake.status != IoStatus::kOk) return nullptr;
    return *std::move(client);
  }

  Observer observer_;
  std::unique_ptr<TlsClientContext> tls_client_context_;
  std::unique_ptr<Server> server_;
};

TEST_P(ServerTest, EchoesMessagesFromOneByteToOneMebibyte) {
  StartServer();
  UniqueFd client = ConnectClient();
  int seed = 0;
  for (size_t size : {1, 2, 22, 1000, 4096, 65535, 65536, 65537, 300000, 1 << 20}) {
    ExpectEcho(client.get(), Pattern(size, ++seed));
  }
  client.reset();
  server_->Stop();
  ServerStats stats = server_->stats();
  EXPECT_EQ(stats.connections_accepted, 1u);
  EXPECT_EQ(stats.connections_closed, 1u);
  uint64_t sent = 1 + 2 + 22 + 1000 + 4096 + 65535 + 65536 + 65537 + 300000 + (1 << 20);
  EXPECT_EQ(stats.bytes_read, sent);
  EXPECT_GE(stats.bytes_written, sent);  // and perhaps the "." of OnPeerClosed
}

TEST_P(ServerTest, ServesManyClientsAtOnce) {
  StartServer();
  constexpr int kClients = 16;
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([this, c] {
      UniqueFd fd = ConnectClient();
      for (int i = 0; i < 50; ++i) {
        std::string message = Pattern(1 + (c * 131 + i * 17) % 3000, c + i);
        ASSERT_TRUE(WriteAll(fd.get(), message));
        ASSERT_EQ(ReadExactly(fd.get(), message.size()), message);
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(server_->stats().connections_accepted, static_cast<uint64_t>(kClients));
}

TEST_P(ServerTest, SeveralLoopsShareOnePort) {
  StartServer({.threads = 3});
  std::vector<UniqueFd> clients;
  for (int c = 0; c < 12; ++c) clients.push_back(ConnectClient());
  for (int c = 0; c < 12; ++c) ExpectEcho(clients[c].get(), Pattern(100, c));
}

TEST_P(ServerTest, HalfClosedClientGetsItsEchoThenEof) {
  StartServer();
  UniqueFd client = ConnectClient();
  std::string message = Pattern(100000, 3);
  ASSERT_TRUE(WriteAll(client.get(), message));
  ASSERT_EQ(shutdown(client.get(), SHUT_WR), 0);
  int error = -1;
  // The handler's OnPeerClosed appends "." after the echo; then the server closes.
  EXPECT_EQ(ReadToEnd(client.get(), &error), message + ".");
  EXPECT_EQ(error, 0);
}

TEST_P(ServerTest, ResetMidMessageLeavesOthersServed) {
  StartServer();
  UniqueFd steady = ConnectClient();
  ExpectEcho(steady.get(), "before");
  {
    UniqueFd resetting = ConnectClient();
    ASSERT_TRUE(WriteAll(resetting.get(), Pattern(200000, 1)));
    linger hard{.l_onoff = 1, .l_linger = 0};  // close() now sends RST
    ASSERT_EQ(setsockopt(resetting.get(), SOL_SOCKET, SO_LINGER, &hard, sizeof(hard)), 0);
  }
  ExpectEcho(steady.get(), "after");
  UniqueFd fresh = ConnectClient();
  ExpectEcho(fresh.get(), "fresh");
}

TEST_P(ServerTest, ThousandConnectDisconnectCycles) {
  StartServer();
  for (int i = 0; i < 1000; ++i) {
    UniqueFd client = ConnectClient();
    ASSERT_TRUE(client.valid());
    ASSERT_TRUE(WriteAll(client.get(), "x"));
    ASSERT_EQ(ReadExactly(client.get(), 1), "x");
  }
  UniqueFd last = ConnectClient();
  ExpectEcho(last.get(), "still serving");
  EXPECT_EQ(server_->stats().connections_accepted, 1001u);
}

// Out of descriptors, a server refuses what it cannot hold: the peer sees its connection closed,
// instead of waiting in the backlog; the server does not spin on its listener meanwhile, and serves
// again once descriptors free up. RLIMIT_NOFILE is lowered to leave the server kRoom descriptors
// (and whatever holes lie below); the clients sit above the limit, so they take none of them.
TEST_P(ServerTest, OutOfDescriptorsRefusesTheExcessAndServesAgainOnceTheyFree) {
  StartServer();
  const std::vector<int> idle = OpenDescriptors();
  ASSERT_FALSE(idle.empty());
  constexpr int kRoom = 16;
  constexpr int kExcess = 16;
  const int limit = idle.back() + 1 + kRoom;
  const int room = limit - static_cast<int>(idle.size());  // every idle descriptor is below it
  const int flood = room + kExcess;
  std::vector<UniqueFd> clients;
  for (int i = 0; i < flood; ++i) {
    clients.push_back(ClientSocketAtOrAbove(limit));
    ASSERT_TRUE(clients.back().valid()) << "socket " << i << ": errno " << errno;
  }
  UniqueFd latecomer = ClientSocketAtOrAbove(limit);
  ASSERT_TRUE(latecomer.valid());
  const SocketAddress& address = server_->address();
  std::vector<int> served;
  size_t refused = 0;
  {
    ScopedFdLimit lowered(limit);
    ASSERT_TRUE(lowered.ok()) << "setrlimit(RLIMIT_NOFILE)";
    // The flood: every connect completes in the kernel whatever the server does.
    for (int i = 0; i < flood; ++i) {
      ASSERT_EQ(connect(clients[i].get(), address.get(), address.length), 0)
          << "client " << i << ": errno " << errno;
    }
    for (int i = 0; i < flood; ++i) {
      switch (ServedOrRefused(clients[i].get())) {
        case Fate::kServed:
          served.push_back(i);
          break;
        case Fate::kRefused:
          ++refused;
          break;
        case Fate::kWaiting:
          FAIL() << "client " << i << " of " << flood << " neither served nor refused ("
                 << served.size() << " served, " << refused << " refused before it)";
      }
    }
    const ServerStats stats = server_->stats();
    std::printf(
        "%s: limit %d (room for %d), flood of %d: %zu served, %zu refused, %llu accept(2) "
        "calls\n",
        ServerModelName(GetParam()), limit, room, flood, served.size(), refused,
        static_cast<unsigned long long>(stats.accept_calls));
    EXPECT_EQ(served.size() + refused, static_cast<size_t>(flood));
    EXPECT_GE(refused, static_cast<size_t>(kExcess));
    EXPECT_LE(served.size(), static_cast<size_t>(room));
    EXPECT_GE(served.size(), 1u);
    EXPECT_EQ(stats.connections_refused, refused);
    EXPECT_EQ(stats.connections_accepted, served.size());
    // Never spins: a connection costs one accept(2), a refused one two, and each wakeup of an event
    // loop's listener (at most one per connection) ends with one that finds nothing, two when out
    // of descriptors (accept(2) then fails before it looks, and the spare's finds nothing).
    EXPECT_LE(stats.accept_calls, 3 * served.size() + 4 * refused);
    for (int i : served) ExpectEcho(clients[i].get(), "still served");

    // The served leave; once the server has closed its side of each, a newcomer is served.
    for (int i : served) {
      ASSERT_EQ(shutdown(clients[i].get(), SHUT_WR), 0);
      EXPECT_EQ(ReadToEnd(clients[i].get()), ".");  // OnPeerClosed's last word
    }
    AwaitNoOpenConnections(*server_);
    ASSERT_EQ(connect(latecomer.get(), address.get(), address.length), 0) << errno;
    ExpectEcho(latecomer.get(), "served again");
    EXPECT_EQ(server_->stats().connections_refused, refused);
    // The poll model watched no more descriptors than it may hold: its poll(2) never failed.
    EXPECT_TRUE(server_->status().ok()) << server_->status();
  }
  clients.clear();
  latecomer.reset();
  AwaitNoOpenConnections(*server_);
  const std::vector<int> after = OpenDescriptors();
  std::printf("%s: %zu descriptors open idle, %zu after\n", ServerModelName(GetParam()),
              idle.size(), after.size());
  EXPECT_EQ(after, idle);
}

TEST_P(ServerTest, ClientThatNeverReadsIsBoundedAndOthersAreServed) {
  constexpr size_t kMaxPending = 256 * 1024;
  constexpr size_t kReadSize = 16 * 1024;
  observer_.threshold = kMaxPending;
  std::future<void> crossed = observer_.crossed_promise.get_future();
  StartServer({.read_size = kReadSize, .max_pending_output = kMaxPending});
  UniqueFd stuck = ConnectClient();
  // Far more than every socket buffer on the way holds: without backpressure the server would
  // buffer most of it.
  constexpr size_t kTotal = 64 << 20;
  std::atomic<size_t> written{0};
  std::thread writer([&] {
    std::string chunk = Pattern(64 * 1024, 5);
    while (written.load() < kTotal) {
      ssize_t n = SendNoSignal(stuck.get(), chunk.data(), chunk.size());
      if (n <= 0) return;  // shut down below
      written += n;
    }
  });
  if (GetParam() != ServerModel::kThreads) {
    // The event-loop models buffer output: wait until it passed the limit, where they must stop.
    crossed.wait();
  }
  UniqueFd other = ConnectClient();
  for (int i = 0; i < 20; ++i) ExpectEcho(other.get(), Pattern(100000, i));
  ServerStats stats = server_->stats();
  EXPECT_LE(stats.peak_pending_output, kMaxPending + kReadSize);
  if (GetParam() != ServerModel::kThreads) {
    EXPECT_GE(stats.read_pauses, 1u);
  }
  shutdown(stuck.get(), SHUT_RDWR);  // unblocks the writer
  writer.join();
  EXPECT_LT(written.load(), kTotal);
  EXPECT_LE(server_->stats().peak_pending_output, kMaxPending + kReadSize);
}

TEST_P(ServerTest, RejectsConnectionsOverMaxConnections) {
  StartServer({.max_connections = 2});
  UniqueFd first = ConnectClient();
  UniqueFd second = ConnectClient();
  ExpectEcho(first.get(), "one");
  ExpectEcho(second.get(), "two");
  UniqueFd third = ConnectClient();
  // Accepted by the kernel, then closed by the server: EOF, or a reset if our byte arrived first.
  WriteAll(third.get(), "three");
  int error = -1;
  EXPECT_EQ(ReadToEnd(third.get(), &error), "");
  EXPECT_TRUE(error == 0 || error == ECONNRESET) << error;
  EXPECT_EQ(server_->stats().connections_rejected, 1u);
  ExpectEcho(first.get(), "still one");
}

TEST_P(ServerTest, HandlerCloseAndDelayedReply) {
  StartServer();
  UniqueFd delayed = ConnectClient();
  ExpectEcho(delayed.get(), "DELAY me");
  ExpectEcho(delayed.get(), "DELAY me again");
  UniqueFd closing = ConnectClient();
  ASSERT_TRUE(WriteAll(closing.get(), "CLOSE"));
  int error = -1;
  EXPECT_EQ(ReadToEnd(closing.get(), &error), "bye");
  EXPECT_EQ(error, 0);
}

TEST_P(ServerTest, StopClosesOpenConnections) {
  StartServer();
  std::vector<UniqueFd> clients;
  for (int c = 0; c < 5; ++c) {
    clients.push_back(ConnectClient());
    ExpectEcho(clients.back().get(), "hi");
  }
  // One client is mid-message, with its echo unread.
  ASSERT_TRUE(WriteAll(clients[0].get(), Pattern(100000, 9)));
  server_->Stop();
  server_->Stop();  // idempotent
  for (UniqueFd& client : clients) {
    int error = -1;
    ReadToEnd(client.get(), &error);
    EXPECT_TRUE(error == 0 || error == ECONNRESET) << error;
  }
  ServerStats stats = server_->stats();
  EXPECT_EQ(stats.connections_accepted, 5u);
  EXPECT_EQ(stats.connections_closed, 5u);
  EXPECT_FALSE(Connect("127.0.0.1", server_->port()).ok());
}

// Drives a blocking client transport to completion of `r`'s wish; false on failure.
bool ClientTlsRoundTrip(Transport& client, const std::string& message) {
  absl::string_view rest = message;
  while (!rest.empty()) {
    IoResult r = client.Write(rest.data(), rest.size());
    if (r.status != IoStatus::kOk) return false;
    rest.remove_prefix(r.bytes);
  }
  std::string echo(message.size(), '\0');
  size_t got = 0;
  while (got < echo.size()) {
    IoResult r = client.Read(echo.data() + got, echo.size() - got);
    if (r.status != IoStatus::kOk) return false;
    got += r.bytes;
  }
  return echo == message;
}

// ClientThatNeverReadsIsBoundedAndOthersAreServed over TLS: the output bound holds there too (uring
// writes a TLS connection's replies at the end of the pass, so a turn's replies gather first).
TEST_P(ServerTest, TlsClientThatNeverReadsIsBoundedAndOthersAreServed) {
  constexpr size_t kMaxPending = 256 * 1024;
  constexpr size_t kReadSize = 16 * 1024;
  absl::StatusOr<std::unique_ptr<TlsServerContext>> tls = TlsServerContext::SelfSigned();
  ASSERT_TRUE(tls.ok()) << tls.status();
  observer_.threshold = kMaxPending;
  std::future<void> crossed = observer_.crossed_promise.get_future();
  StartServer({.read_size = kReadSize, .max_pending_output = kMaxPending, .tls = tls->get()});
  std::unique_ptr<Transport> stuck = ConnectTlsClient(**tls);
  ASSERT_NE(stuck, nullptr);
  constexpr size_t kTotal = 64 << 20;
  std::atomic<size_t> written{0};
  std::thread writer([&] {
    std::string chunk = Pattern(16 * 1024, 5);
    while (written.load() < kTotal) {
      IoResult r = stuck->Write(chunk.data(), chunk.size());
      if (r.status != IoStatus::kOk) return;  // shut down below
      written += r.bytes;
    }
  });
  if (GetParam() != ServerModel::kThreads) crossed.wait();
  std::unique_ptr<Transport> other = ConnectTlsClient(**tls);
  ASSERT_NE(other, nullptr);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(ClientTlsRoundTrip(*other, Pattern(100000, i)));
  ServerStats stats = server_->stats();
  EXPECT_LE(stats.peak_pending_output, kMaxPending + kReadSize);
  if (GetParam() != ServerModel::kThreads) EXPECT_GE(stats.read_pauses, 1u);
  shutdown(stuck->fd(), SHUT_RDWR);  // unblocks the writer
  writer.join();
  EXPECT_LT(written.load(), kTotal);
  EXPECT_LE(server_->stats().peak_pending_output, kMaxPending + kReadSize);
}

TEST_P(ServerTest, EchoesOverTls) {
  absl::StatusOr<std::unique_ptr<TlsServerContext>> tls = TlsServerContext::SelfSigned();
  ASSERT_TRUE(tls.ok()) << tls.status();
  StartServer({.tls = tls->get()});
  for (int c = 0; c < 3; ++c) {
    std::unique_ptr<Transport> client = ConnectTlsClient(**tls);
    ASSERT_NE(client, nullptr);
    // Up to 60 KB: the client is one blocking thread, so the echo must fit in the socket buffers
    // while it is still writing.
    for (size_t size : {1, 22, 1000, 16385, 60000}) {
      EXPECT_TRUE(ClientTlsRoundTrip(*client, Pattern(size, c))) << size;
    }
    // A burst of small records, each its own write: the server's TLS library may take several off
    // the socket at once, and must still hand every one of them to the handler.
    std::string burst;
    for (int i = 0; i < 50; ++i) {
      std::string record = Pattern(7, i);
      ASSERT_EQ(client->Write(record.data(), record.size()).status, IoStatus::kOk);
      burst += record;
    }
    std::string echo(burst.size(), '\0');
    for (size_t got = 0; got < echo.size();) {
      IoResult r = client->Read(echo.data() + got, echo.size() - got);
      ASSERT_EQ(r.status, IoStatus::kOk) << r.message;
      got += r.bytes;
    }
    EXPECT_EQ(echo, burst);
    client->ShutdownWrite();
    char byte = 0;
    EXPECT_EQ(client->Read(&byte, 1).status, IoStatus::kOk);
    EXPECT_EQ(byte, '.');  // OnPeerClosed's last word, then the server's close_notify
    EXPECT_EQ(client->Read(&byte, 1).status, IoStatus::kEof);
  }
  server_->Stop();
  EXPECT_EQ(server_->stats().connections_closed, 3u);
  EXPECT_GE((*tls)->stats().handshakes, 3);
}

// A TLS peer that never completes its handshake, sending nothing or trickling a ClientHello record,
// is closed by the head timeout (no idle timeout here: nothing else would close it), and a client
// whose handshake completes is served meanwhile.
TEST_P(ServerTest, UnfinishedTlsHandshakesAreClosedByTheHeadTimeout) {
  absl::StatusOr<std::unique_ptr<TlsServerContext>> tls = TlsServerContext::SelfSigned();
  ASSERT_TRUE(tls.ok()) << tls.status();
  StartServer({.head_timeout_nanos = 300 * kNanosPerMilli, .tls = tls->get()});
  UniqueFd silent = ConnectClient();
  UniqueFd trickling = ConnectClient();
  // A handshake record header announcing 16,000 bytes, then its body: over 5 minutes at the
  // trickle's pace, so only the timeout can end it.
  std::string record = std::string("\x16\x03\x01\x3e\x80", 5) + std::string(16000, '\x01');
  std::thread trickler(TrickleUntilClosed, trickling.get(), record, 20);
  std::unique_ptr<Transport> client = ConnectTlsClient(**tls);
  ASSERT_NE(client, nullptr);
  EXPECT_TRUE(ClientTlsRoundTrip(*client, "still served"));
  EXPECT_TRUE(ServerCloses(silent.get()));
  EXPECT_TRUE(ServerCloses(trickling.get()));
  trickler.join();
  EXPECT_GE(server_->stats().connections_timed_out, 2u);
  // The one whose handshake completed outlives the timeout: it is still served after the others.
  EXPECT_TRUE(ClientTlsRoundTrip(*client, "and still"));
}

// Echoes a head once it is whole (up to a blank line), and awaits the rest of one that began.
class HeadHandler : public ConnectionHandler {
 public:
  HandlerResult OnData(absl::string_view input, ByteBuffer& output) override {
    const size_t end = input.find("\r\n\r\n");
    awaiting_ = end == absl::string_view::npos && !input.empty();
    if (awaiting_) return {.consumed = 0};
    output.Append(input.substr(0, end + 4));
    return {.consumed = end + 4};
  }
  bool AwaitingHead() const override { return awaiting_; }

 private:
  bool awaiting_ = false;
};

// A TLS peer whose handshake is done and whose head began, then trickles a record (a TLS library
// waits for a whole record before it hands out a byte): closed at the head timeout on every model,
// the threads model included, whose thread must not wait inside the TLS library's read; another
// client is served meanwhile and after.
TEST_P(ServerTest, ATlsPeerTricklingARecordOfItsHeadIsClosedAtTheHeadTimeout) {
  absl::StatusOr<std::unique_ptr<TlsServerContext>> tls = TlsServerContext::SelfSigned();
  ASSERT_TRUE(tls.ok()) << tls.status();
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start({.port = 0,
                     .model = GetParam(),
                     .head_timeout_nanos = 300 * kNanosPerMilli,
                     .tls = tls->get()},
                    [] { return std::make_unique<HeadHandler>(); });
  ASSERT_TRUE(server.ok()) << server.status();
  server_ = *std::move(server);
  std::unique_ptr<Transport> trickling = ConnectTlsClient(**tls);
  ASSERT_NE(trickling, nullptr);
  const std::string begun = "GET / HTTP/1.1\r\n";
  ASSERT_EQ(trickling->Write(begun.data(), begun.size()).status, IoStatus::kOk);
  // An application-data record header announcing 16,000 bytes, then its body at 20 ms a byte:
  // over 5 minutes, so only the head timeout can end it.
  std::string record = std::string("\x17\x03\x03\x3e\x80", 5) + std::string(16000, '\x01');
  std::thread trickler(TrickleUntilClosed, trickling->fd(), record, 20);
  std::unique_ptr<Transport> client = ConnectTlsClient(**tls);
  ASSERT_NE(client, nullptr);
  EXPECT_TRUE(ClientTlsRoundTrip(*client, "GET /a HTTP/1.1\r\n\r\n"));
  EXPECT_TRUE(ServerCloses(trickling->fd()));
  trickler.join();
  EXPECT_EQ(server_->stats().connections_timed_out, 1u);
  EXPECT_TRUE(ClientTlsRoundTrip(*client, "GET /b HTTP/1.1\r\n\r\n"));
}

// The system refuses a mapping of 512 KiB or more, as it does at vm.max_map_count or RLIMIT_AS.
void* RefuseLargeMaps(size_t length) {
  if (length >= (512 << 10)) {
    errno = ENOMEM;
    return nullptr;
  }
  void* mapped = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return mapped == MAP_FAILED ? nullptr : mapped;
}

// A peer whose head grows its connection's input buffer past what the system will map: that
// connection alone is closed and counted, and the server goes on serving another client.
TEST_P(ServerTest, ABufferTheSystemRefusesToMapClosesOnlyItsConnection) {
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start({.port = 0, .model = GetParam(), .max_pending_input = 4 << 20},
                    [] { return std::make_unique<HeadHandler>(); });
  ASSERT_TRUE(server.ok()) << server.status();
  server_ = *std::move(server);
  internal::SetByteBufferMapForTesting(RefuseLargeMaps);
  UniqueFd served = ConnectClient();
  ExpectEcho(served.get(), "GET /a HTTP/1.1\r\n\r\n");
  UniqueFd greedy = ConnectClient();
  // 1 MiB of a head that never ends: the input buffer doubles to 512 KiB on the way.
  std::thread writer([fd = greedy.get()] { WriteAll(fd, std::string(1 << 20, 'h')); });
  EXPECT_TRUE(ServerCloses(greedy.get()));
  writer.join();
  ExpectEcho(served.get(), "GET /b HTTP/1.1\r\n\r\n");
  internal::SetByteBufferMapForTesting(nullptr);
  EXPECT_EQ(server_->stats().connections_out_of_memory, 1u);
  server_->Stop();
  EXPECT_TRUE(
      absl::StrContains(DescribeServerStop(2, 1.0, server_->stats()), ", 1 closed out of memory"));
}

// A burst of small records, sent in one go (corked), against reads of 5 bytes and an output limit
// of 16 bytes: the server's TLS transport takes many records off the socket in one recv, so most of
// the burst is input the socket no longer signals. It must be read in turns of 5 bytes (event-loop
// models: from the worker's backlog) and across a backpressure pause (the burst starts with DELAY,
// whose echo is held while the next replies pile up over the limit; reading resumes after the
// flush, with no fd event), and still all be echoed.
TEST_P(ServerTest, TlsInputHeldByTheTransportIsServedInTurnsAndAcrossBackpressure) {
  absl::StatusOr<std::unique_ptr<TlsServerContext>> tls = TlsServerContext::SelfSigned();
  ASSERT_TRUE(tls.ok()) << tls.status();
  StartServer({.read_size = 5, .max_pending_output = 16, .tls = tls->get()});
  std::unique_ptr<Transport> client = ConnectTlsClient(**tls);
  ASSERT_NE(client, nullptr);
  const int fd = client->fd();
  int on = 1, off = 0;
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on)), 0);
    std::string burst = "DELAY";
    ASSERT_EQ(client->Write(burst.data(), burst.size()).status, IoStatus::kOk);
    for (int i = 0; i < 100; ++i) {
      std::string record = Pattern(1 + i % 23, round * 100 + i);
      ASSERT_EQ(client->Write(record.data(), record.size()).status, IoStatus::kOk);
      burst += record;
    }
    ASSERT_EQ(setsockopt(fd, IPPROTO_TCP, TCP_CORK, &off, sizeof(off)), 0);
    std::string echo(burst.size(), '\0');
    for (size_t got = 0; got < echo.size();) {
      IoResult r = client->Read(echo.data() + got, echo.size() - got);
      ASSERT_EQ(r.status, IoStatus::kOk) << r.message;
      got += r.bytes;
    }
    EXPECT_EQ(echo, burst) << "round " << round;
  }
  client->ShutdownWrite();
  char byte = 0;
  EXPECT_EQ(client->Read(&byte, 1).status, IoStatus::kOk);
  EXPECT_EQ(byte, '.');
  server_->Stop();
  EXPECT_TRUE(server_->status().ok()) << server_->status();
  // Only the event-loop models pause reading; a connection's thread just waits for its write.
  if (GetParam() != ServerModel::kThreads) {
    EXPECT_GT(server_->stats().read_pauses, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ServerTest, testing::ValuesIn(AvailableServerModels()),
                         [](const testing::TestParamInfo<ServerModel>& info) {
                           return std::string(ServerModelName(info.param));
                         });

// A thread per connection: 10,000 connections come and go, every other one saying something and
// closing, the rest closing at once with a reset, and the server is left with exactly the
// descriptors it held idle (every connection thread has closed its socket).
TEST(ThreadModelTest, TenThousandConnectCloseCyclesLeaveTheIdleDescriptors) {
  Observer observer;
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start({.port = 0, .model = ServerModel::kThreads},
                    [&observer] { return std::make_unique<TestHandler>(&observer); });
  ASSERT_TRUE(server.ok()) << server.status();
  const std::vector<int> idle = OpenDescriptors();
  constexpr int kCycles = 10000;
  for (int i = 0; i < kCycles; ++i) {
    absl::StatusOr<UniqueFd> client = Connect((*server)->address());
    ASSERT_TRUE(client.ok()) << "cycle " << i << ": " << client.status();
    // The last one talks: every connection before it has been accepted once it is answered.
    if (i % 2 == 1 || i == kCycles - 1) {
      ASSERT_TRUE(WriteAll(client->get(), "x"));
      ASSERT_EQ(ReadExactly(client->get(), 1), "x") << "cycle " << i;
    } else {
      linger hard{.l_onoff = 1, .l_linger = 0};  // close() now sends RST
      ASSERT_EQ(setsockopt(client->get(), SOL_SOCKET, SO_LINGER, &hard, sizeof(hard)), 0);
    }
  }
  AwaitNoOpenConnections(**server);
  const ServerStats stats = (*server)->stats();
  const std::vector<int> after = OpenDescriptors();
  std::printf(
      "threads: %d cycles, %llu accepted, %llu closed; %zu descriptors open idle, %zu "
      "after\n",
      kCycles, static_cast<unsigned long long>(stats.connections_accepted),
      static_cast<unsigned long long>(stats.connections_closed), idle.size(), after.size());
  EXPECT_EQ(after, idle);
  EXPECT_EQ(stats.connections_refused, 0u);
  EXPECT_TRUE((*server)->status().ok()) << (*server)->status();
}

// The poll model's loop watches its wake-up pipe and its listener; with RLIMIT_NOFILE lowered to 1,
// its next poll(2) fails with EINVAL, as every one after it would. The server must not spin on it:
// the loop stops, and ServeUntilTerminated, waiting for a signal, returns the error at once so that
// a server program exits non-zero.
TEST(ServerFailureTest, PollModelLoopErrorStopsTheLoopAndEndsServeUntilTerminated) {
  sigset_t previous_mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &previous_mask);
  Observer observer;
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start({.port = 0, .model = ServerModel::kPoll},
                    [&observer] { return std::make_unique<TestHandler>(&observer); });
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_TRUE((*server)->status().ok());
  // The socket exists before the limit drops; connecting to the listener wakes the loop.
  int client = OpenStreamSocket(AF_INET, /*non_blocking=*/false);
  ASSERT_GE(client, 0);
  absl::StatusOr<std::string> stop;
  {
    ScopedFdLimit limit(1);
    ASSERT_TRUE(limit.ok()) << "setrlimit(RLIMIT_NOFILE)";
    // Refused instead, if the loop had failed already (it closes its listener): fine either way.
    (void)connect(client, (*server)->address().get(), (*server)->address().length);
    stop = ServeUntilTerminated(**server);
  }
  close(client);
  pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  ASSERT_FALSE(stop.ok());
  EXPECT_EQ(stop.status(), (*server)->status());
  EXPECT_EQ(stop.status().code(), absl::StatusCode::kInvalidArgument) << stop.status();
  EXPECT_TRUE(absl::StrContains(stop.status().message(), "poll event loop failed"))
      << stop.status();
  EXPECT_TRUE(absl::StrContains(stop.status().message(), "[EINVAL]")) << stop.status();
}

TEST(ServerModelTest, ParsesNamesAndRejectsBadOptions) {
  EXPECT_EQ(*ParseServerModel("threads"), ServerModel::kThreads);
  EXPECT_FALSE(ParseServerModel("fibers").ok());
  std::string error;
  ServerModel model;
  EXPECT_FALSE(AbslParseFlag("fibers", &model, &error));
  EXPECT_NE(error.find("threads"), std::string::npos);
  auto factory = [] { return std::unique_ptr<ConnectionHandler>(); };
  EXPECT_FALSE(Server::Start({.threads = 0}, factory).ok());
  EXPECT_FALSE(Server::Start({.port = 70000}, factory).ok());
}

TEST(ServerModelTest, EpollIsAModelExactlyWhereItIsBuilt) {
  const std::vector<ServerModel> models = AvailableServerModels();
  EXPECT_EQ(models.size(), (kHasEpoll ? 3u : 2u) + (UringSupport().ok() ? 1u : 0u));
  EXPECT_NE(std::find(models.begin(), models.end(), DefaultServerModel()), models.end());
  absl::StatusOr<ServerModel> epoll = ParseServerModel("epoll");
  EXPECT_EQ(epoll.ok(), kHasEpoll);
  if (!kHasEpoll) {
    EXPECT_TRUE(absl::StrContains(epoll.status().message(), "not built on this platform"))
        << epoll.status();
    EXPECT_EQ(DefaultServerModel(), ServerModel::kPoll);
  }
}

// uring is a model where it is built and the kernel lets this process use io_uring; elsewhere
// Server::Start says why not. (uring_probe_test forces the probe to fail.)
TEST(ServerModelTest, UringIsAModelExactlyWhereItIsBuiltAndAllowed) {
  const std::vector<ServerModel> models = AvailableServerModels();
  const bool listed = std::find(models.begin(), models.end(), ServerModel::kUring) != models.end();
  EXPECT_EQ(listed, UringSupport().ok());
  EXPECT_EQ(ParseServerModel("uring").ok(), kHasEpoll);
  if (!kHasEpoll) {
    EXPECT_TRUE(absl::StrContains(UringSupport().message(), "not built on this platform"))
        << UringSupport();
  }
  if (!listed) {
    auto factory = [] { return std::unique_ptr<ConnectionHandler>(); };
    absl::StatusOr<std::unique_ptr<Server>> server =
        Server::Start({.model = ServerModel::kUring}, factory);
    ASSERT_FALSE(server.ok());
    EXPECT_EQ(server.status(), UringSupport());
  }
}

// The uring model serves TLS (its connections are driven through the transport, the ring telling
// them when their socket is ready) and refuses a buffer count its ring cannot take.
TEST(ServerModelTest, UringServesTlsAndRefusesBadBufferCounts) {
  if (!UringSupport().ok()) GTEST_SKIP() << UringSupport();
  absl::StatusOr<std::unique_ptr<TlsServerContext>> tls = TlsServerContext::SelfSigned();
  ASSERT_TRUE(tls.ok()) << tls.status();
  Observer observer;
  auto factory = [&observer] { return std::make_unique<TestHandler>(&observer); };
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start({.port = 0, .model = ServerModel::kUring, .tls = tls->get()}, factory);
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<std::unique_ptr<TlsClientContext>> client_context =
      TlsClientContext::Create({.ca_pem = (*tls)->certificate_pem()});
  ASSERT_TRUE(client_context.ok()) << client_context.status();
  absl::StatusOr<UniqueFd> fd = Connect("127.0.0.1", (*server)->port());
  ASSERT_TRUE(fd.ok()) << fd.status();
  absl::StatusOr<std::unique_ptr<Transport>> client =
      (*client_context)->Wrap(*std::move(fd), "127.0.0.1");
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_TRUE(ClientTlsRoundTrip(**client, "served over TLS"));
  EXPECT_EQ((*tls)->stats().handshakes, 1);
  server = Server::Start({.model = ServerModel::kUring, .uring_buffers = 100}, factory);
  ASSERT_FALSE(server.ok());
  EXPECT_TRUE(absl::StrContains(server.status().message(), "power of two")) << server.status();
}

TEST(ServerModelTest, SaysWhenLoopsShareOneListener) {
  EXPECT_EQ(ConnectionSpreadNote({.model = ServerModel::kPoll, .threads = 4}).empty(),
            kReusePortSpreadsConnections);
  EXPECT_EQ(ConnectionSpreadNote({.model = ServerModel::kPoll, .threads = 1}), "");
  EXPECT_EQ(ConnectionSpreadNote({.model = ServerModel::kThreads, .threads = 4}), "");
}

}  // namespace
}  // namespace netbench
