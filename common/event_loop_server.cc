// The poll and epoll models: `threads` event loops, each with its own listening socket
// (SO_REUSEPORT when there are several, so the kernel spreads connections) and its own connections,
// so loops share nothing but the connection count. Where SO_REUSEPORT does not spread connections
// (not Linux), the loops watch one listening socket instead, each through its own descriptor.
//
// A connection reads at most read_size bytes per turn (fairness between peers), hands them to its
// handler, and writes the handler's output at once, before going back to the loop; only a partial
// write arms kWritable. Backpressure follows connection_handler.h: while more than
// max_pending_output bytes wait to be sent, or max_pending_input bytes wait to be consumed, the
// connection is not read (its peer's writes then block in the kernel). Once the output has drained
// below its bound, input the handler left for lack of output room is offered to it again, within
// the connection's turn, and reading resumes when that has made room.
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
#include "common/internal/server_models.h"
#include "common/platform.h"
#include "common/socket.h"

namespace netbench {
namespace internal {
namespace {

class Worker;

class LoopConnection final : public FdHandler {
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
  bool ContinueHandshake();
  bool CanRead() const;
  // The handler can be called: there is room for output.
  bool CanHandle() const;
  bool OutputFull() const { return output_.size() > options_.max_pending_output; }
  bool InputFull() const { return input_.size() >= options_.max_pending_input; }
  // Work can go on without the socket: the transport holds input, or the handler left requests for
  // lack of output room that it now has.
  bool HoldsReadableInput() const {
    // The cheap test first: plain TCP never holds input, and this is asked on every turn.
    return (reoffer_ && CanHandle()) || (transport_->Pending() > 0 && CanRead());
  }
  bool ReadAndHandle();
  // One read, handed to the handler; `*bytes` says how many (0: nothing came). False once closed.
  bool ReadOnce(size_t* bytes);
  // Offers input_ to the handler and writes what it answers. False once closed.
  bool Handle();
  bool Flush();
  void Hold(int64_t until_nanos);
  void OnHoldExpired();
  void OnIdleTimer();
  // Arms or cancels the head timer after the handler has seen input.
  void WatchHead();
  // The head timer (a request head, or the TLS handshake, not yet whole): closes the connection
  // head_timeout after it is armed.
  void ArmHeadTimer();
  void CancelHeadTimer();
  void NoteActivity() {
    if (options_.idle_timeout_nanos > 0) last_active_ = MonotonicNanos();
  }
  // Closes the connection for a timeout.
  void TimeOut();
  void UpdateInterest();
  // Destroys this connection: callers return at once.
  void Close(bool graceful);

