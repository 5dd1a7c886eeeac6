// The poll and epoll models: `threads` event loops, each with its own listening socket
// (SO_REUSEPORT when there are several, so the kernel spreads connections) and its own connections,
// so loops share nothing but the connection count. Where SO_REUSEPORT does not spread connections
// (not Linux), the loops watch one listening socket instead, each through its own descriptor.
//
// A connection's turn is internal/transport_connection.h's (the uring model's TLS connections run
// it too); this file keeps how it waits. A connection reads at most read_size bytes per turn
// (fairness between peers), hands them to its handler, and writes the handler's output at once,
// before going back to the loop; only a partial write arms kWritable. Backpressure follows
// connection_handler.h: while more than max_pending_output bytes wait to be sent, or
// max_pending_input bytes wait to be consumed, the connection is not read (its peer's writes then
// block in the kernel). Once the output has drained below its bound, input the handler left for
// lack of output room is offered to it again, within the connection's turn, and reading resumes
// when that has made room.
//
// Timeouts are timers on the loop. The idle timer is lazy (as nginx's and Redis' are): I/O only
// notes the time, and the timer, when it fires early, re-arms itself for the deadline that time
// implies; the head timer is armed when the handler starts waiting for a head and cancelled when it
// has one.
//
// Input the transport holds (Transport::Pending(): TLS records read ahead) is invisible to
// poll/epoll, so a connection never waits for an fd event while it could read such input: it reads
// on within its turn, and one that used up its turn with input still held joins its worker's
// backlog, which is served after every pass of the loop; while the backlog is not empty the loop
// polls without waiting (Redis does the same for TLS connections with data pending).
#include <errno.h>
#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <new>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/byte_buffer.h"
#include "common/clock.h"
#include "common/errno_status.h"
#include "common/event_loop.h"
#include "common/internal/server_connection.h"
#include "common/internal/server_models.h"
#include "common/internal/transport_connection.h"
#include "common/platform.h"
#include "common/socket.h"

namespace netbench {
namespace internal {
namespace {

class Worker;

// The turn is TransportConnection's; this model waits through its EventLoop (one watch per socket)
// and its worker's backlog.
class LoopConnection final : public FdHandler, public TransportConnection {
 public:
  LoopConnection(Worker& worker, std::unique_ptr<Transport> transport,
                 std::unique_ptr<ConnectionHandler> handler);
  ~LoopConnection() override;

  // Watches the socket and starts the handshake; false when the connection closed at once.
  bool Start();
  void OnEvents(int fd, int events) override;
  // Another turn for a connection in the worker's backlog.
  void OnBacklogTurn();
  bool in_backlog() const { return in_backlog_; }
  void set_in_backlog(bool value) { in_backlog_ = value; }

 private:
  void OweTurn() override;
  void Rewatch() override { UpdateInterest(); }
  // Destroys this connection: callers return at once.
  void OnClose(bool graceful) override;
  void UpdateInterest();

  Worker& worker_;
  EventLoop& loop_;
  int watched_ = kNoEvents;
  bool in_backlog_ = false;  // in worker_'s backlog: its transport held input after a full turn
};

class Worker final : public FdHandler, public ServerConnection::Timers {
 public:
  Worker(const ServerOptions& options, const HandlerFactory& handler_factory,
         std::atomic<int>& live, ServerFailure& failure, EventLoopBackend backend,
         std::unique_ptr<EventLoop> loop, Listener listener)
      : options_(options),
        handler_factory_(handler_factory),
        live_(live),
        failure_(failure),
        backend_(backend),
        loop_(std::move(loop)),
        listener_(std::move(listener)) {}

  ~Worker() override { Join(); }

  absl::Status Start() {
    if (absl::Status status = loop_->Add(listener_.fd.get(), kReadable, this); !status.ok()) {
      return status;
    }
    thread_ = StartServerThread([this] { Run(); });
    return absl::OkStatus();
  }

  // Stops the loop, then closes every connection from this (now the only) thread.
  void Join() {
    if (!thread_.joinable()) return;
    loop_->Post([this] { running_ = false; });
    thread_.join();
    CloseAll();
  }

