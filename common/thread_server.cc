// The threads model: an acceptor thread, and one std::thread per connection doing blocking I/O, the
// analogue of Go's goroutine per connection. Backpressure is almost free here: a thread blocked
// writing to a peer that does not read stops reading from it. What is left to bound is what one
// read can make: reads never fill the input past max_pending_input, and a handler that stopped
// answering for lack of output room (connection_handler.h) is offered its input again once the
// output is written, before the next read.
//
// Timeouts: before each read the thread polls with the nearer of the idle and head deadlines, and
// writes carry SO_SNDTIMEO, so a peer that stops reading fails a write after idle_timeout. A TLS
// connection's socket is non-blocking throughout: on a blocking socket the TLS library waits inside
// its read for a whole record, so a peer that trickles a record would hold the thread past every
// deadline; non-blocking, the read returns what it has and the thread waits against the deadlines.
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <list>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "common/byte_buffer.h"
#include "common/clock.h"
#include "common/errno_status.h"
#include "common/internal/server_models.h"
#include "common/socket.h"

namespace netbench {
namespace internal {
namespace {

// Waits until `fd` is ready for what a transport asked, or `timeout_ms` (-1: no limit) passes. The
// sockets are blocking, so only TLS asks, or a write that SO_SNDTIMEO cut short.
bool WaitFor(int fd, IoStatus want, int timeout_ms = -1) {
  pollfd entry{};
  entry.fd = fd;
  entry.events = want == IoStatus::kWantRead ? POLLIN : POLLOUT;
  int rc;
  do {
    rc = poll(&entry, 1, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  return rc > 0;
}

// Milliseconds until `deadline` (MonotonicNanos), at least 1 so that a poll does wait; -1 for none.
int MillisUntil(int64_t deadline) {
  if (deadline == 0) return -1;
  int64_t left = (deadline - MonotonicNanos() + kNanosPerMilli - 1) / kNanosPerMilli;
  return static_cast<int>(std::clamp<int64_t>(left, 1, 1 << 30));
}

void MergeStats(const ServerStats& from, ServerStats& into) {
  into.connections_accepted += from.connections_accepted;
  into.connections_rejected += from.connections_rejected;
  into.connections_refused += from.connections_refused;
  into.accept_calls += from.accept_calls;
  into.connections_closed += from.connections_closed;
  into.bytes_read += from.bytes_read;
  into.bytes_written += from.bytes_written;
  into.read_pauses += from.read_pauses;
  into.connections_timed_out += from.connections_timed_out;
  into.system_calls += from.system_calls;
  into.receive_buffer_shortages += from.receive_buffer_shortages;
  into.connections_out_of_memory += from.connections_out_of_memory;
  if (from.peak_pending_output > into.peak_pending_output) {
    into.peak_pending_output = from.peak_pending_output;
  }
  if (from.peak_pending_input > into.peak_pending_input) {
    into.peak_pending_input = from.peak_pending_input;
  }
}

class ThreadServer final : public Server {
 public:
  ThreadServer(const ServerOptions& options, HandlerFactory handler_factory, Listener listener,
               UniqueFd wake_read, UniqueFd wake_write)
      : options_(options),
        handler_factory_(std::move(handler_factory)),
        listener_(std::move(listener)),
        wake_read_(std::move(wake_read)),
        wake_write_(std::move(wake_write)) {}

  ~ThreadServer() override { Stop(); }

  void StartAccepting() {
    acceptor_ = StartServerThread([this] { AcceptLoop(); });
  }

  int port() const override { return listener_.port; }
  const SocketAddress& address() const override { return listener_.address; }

  void Stop() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    stop_changed_.notify_all();
    char byte = 1;
    while (write(wake_write_.get(), &byte, 1) < 0 && errno == EINTR) {
    }
    if (acceptor_.joinable()) acceptor_.join();
    listener_.fd.reset();  // new connections are refused from now on
    {
      // Wakes every connection thread blocked in read or write; each then closes its socket.
      std::lock_guard<std::mutex> lock(mutex_);
      for (Connection& connection : connections_) {
        if (connection.fd >= 0) shutdown(connection.fd, SHUT_RDWR);
      }
    }
    // The acceptor is gone, so nobody adds to or erases from connections_ any more.
    for (Connection& connection : connections_) connection.thread.join();
    finished_.clear();
    connections_.clear();
  }

  ServerStats stats() const override {
    ServerStats stats;
    acceptor_counters_.AddTo(stats);
    std::lock_guard<std::mutex> lock(mutex_);
    MergeStats(retired_, stats);
    for (const Connection& connection : connections_) {
      if (!connection.retired) connection.counters.AddTo(stats);
    }
    return stats;
  }

  absl::Status status() const override { return failure_.status(); }

 private:
  struct Connection {
    std::thread thread;
    int fd = -1;           // guarded by mutex_; -1 once the thread is closing it
    bool retired = false;  // guarded by mutex_; counters already added into retired_
    ServerCounters counters;
  };

  void AcceptLoop() {
    pollfd fds[2] = {{listener_.fd.get(), POLLIN, 0}, {wake_read_.get(), POLLIN, 0}};
    while (true) {
      int rc = poll(fds, 2, -1);
      if (rc < 0 && errno == EINTR) continue;
      if (rc < 0) {
        // It would fail again at once: stop accepting, loudly. Connections already served go on.
        failure_.Report(ErrnoStatus(errno, "threads model: accept loop: poll"));
        listener_.fd.reset();  // refused from now on, rather than left waiting in the backlog
        return;
      }
      if (fds[1].revents != 0) return;  // Stop()
      if (fds[0].revents == 0) continue;
      // The listener is non-blocking, so a connection reset before accept() cannot block this loop;
      // the accepted socket is blocking.
      ServerCounters::Add(acceptor_counters_.accept_calls, 1);
      ServerCounters::Add(acceptor_counters_.system_calls, 2);  // with the poll before it
      absl::StatusOr<UniqueFd> accepted = Accept(listener_.fd.get(), /*non_blocking=*/false);
      if (!accepted.ok()) {
        if (absl::IsUnavailable(accepted.status())) continue;  // EAGAIN, or the peer reset it
        // Out of fds (EMFILE): refused with the spare's help, or, failing that, left pending with
        // the listener readable: then back off a little instead of spinning, unless Stop() comes
        // first.
        if (absl::IsResourceExhausted(accepted.status())) {
          const SpareDescriptor::Outcome outcome =
              RefusePending(spare_, listener_.fd.get(), acceptor_counters_);
          if (outcome == SpareDescriptor::kRefused || outcome == SpareDescriptor::kNonePending) {
            continue;
          }
        }
        poll(&fds[1], 1, 10);
        continue;
      }
      JoinFinished();
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      if (live_ >= options_.max_connections) {
        ServerCounters::Add(acceptor_counters_.rejected, 1);
        continue;  // `accepted` closes the socket
      }
      ServerCounters::Add(acceptor_counters_.accepted, 1);
      ++live_;
      connections_.emplace_back();
      auto it = std::prev(connections_.end());
      it->fd = accepted->get();
      // Signals stay blocked: threads inherit the acceptor's mask.
      it->thread = std::thread([this, it, fd = *std::move(accepted)]() mutable {
        Serve(*it, std::move(fd));
        std::lock_guard<std::mutex> lock(mutex_);
        finished_.push_back(it);
      });
    }
  }

  // Joins threads whose connections ended, so that 1,000 short connections leave no 1,000 threads.
  void JoinFinished() {
    std::vector<std::list<Connection>::iterator> finished;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      finished.swap(finished_);
    }
    for (auto it : finished) it->thread.join();
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it : finished) connections_.erase(it);
  }