  Worker& worker_;
  EventLoop& loop_;
  const ServerOptions& options_;
  ServerCounters& counters_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<ConnectionHandler> handler_;
  const int fd_;
  ByteBuffer input_;
  ByteBuffer output_;
  int watched_ = kNoEvents;
  bool handshaking_ = true;
  int handshake_wants_ = kReadable;
  bool read_wants_write_ = false;  // TLS: a read needs the socket writable first
  bool write_wants_read_ = false;  // TLS: a write needs the socket readable first
  bool closing_ = false;           // close once output_ is written
  bool paused_ = false;            // not reading: output_ is over max_pending_output
  bool held_ = false;              // output_ waits for hold_until_ (send_not_before_nanos)
  int64_t hold_until_ = 0;
  uint64_t hold_timer_ = 0;
  bool in_backlog_ = false;  // in worker_'s backlog: its transport held input after a full turn
  bool reoffer_ = false;     // the handler stopped for lack of output room with input_ left
  int64_t last_active_ = 0;  // when a byte last moved, with an idle timeout
  uint64_t idle_timer_ = 0;
  uint64_t head_timer_ = 0;
};

class Worker final : public FdHandler {
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
    : worker_(worker),
      loop_(worker.loop()),
      options_(worker.options()),
      counters_(worker.counters()),
      transport_(std::move(transport)),
      handler_(std::move(handler)),
      fd_(transport_->fd()) {
  handler_->set_output_bound(options_.max_pending_output);
  handler_->set_input_bound(options_.max_pending_input);
}

LoopConnection::~LoopConnection() {
  if (hold_timer_ != 0) loop_.CancelTimer(hold_timer_);
  if (idle_timer_ != 0) loop_.CancelTimer(idle_timer_);
  if (head_timer_ != 0) loop_.CancelTimer(head_timer_);
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
  if (options_.idle_timeout_nanos > 0) {
    NoteActivity();
    idle_timer_ =
        loop_.AddTimer(last_active_ + options_.idle_timeout_nanos, [this] { OnIdleTimer(); });
  }
  if (!ContinueHandshake()) return false;
  if (handshaking_ && options_.head_timeout_nanos > 0) {
    // A TLS handshake is a head too: it must be whole within the head timeout, however its bytes
    // trickle in (ContinueHandshake cancels this once it is).
    ArmHeadTimer();
  }
  if (HoldsReadableInput() && !ReadAndHandle()) return false;
  UpdateInterest();
  return true;
}

bool LoopConnection::ContinueHandshake() {
  IoResult r = transport_->Handshake();
  switch (r.status) {
    case IoStatus::kOk:
      handshaking_ = false;
      CancelHeadTimer();
      return true;
    case IoStatus::kWantRead:
      handshake_wants_ = kReadable;
      return true;
    case IoStatus::kWantWrite:
      handshake_wants_ = kWritable;
      return true;
    default:
      Close(/*graceful=*/false);
      return false;
  }
}

void LoopConnection::OnEvents(int /*fd*/, int events) {
  // A buffer the system refused to grow ends this connection alone (byte_buffer.h).
  try {
    if (handshaking_) {
      if (!ContinueHandshake()) return;
      if (handshaking_) {
        UpdateInterest();
        return;
      }
      // The client's first bytes may have come with its last handshake flight, and the transport
      // may have taken them off the socket already.
      events |= kReadable;
    }
    // Writing first frees output room, which may let this same wakeup read again.
    if ((events & kWritable) || ((events & kReadable) && write_wants_read_)) {
      if (!Flush()) return;
    }
    // Input the transport holds counts as readable: no fd event will announce it. It matters most
    // here after a flush that ended backpressure.
    if ((events & (kReadable | kHangup)) || ((events & kWritable) && read_wants_write_) ||
        HoldsReadableInput()) {
      if (!ReadAndHandle()) return;
    }
    UpdateInterest();
  } catch (const std::bad_alloc&) {
    ServerCounters::Add(counters_.out_of_memory, 1);
    Close(/*graceful=*/false);
  }
}

void LoopConnection::OnBacklogTurn() {
  if (!HoldsReadableInput()) return;  // backpressure since: a flush brings it back
  try {
    if (!ReadAndHandle()) return;
  } catch (const std::bad_alloc&) {
    ServerCounters::Add(counters_.out_of_memory, 1);
    Close(/*graceful=*/false);
    return;
  }
  UpdateInterest();
}

bool LoopConnection::CanHandle() const { return !handshaking_ && !closing_ && !OutputFull(); }

bool LoopConnection::CanRead() const { return CanHandle() && !InputFull(); }

// One turn: input the handler left for lack of output room, offered again, or a read; then more
// only while either can go on without the socket (the transport holds input, or the handler has
// room again), up to read_size bytes consumed or read in all. Plain TCP holds nothing, so it reads
// once per wakeup and level triggering brings it back for the rest of the socket. TLS hands out a
// record per read and may have taken several off the socket at once; what a full turn leaves
// inside waits in the backlog for the next pass.
bool LoopConnection::ReadAndHandle() {
  size_t budget = options_.read_size;
  bool more;  // HoldsReadableInput(), asked once per step
  do {
    if (reoffer_ && CanHandle()) {
      const size_t before = input_.size();
      if (!Handle()) return false;
      budget -= std::min(before - input_.size(), budget);
    } else {
      if (!CanRead()) return true;  // backpressure: a flush brings reading back
      size_t bytes = 0;
      if (!ReadOnce(&bytes)) return false;
      if (bytes == 0) return true;  // the transport wants the socket, or the peer has finished
      budget -= std::min(bytes, budget);
    }
    more = HoldsReadableInput();
  } while (budget > 0 && more);
  if (more) worker_.AddToBacklog(this);
  return true;
}

bool LoopConnection::ReadOnce(size_t* bytes) {
  read_wants_write_ = false;
  // Never past the input bound: a peer that sends faster than the handler consumes fills it and
  // then waits in the kernel.
  const size_t room = std::min(options_.read_size, options_.max_pending_input - input_.size());
  ServerCounters::Add(counters_.system_calls, 1);
  IoResult r = transport_->Read(input_.WritableSpace(room), room);
  switch (r.status) {
    case IoStatus::kOk:
      break;
    case IoStatus::kWantRead:
      return true;
    case IoStatus::kWantWrite:
      read_wants_write_ = true;
      return true;
    case IoStatus::kEof:
      handler_->OnPeerClosed(output_);
      closing_ = true;
      return Flush();
    case IoStatus::kError:
      Close(/*graceful=*/false);
      return false;
  }
  *bytes = r.bytes;
  input_.CommitWrite(r.bytes);
  ServerCounters::Add(counters_.bytes_read, r.bytes);
  NoteActivity();
  return Handle();
}

bool LoopConnection::Handle() {
  ServerCounters::Max(counters_.peak_pending_input, input_.size());
  HandlerResult result = handler_->OnData(input_.view(), output_);
  input_.Consume(result.consumed);
  if (InputFull() && result.consumed == 0) {
    Close(/*graceful=*/false);  // it needs more input than the bound allows: it never will have it
    return false;
  }
  reoffer_ = result.consumed > 0 && !input_.empty() && OutputFull();
  WatchHead();
  ServerCounters::Max(counters_.peak_pending_output, output_.size());
  if (result.close) closing_ = true;
  if (result.send_not_before_nanos > 0 && result.send_not_before_nanos > MonotonicNanos()) {
    Hold(result.send_not_before_nanos);
  }
  return Flush();
}

// Writes as much of output_ as the socket takes now. Closes the connection (returning false) on
// error, or when it was closing and everything is out.
bool LoopConnection::Flush() {
  if (held_) return true;
  write_wants_read_ = false;
  while (!output_.empty()) {
    ServerCounters::Add(counters_.system_calls, 1);
    IoResult r = transport_->Write(output_.data(), output_.size());
    if (r.status == IoStatus::kOk) {
      output_.Consume(r.bytes);
      ServerCounters::Add(counters_.bytes_written, r.bytes);
      NoteActivity();
    } else if (r.status == IoStatus::kWantWrite) {
      return true;
    } else if (r.status == IoStatus::kWantRead) {
      write_wants_read_ = true;
      return true;
    } else {
      Close(/*graceful=*/false);
      return false;
    }
  }
  if (closing_) {
    Close(/*graceful=*/true);
    return false;
  }
  return true;
}

void LoopConnection::Hold(int64_t until_nanos) {
  held_ = true;
  if (until_nanos > hold_until_) hold_until_ = until_nanos;
  if (hold_timer_ == 0) hold_timer_ = loop_.AddTimer(hold_until_, [this] { OnHoldExpired(); });
}

void LoopConnection::OnHoldExpired() {
  hold_timer_ = 0;
  if (MonotonicNanos() < hold_until_) {  // a later reply pushed the deadline on
    hold_timer_ = loop_.AddTimer(hold_until_, [this] { OnHoldExpired(); });
    return;
  }
  held_ = false;
  if (!Flush()) return;
  if (HoldsReadableInput() && !ReadAndHandle()) return;  // held back by the output until now
  UpdateInterest();
}

void LoopConnection::OnIdleTimer() {
  idle_timer_ = 0;
  const int64_t deadline = last_active_ + options_.idle_timeout_nanos;
  if (MonotonicNanos() >= deadline) {
    TimeOut();
    return;
  }
  idle_timer_ = loop_.AddTimer(deadline, [this] { OnIdleTimer(); });
}

void LoopConnection::WatchHead() {
  if (options_.head_timeout_nanos <= 0) return;
  if (handler_->AwaitingHead()) {
    if (head_timer_ == 0) ArmHeadTimer();
  } else {
    CancelHeadTimer();
  }
}

void LoopConnection::ArmHeadTimer() {
  head_timer_ = loop_.AddTimer(MonotonicNanos() + options_.head_timeout_nanos, [this] {
    head_timer_ = 0;
    TimeOut();
  });
}

void LoopConnection::CancelHeadTimer() {
  if (head_timer_ == 0) return;
  loop_.CancelTimer(head_timer_);
  head_timer_ = 0;
}

void LoopConnection::TimeOut() {
  ServerCounters::Add(counters_.timed_out, 1);
  Close(/*graceful=*/false);
}

void LoopConnection::UpdateInterest() {
  int want = kNoEvents;
  if (handshaking_) {
    want = handshake_wants_;
  } else {
    bool over = OutputFull() || InputFull();
    if (over && !paused_) ServerCounters::Add(counters_.read_pauses, 1);
    paused_ = over;
    if ((!closing_ && !over) || write_wants_read_) want |= kReadable;
    if ((!held_ && !output_.empty() && !write_wants_read_) || read_wants_write_) want |= kWritable;
  }
  if (want == watched_) return;
  ServerCounters::Add(counters_.system_calls, worker_.watch_change_cost());
  if (!loop_.Modify(fd_, want).ok()) {
    Close(/*graceful=*/false);
    return;
  }
  watched_ = want;
}

void LoopConnection::Close(bool graceful) {
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