  // The listener is readable: accept what is pending, a bounded number per wakeup so that a
  // connection storm cannot starve the established connections.
  void OnEvents(int /*fd*/, int /*events*/) override {
    for (int i = 0; i < 64; ++i) {
      ServerCounters::Add(counters_.accept_calls, 1);
      ServerCounters::Add(counters_.system_calls, 1);
      absl::StatusOr<UniqueFd> accepted = Accept(listener_.fd.get(), /*non_blocking=*/true);
      if (!accepted.ok()) {
        if (absl::IsUnavailable(accepted.status())) return;  // EAGAIN: all taken
        if (absl::IsResourceExhausted(accepted.status())) {  // out of fds (EMFILE)
          switch (RefusePending(spare_, listener_.fd.get(), counters_)) {
            case SpareDescriptor::kRefused:
              continue;  // perhaps more are waiting
            case SpareDescriptor::kNonePending:
              return;
            default:
              break;
          }
        }
        // The connection is still pending and the listener readable: stop watching it for a
        // moment rather than spin.
        PauseAccepting();
        return;
      }
      if (live_.fetch_add(1, std::memory_order_relaxed) >= options_.max_connections) {
        live_.fetch_sub(1, std::memory_order_relaxed);
        ServerCounters::Add(counters_.rejected, 1);
        continue;  // closes it
      }
      ServerCounters::Add(counters_.accepted, 1);
      int fd = accepted->get();
      absl::StatusOr<std::unique_ptr<Transport>> transport =
          MakeServerTransport(options_, *std::move(accepted));
      if (!transport.ok()) {
        Closed();
        continue;
      }
      auto connection =
          std::make_unique<LoopConnection>(*this, *std::move(transport), handler_factory_());
      LoopConnection* raw = connection.get();
      connections_[fd] = std::move(connection);
      raw->Start();
    }
  }

  void PauseAccepting() {
    if (!loop_->Modify(listener_.fd.get(), kNoEvents).ok()) return;
    loop_->AddTimer(MonotonicNanos() + 10 * kNanosPerMilli,
                    [this] { (void)loop_->Modify(listener_.fd.get(), kReadable); });
  }

  void Erase(int fd) { connections_.erase(fd); }
  // `connection` used up its turn with input still held by its transport: it gets another after
  // this pass of the loop, and the loop does not wait while one is owed.
  void AddToBacklog(LoopConnection* connection) {
    if (connection->in_backlog()) return;
    connection->set_in_backlog(true);
    backlog_.push_back(connection);
  }
  void RemoveFromBacklog(LoopConnection* connection) {
    if (!connection->in_backlog()) return;
    connection->set_in_backlog(false);
    backlog_.erase(std::find(backlog_.begin(), backlog_.end(), connection));
  }
  void Closed() {
    ServerCounters::Add(counters_.closed, 1);
    live_.fetch_sub(1, std::memory_order_relaxed);
  }

  EventLoop& loop() { return *loop_; }
  uint64_t AddTimer(int64_t when_nanos, std::function<void()> callback) override {
    return loop_->AddTimer(when_nanos, std::move(callback));
  }
  void CancelTimer(uint64_t id) override { loop_->CancelTimer(id); }
  const ServerOptions& options() const { return options_; }
  ServerCounters& counters() { return counters_; }
  const ServerCounters& counters() const { return counters_; }
  // epoll's Add, Modify and Remove are system calls (epoll_ctl); poll's only edit its array.
  uint64_t watch_change_cost() const { return backend_ == EventLoopBackend::kEpoll ? 1 : 0; }
  const Listener& listener() const { return listener_; }

 private:
  void Run() {
    while (running_) {
      ServerCounters::Add(counters_.system_calls, 1);
      absl::StatusOr<int> dispatched = loop_->RunOnce(backlog_.empty() ? -1 : 0);
      if (!dispatched.ok()) {
        Fail(dispatched.status());
        return;
      }
      if (backlog_.empty()) continue;  // the common case: no vector to swap and free per pass
      // Connections that go on reading add themselves again, to the fresh backlog: each gets one
      // turn per pass, after the fds that were ready.
      std::vector<LoopConnection*> turns;
      turns.swap(backlog_);
      for (LoopConnection* connection : turns) connection->set_in_backlog(false);
      // A turn closes at most its own connection, so the pointers still to come stay valid.
      for (LoopConnection* connection : turns) connection->OnBacklogTurn();
    }
  }

  // The loop cannot wait any more (its wait would fail again at once): rather than spin, close
  // everything this worker serves, so that its peers see resets and new connections are refused,
  // and report it, so that the program stops.
  void Fail(const absl::Status& error) {
    size_t open = connections_.size();
    CloseAll();
    failure_.Report(absl::Status(
        error.code(),
        absl::StrCat(EventLoopBackendName(backend_), " event loop failed: ", error.message(),
                     "; it stopped and closed its listener and ", open, " connections")));
  }

  void CloseAll() {
    connections_.clear();
    backlog_.clear();
    loop_->Remove(listener_.fd.get());
    listener_.fd.reset();  // new connections are refused from now on
  }

