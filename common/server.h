// A TCP server that runs any ConnectionHandler on one of three concurrency models, chosen by a
// flag:
//
//   threads  one std::thread per connection, blocking I/O (the goroutine-per-connection analogue)
//   poll     event loops on poll(2), portable POSIX
//   epoll    event loops on Linux's epoll, a batch of events per wakeup (built on Linux only)
//   uring    loops on io_uring: standing receives into lent buffers, every send and re-arm of a
//            pass submitted by the one system call that waits (Linux 6.1 on; uring_server.cc)
//
// The event-loop models run `threads` loops. On Linux each loop owns a listening socket bound with
// SO_REUSEPORT, so the kernel spreads connections over the loops. Elsewhere SO_REUSEPORT does not
// spread them (platform.h), so the loops share one listening socket: every loop wakes for a new
// connection and the first to accept it serves it, which keeps all loops busy but balances nothing;
// ConnectionSpreadNote says so for a program to print.
//
// Out of descriptors (RLIMIT_NOFILE), every model refuses what it cannot hold: it accepts the
// connection into a descriptor kept spare for this and closes it at once, so that the peer sees EOF
// (or a reset) at once rather than waiting in the backlog, counts it (connections_refused), and
// accepts again as soon as a connection closes. Should even the spare's slot be taken, it stops
// accepting for 10 ms at a time (the connections wait in the backlog meanwhile), never spinning.
//
//   absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(
//       {.port = 0, .model = ServerModel::kEpoll},
//       [] { return std::make_unique<EchoHandler>(); });
//   Connect("127.0.0.1", (*server)->port());
//   ...
//   (*server)->Stop();  // also done by the destructor
//
// Start() returns once the server accepts connections; the server runs on its own threads, so tests
// run it in process on port 0.
#ifndef NETBENCH_COMMON_SERVER_H_
#define NETBENCH_COMMON_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/connection_handler.h"
#include "common/socket.h"

namespace netbench {

class TlsServerContext;  // common/tls.h

enum class ServerModel { kThreads, kPoll, kEpoll, kUring };

// epoll where it is built (Linux), poll elsewhere.
ServerModel DefaultServerModel();
// The models this build has: threads, poll, and epoll where it is built, and uring where it is
// built and this process may use io_uring (UringSupport()). Tests loop over these.
std::vector<ServerModel> AvailableServerModels();
// "threads", "poll", "epoll", "uring"; an error names the accepted values, or says that epoll or
// uring is not built on this platform. "uring" parses wherever it is built, usable or not:
// Server::Start and ServerOptionsFromFlags say why it cannot run.
absl::StatusOr<ServerModel> ParseServerModel(absl::string_view name);
// OK where --model=uring can run; otherwise why not (not built on this platform; the
// kernel.io_uring_disabled sysctl; a seccomp filter; a kernel older than 6.1). Probed once, at the
// first call.
absl::Status UringSupport();
const char* ServerModelName(ServerModel model);
// Lets absl::Flag<ServerModel> parse --model.
bool AbslParseFlag(absl::string_view text, ServerModel* model, std::string* error);
std::string AbslUnparseFlag(ServerModel model);

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: a free port; Server::port() says which
  ServerModel model = DefaultServerModel();
  int threads = 1;  // event loops (poll, epoll); ignored by the threads model. See the top.
  // Over this, a new connection is accepted and closed at once (ServerStats::connections_rejected).
  // Whatever it says, a server out of descriptors (RLIMIT_NOFILE) refuses connections the same way
  // (connections_refused) and accepts again as soon as descriptors free up.
  int max_connections = 100000;
  size_t read_size = 64 * 1024;  // bytes asked of each read() (less when the input bound is near)
  // What one connection may cost, whatever its peer does; the model stops reading from a
  // connection over either bound and resumes when it drains (connection_handler.h).
  //
  // Output queued for the peer and not yet sent: over this, the connection is not read. A handler
  // stops answering over it too, so the queue holds at most this plus one reply.
  size_t max_pending_output = 1 << 20;
  // Input read and not yet consumed by the handler: a partial request head or frame header, or
  // pipelined requests waiting for output room. Reads never take the buffer past it; a handler that
  // consumes nothing of a full buffer (a head larger than this) gets its connection closed. Input a
  // handler consumed and keeps counts too (ConnectionHandler::input_bound): the WebSocket server
  // refuses a message it would reassemble past this bound with 1009.
  size_t max_pending_input = 256 << 10;
  // What one connection may hold the server for. A connection on which no byte has moved either way
  // for idle_timeout_nanos is closed (a silent peer, or one that stopped reading); one whose
  // request head or handshake began (ConnectionHandler::AwaitingHead) and has not arrived whole
  // head_timeout_nanos later is closed too (a peer that trickles a head), and so is one whose TLS
  // handshake is not done head_timeout_nanos after the accept (silent or trickling). 0: never.
  int64_t idle_timeout_nanos = 0;
  int64_t head_timeout_nanos = 0;
  // TLS (wss, https) when set; not owned, must outlive the server. Not with the uring model.
  TlsServerContext* tls = nullptr;
  // The uring model's receive buffers per loop, lent to the kernel (a power of two up to 32768),
  // each min(read_size, 16 KiB) bytes. A loop whose connections all receive at once takes one per
  // completion and hands it back once its handler has seen it; when every one is out, a receive
  // ends with ENOBUFS (ServerStats::receive_buffer_shortages) and is armed again.
  int uring_buffers = 256;
};