  void Serve(Connection& connection, UniqueFd fd) {
    std::unique_ptr<Transport> transport;
    {
      // Under the lock: a failed Wrap closes the socket, and Stop() must not shut down its number
      // after that (it may belong to a new connection already).
      std::lock_guard<std::mutex> lock(mutex_);
      absl::StatusOr<std::unique_ptr<Transport>> made =
          MakeServerTransport(options_, std::move(fd));
      if (made.ok()) {
        transport = *std::move(made);
      } else {
        connection.fd = -1;
      }
    }
    if (transport != nullptr) {
      // A buffer the system refused to grow ends this connection alone (byte_buffer.h).
      try {
        ServeTransport(connection, *transport);
      } catch (const std::bad_alloc&) {
        ServerCounters::Add(connection.counters.out_of_memory, 1);
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    connection.fd = -1;
    transport.reset();  // closes the socket
    ServerCounters::Add(connection.counters.closed, 1);
    connection.counters.AddTo(retired_);
    connection.retired = true;
    --live_;
  }

  void ServeTransport(Connection& connection, Transport& transport) {
    const int64_t idle = options_.idle_timeout_nanos;
    // How long a wait for the socket may last: an idle timeout bounds TLS's waits too.
    auto idle_wait_ms = [idle] { return idle > 0 ? MillisUntil(MonotonicNanos() + idle) : -1; };
    // A TLS handshake is a head too: it must be whole within the head timeout of the accept,
    // however its bytes trickle in. The socket stays non-blocking (see the top).
    const int64_t handshake_deadline =
        options_.head_timeout_nanos > 0 ? MonotonicNanos() + options_.head_timeout_nanos : 0;
    const bool tls = options_.tls != nullptr;
    if (tls && !SetNonBlocking(transport.fd()).ok()) return;
    while (true) {
      IoResult r = transport.Handshake();
      if (r.status == IoStatus::kOk) break;
      if (r.status != IoStatus::kWantRead && r.status != IoStatus::kWantWrite) return;
      int wait_ms = idle_wait_ms();
      if (handshake_deadline > 0) {
        const int head_ms = MillisUntil(handshake_deadline);
        if (wait_ms < 0 || head_ms < wait_ms) wait_ms = head_ms;
      }
      if ((handshake_deadline > 0 && MonotonicNanos() >= handshake_deadline) ||
          !WaitFor(transport.fd(), r.status, wait_ms)) {
        ServerCounters::Add(connection.counters.timed_out, 1);
        return;
      }
    }
    std::unique_ptr<ConnectionHandler> handler = handler_factory_();
    handler->set_output_bound(options_.max_pending_output);
    handler->set_input_bound(options_.max_pending_input);
    ServerCounters& counters = connection.counters;
    if (idle > 0) {
      timeval limit{};
      limit.tv_sec = idle / kNanosPerSecond;
      limit.tv_usec = std::max<int64_t>(idle % kNanosPerSecond / 1000, limit.tv_sec == 0 ? 1 : 0);
      setsockopt(transport.fd(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
    }
    int64_t head_deadline = 0;
    ByteBuffer input;
    ByteBuffer output;
    // The nearer of the idle deadline (from now) and the head's; 0: none.
    auto read_deadline = [&] {
      int64_t deadline = idle > 0 ? MonotonicNanos() + idle : 0;
      if (head_deadline > 0 && (deadline == 0 || head_deadline < deadline)) {
        deadline = head_deadline;
      }
      return deadline;
    };
    while (true) {
      if ((idle > 0 || head_deadline > 0) && transport.Pending() == 0) {
        const int64_t deadline = read_deadline();
        pollfd entry{transport.fd(), POLLIN, 0};
        int rc;
        do {
          ServerCounters::Add(counters.system_calls, 1);
          rc = poll(&entry, 1, MillisUntil(deadline));
        } while (rc < 0 && errno == EINTR);
        // A head trickled a byte at a time keeps the socket readable: the deadline is checked too.
        if (rc == 0 || (head_deadline > 0 && MonotonicNanos() >= head_deadline)) {
          ServerCounters::Add(counters.timed_out, 1);
          return;
        }
      }
      const size_t room = std::min(options_.read_size, options_.max_pending_input - input.size());
      ServerCounters::Add(counters.system_calls, 1);
      IoResult r = transport.Read(input.WritableSpace(room), room);
      if (r.status == IoStatus::kOk) {
        input.CommitWrite(r.bytes);
        ServerCounters::Add(counters.bytes_read, r.bytes);
        bool reoffer;
        do {
          ServerCounters::Max(counters.peak_pending_input, input.size());
          HandlerResult result = handler->OnData(input.view(), output);
          input.Consume(result.consumed);
          ServerCounters::Max(counters.peak_pending_output, output.size());
          // It needs more input than the bound allows: it never will have it.
          if (input.size() >= options_.max_pending_input && result.consumed == 0) return;
          reoffer =
              result.consumed > 0 && !input.empty() && output.size() > options_.max_pending_output;
          if (options_.head_timeout_nanos > 0) {
            if (!handler->AwaitingHead()) {
              head_deadline = 0;
            } else if (head_deadline == 0) {
              head_deadline = MonotonicNanos() + options_.head_timeout_nanos;
            }
          }
          if (reoffer) ServerCounters::Add(counters.read_pauses, 1);
          if (result.send_not_before_nanos > 0 && !SleepUntil(result.send_not_before_nanos)) {
            return;
          }
          if (!WriteAll(transport, output, counters, idle)) return;
          if (result.close) {
            transport.ShutdownWrite();
            return;
          }
        } while (reoffer);
      } else if (r.status == IoStatus::kEof) {
        handler->OnPeerClosed(output);
        if (!WriteAll(transport, output, counters, idle)) return;
        break;
      } else if (r.status == IoStatus::kWantRead || r.status == IoStatus::kWantWrite) {
        // TLS holds part of a record: wait for the rest, within the deadlines.
        const int64_t deadline = read_deadline();
        if (!WaitFor(transport.fd(), r.status, deadline > 0 ? MillisUntil(deadline) : -1)) {
          ServerCounters::Add(counters.timed_out, 1);
          return;
        }
      } else {
        return;  // reset or TLS error: nothing more can be said to this peer
      }
    }
    transport.ShutdownWrite();
  }

  // Emulated latency; returns false when the server is stopping.
  bool SleepUntil(int64_t when_nanos) {
    int64_t wait = when_nanos - MonotonicNanos();
    if (wait <= 0) return true;
    std::unique_lock<std::mutex> lock(mutex_);
    return !stop_changed_.wait_for(lock, std::chrono::nanoseconds(wait),
                                   [this] { return stopping_; });
  }

  // With an idle timeout, SO_SNDTIMEO cuts a stalled write short and the wait here is bounded too:
  // a peer that takes nothing for that long is given up on.
  static bool WriteAll(Transport& transport, ByteBuffer& output, ServerCounters& counters,
                       int64_t idle_timeout_nanos) {
    const int wait_ms =
        idle_timeout_nanos > 0 ? MillisUntil(MonotonicNanos() + idle_timeout_nanos) : -1;
    while (!output.empty()) {
      ServerCounters::Add(counters.system_calls, 1);
      IoResult r = transport.Write(output.data(), output.size());
      if (r.status == IoStatus::kOk) {
        output.Consume(r.bytes);
        ServerCounters::Add(counters.bytes_written, r.bytes);
      } else if (r.status == IoStatus::kWantRead || r.status == IoStatus::kWantWrite) {
        if (!WaitFor(transport.fd(), r.status, wait_ms)) {
          if (idle_timeout_nanos > 0) ServerCounters::Add(counters.timed_out, 1);
          return false;
        }
      } else {
        return false;
      }
    }
    return true;
  }

  const ServerOptions options_;
  const HandlerFactory handler_factory_;
  Listener listener_;
  UniqueFd wake_read_;
  UniqueFd wake_write_;
  std::thread acceptor_;
  ServerCounters acceptor_counters_;  // written by the acceptor thread only
  SpareDescriptor spare_;             // acceptor thread only

  mutable std::mutex mutex_;
  std::condition_variable stop_changed_;
  bool stopping_ = false;
  int live_ = 0;
  std::list<Connection> connections_;
  std::vector<std::list<Connection>::iterator> finished_;
  ServerStats retired_;  // of connections that ended; guarded by mutex_
  ServerFailure failure_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> StartThreadServer(const ServerOptions& options,
                                                          HandlerFactory handler_factory) {
  ListenOptions listen_options;
  listen_options.host = options.host;
  listen_options.port = options.port;
  listen_options.non_blocking = true;
  absl::StatusOr<Listener> listener = Listen(listen_options);
  if (!listener.ok()) return listener.status();
  int fds[2];
  if (pipe(fds) != 0) return ErrnoStatus(errno, "pipe");
  auto server =
      std::make_unique<ThreadServer>(options, std::move(handler_factory), *std::move(listener),
                                     UniqueFd(fds[0]), UniqueFd(fds[1]));
  server->StartAccepting();
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace internal
}  // namespace netbench