  const ServerOptions& options_;
  const HandlerFactory& handler_factory_;
  std::atomic<int>& live_;
  ServerFailure& failure_;
  const EventLoopBackend backend_;
  std::unique_ptr<EventLoop> loop_;
  Listener listener_;
  ServerCounters counters_;  // written by this worker's thread only
  SpareDescriptor spare_;    // this worker's thread only
  std::unordered_map<int, std::unique_ptr<LoopConnection>> connections_;
  std::vector<LoopConnection*> backlog_;  // served after every pass; loop thread only
  bool running_ = true;                   // loop thread only: cleared through Post
  std::thread thread_;
};

LoopConnection::LoopConnection(Worker& worker, std::unique_ptr<Transport> transport,
                               std::unique_ptr<ConnectionHandler> handler)
    : TransportConnection(worker, worker.options(), worker.counters(), std::move(transport),
                          std::move(handler), Rules{}),
      worker_(worker),
      loop_(worker.loop()) {}

LoopConnection::~LoopConnection() {
  worker_.RemoveFromBacklog(this);
  loop_.Remove(fd_);
  // Closed before it is counted closed: whoever sees the count finds the descriptor free.
  transport_.reset();
  ServerCounters::Add(counters_.system_calls, 1 + worker_.watch_change_cost());
  worker_.Closed();
}

bool LoopConnection::Start() {
  ServerCounters::Add(counters_.system_calls, worker_.watch_change_cost());
  if (!loop_.Add(fd_, kReadable, this).ok()) {
    Close(/*graceful=*/false);
    return false;
  }
  watched_ = kReadable;
  if (!Begin()) return false;
  UpdateInterest();
  return true;
}

void LoopConnection::OnEvents(int /*fd*/, int events) {
  // A buffer the system refused to grow ends this connection alone (byte_buffer.h).
  try {
    if (!OnReady(events & kReadable, events & kWritable, events & kHangup)) return;
    UpdateInterest();
  } catch (const std::bad_alloc&) {
    CloseOutOfMemory();
  }
}

void LoopConnection::OnBacklogTurn() {
  if (!HoldsReadableInput()) return;  // backpressure since: a flush brings it back
  try {
    if (!TakeTurn()) return;
  } catch (const std::bad_alloc&) {
    CloseOutOfMemory();
    return;
  }
  UpdateInterest();
}

// What a full turn leaves inside the transport waits in the backlog for the next pass.
void LoopConnection::OweTurn() { worker_.AddToBacklog(this); }

void LoopConnection::UpdateInterest() {
  const Interest interest = Wants();
  const int want =
      (interest.readable ? kReadable : kNoEvents) | (interest.writable ? kWritable : kNoEvents);
  if (want == watched_) return;
  ServerCounters::Add(counters_.system_calls, worker_.watch_change_cost());
  if (!loop_.Modify(fd_, want).ok()) {
    Close(/*graceful=*/false);
    return;
  }
  watched_ = want;
}

void LoopConnection::OnClose(bool graceful) {
  // Graceful: the peer sees our FIN (TLS: close_notify) after the last reply.
  if (graceful) transport_->ShutdownWrite();
  worker_.Erase(fd_);  // runs the destructor
}

// Another descriptor for the same listening socket, for one more loop to watch.
absl::StatusOr<Listener> ShareListener(const Listener& listener) {
  Listener copy;
  copy.fd.reset(fcntl(listener.fd.get(), F_DUPFD_CLOEXEC, 0));
  if (!copy.fd.valid()) return ErrnoStatus(errno, "fcntl(F_DUPFD_CLOEXEC) of the listener");
  copy.address = listener.address;
  copy.port = listener.port;
  return copy;
}

class EventLoopServer final : public WorkerServer<Worker> {
 public:
  using WorkerServer::WorkerServer;

  absl::Status Start() {
    EventLoopBackend backend =
        options_.model == ServerModel::kPoll ? EventLoopBackend::kPoll : EventLoopBackend::kEpoll;
    const bool shared_listener = options_.threads > 1 && !kReusePortSpreadsConnections;
    int port = options_.port;
    for (int i = 0; i < options_.threads; ++i) {
      absl::StatusOr<std::unique_ptr<EventLoop>> loop = EventLoop::Create(backend);
      if (!loop.ok()) return loop.status();
      ListenOptions listen_options;
      listen_options.host = options_.host;
      listen_options.port = port;  // the first listener's port, when 0 picked one
      listen_options.reuse_port = options_.threads > 1 && !shared_listener;
      listen_options.non_blocking = true;
      absl::StatusOr<Listener> listener = shared_listener && i > 0
                                              ? ShareListener(workers_.front()->listener())
                                              : Listen(listen_options);
      if (!listener.ok()) return listener.status();
      port = listener->port;
      workers_.push_back(std::make_unique<Worker>(options_, handler_factory_, live_, failure_,
                                                  backend, *std::move(loop), *std::move(listener)));
    }
    for (auto& worker : workers_) {
      if (absl::Status status = worker->Start(); !status.ok()) return status;
    }
    return absl::OkStatus();
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> StartEventLoopServer(const ServerOptions& options,
                                                             HandlerFactory handler_factory) {
  auto server = std::make_unique<EventLoopServer>(options, std::move(handler_factory));
  if (absl::Status status = server->Start(); !status.ok()) return status;
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace internal
}  // namespace netbench