struct ServerStats {
  uint64_t connections_accepted = 0;
  uint64_t connections_rejected = 0;  // over max_connections
  // Out of descriptors (accept(2) failed with EMFILE or ENFILE): accepted into a spare descriptor
  // kept for this and closed at once, so that the peer sees its connection end (EOF or a reset)
  // instead of waiting in the listen backlog. Neither these nor the rejected ones count as
  // accepted.
  uint64_t connections_refused = 0;
  uint64_t connections_closed = 0;
  // accept(2) calls, the ones that found nothing or failed included: a server that spun on a
  // listener it could not drain would show here. Each connection costs one, a refused one two, and
  // an event loop's wakeup for its listener ends with one that finds nothing (two when out of
  // descriptors: accept(2) fails before it looks, then the spare's finds nothing).
  uint64_t accept_calls = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  // Backpressure, observable without timing: the most output any connection held after a handler
  // call (bounded by max_pending_output plus what one call appends), and how many times a
  // connection stopped being read because its output or input was over its bound.
  uint64_t peak_pending_output = 0;
  uint64_t read_pauses = 0;
  // The most input any connection held unconsumed (bounded by max_pending_input).
  uint64_t peak_pending_input = 0;
  // Connections closed by idle_timeout_nanos or head_timeout_nanos.
  uint64_t connections_timed_out = 0;
  // System calls the model made, as it counts them itself: each wait (poll, epoll_wait,
  // io_uring_enter), read, write, accept, epoll_ctl, shutdown and close of a connection. TLS
  // reads and writes count one each, whatever they did inside. A program divides by its messages
  // (DescribeServerStop); `perf stat -e raw_syscalls:sys_enter` is the independent check.
  uint64_t system_calls = 0;
  // uring: receives that ended for want of a free buffer (ServerOptions::uring_buffers).
  uint64_t receive_buffer_shortages = 0;
  // Connections closed because one of their buffers could not grow: the system refused the memory
  // (a burst's mapping at vm.max_map_count or RLIMIT_AS). Only that connection is closed; the
  // server goes on, and its stop line counts them.
  uint64_t connections_out_of_memory = 0;
};

// `handler_factory` is called once per connection, from server threads (several at once with the
// threads model or several loops): it must be thread-safe.
class Server {
 public:
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerOptions& options,
                                                       HandlerFactory handler_factory);
  virtual ~Server() = default;

  virtual int port() const = 0;
  virtual const SocketAddress& address() const = 0;
  // Stops accepting, closes every connection and joins all threads. Idempotent.
  virtual void Stop() = 0;
  // Counters so far; safe to call from any thread while the server runs.
  virtual ServerStats stats() const = 0;
  // OK while the server runs as started. Otherwise its first fatal error: an event loop's
  // poll(2)/epoll_wait(2), or the threads model's accept loop, failed (not EINTR). The failed part
  // printed the error to stderr, closed its connections and listener, and stopped, rather than
  // spin; the rest of the server still runs until Stop(). Safe from any thread.
  virtual absl::Status status() const = 0;
};

// For a program's main to print (on stderr) before it serves: "" when the kernel spreads
// connections over the event loops or there is one, else a line saying that `options.threads` loops
// share one listener and the first to accept a connection takes it.
std::string ConnectionSpreadNote(const ServerOptions& options);

// For a program's main: blocks the calling thread until SIGINT or SIGTERM arrives, and returns its
// number. Server threads block both signals in their own mask, so the signal always reaches this
// waiter.
int WaitForTerminationSignal();

// The line a server program prints when it stops: "stopped by signal 2 after 12.345 s: 3
// connections (0 rejected, 0 refused for want of descriptors), 6600 bytes read, 6600 bytes
// written". Programs append their own protocol counters.
std::string DescribeServerStop(int signal_number, double seconds, const ServerStats& stats);
// For a program's main once its server runs: waits for SIGINT or SIGTERM, or for the server to
// fail (status()), then stops the server. Returns its DescribeServerStop line (timed from this
// call), for the program to print with its own counters, or the failure, for the program to exit
// non-zero.
absl::StatusOr<std::string> ServeUntilTerminated(Server& server);
// Blocks SIGINT and SIGTERM in the calling thread (and the threads it starts later). A main calls
// it first thing, so that a signal arriving before WaitForTerminationSignal waits for it instead of
// killing the process.
void BlockTerminationSignals();

}  // namespace netbench

#endif  // NETBENCH_COMMON_SERVER_H_
