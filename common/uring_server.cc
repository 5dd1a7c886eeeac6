// The uring model: `threads` loops on io_uring, each with its own listening socket (SO_REUSEPORT
// when there are several) and its own connections, as the epoll model's loops are. Where that
// model asks the kernel "what is ready?" and then reads and writes each ready socket with a call of
// its own, this one keeps standing requests in the kernel and collects what they did:
//
//   - one multishot accept on the listener;
//   - one multishot receive per connection, into buffers the loop lends the kernel through a
//     provided buffer ring (the kernel picks a free buffer per completion; the loop hands it back
//     once the handler has seen it). A completion without IORING_CQE_F_MORE ended the request
//     (ENOBUFS when every buffer was out, a cancel): it is armed again at the end of the pass;
//   - a connection's replies gather in its output buffer while the pass runs and go out in one
//     send per connection, prepared at the end of the pass; a send whose completion nothing
//     waits on is "quiet" (UringWorker::QuietSend): settled inside the submit and posting no
//     completion when it sent everything, so that it does not end the enter's wait (ping-pong:
//     one enter per message, which sends the reply and waits for the next request);
//
// and every request of a pass, those sends included, is submitted by the same io_uring_enter that
// then waits for the next completions. A loop makes one system call per pass however many
// connections it served, where epoll makes one per ready socket and direction plus its wait. The
// ring is set up IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN (only this thread
// submits; the kernel's completion work runs inside that enter instead of interrupting the
// thread whenever a packet lands), and the ring's own descriptor is registered, which spares the
// kernel a descriptor lookup per enter.
//
// Why a model of its own rather than a third EventLoop backend: EventLoop reports readiness and
// leaves the reading and writing to its user, which is one system call per operation again; a
// completion ring has to own the reads (it picks their buffers) and the writes (their buffers must
// stay put until the kernel is done) to batch them. So this file drives the ConnectionHandler
// itself, as thread_server.cc and event_loop_server.cc each do, and keeps their rules:
//
//   - Bounds. Received bytes are offered to the handler straight from the kernel's buffer when
//     nothing older waits (no copy); what it leaves joins the connection's input. A multishot
//     receive cannot be told how much room is left, so a connection uses one only while it has
//     kMultishotRoom of input room and its output is at most half its bound; nearer either bound
//     the loop cancels it and asks one receive at a time for at most the room left, and over
//     either bound it asks nothing until the connection drains. Bytes a multishot receive
//     delivered before its cancel landed wait aside, count as input, and are offered first (the
//     one way input can pass its bound: by what one pass of a multishot receive brought past
//     64 KiB of room). Output is two buffers, one being sent (the kernel reads it until the send
//     completes, so it must not move) and one gathering; the output bound counts both, and the
//     handler's bound is what the send in flight leaves of it.
//   - Timers (idle, head, send_not_before_nanos) are the epoll model's (internal/
//     server_connection.h), kept in the loop's TimerQueue and turned into the enter's timeout.
//   - Descriptors. Accepted connections are ordinary descriptors, so RLIMIT_NOFILE bounds them as
//     in the other models and the spare descriptor refuses the excess the same way. Direct
//     (registered-file) descriptors would escape that limit, which the server tests hold every
//     model to; the ring's own descriptor is registered instead.
//   - A connection is closed with close(2) at once, and its requests still out are cancelled by
//     the next enter (they hold the socket until then); its state lives until the kernel has
//     returned every request that names it, since a send's buffer is the kernel's till then.
//
// TLS runs through the same Transport as in the other models, with the ring telling a connection
// when its socket is ready instead of moving its bytes. BoringSSL reads and writes the socket
// itself (tls.cc's socket BIO, with its read-ahead), so a TLS connection has no receive the ring
// could fill nor a send it could gather: its socket is non-blocking, and it arms a one-shot
// IORING_OP_POLL_ADD for what it waits for (readable, or writable, as the handshake or a record
// wants) at the end of the pass, submitted by the pass's one enter like every other request. When
// the poll completes it runs the epoll model's turn (internal/transport_connection.h, which both
// models use): Handshake, Read of at most read_size per turn, the same bounds, the same handshake,
// head and idle timers. Its replies gather in its output while the pass runs and are written
// (Write: one record, one send, per 16 KiB) at the end of the pass, as the plain connections' sends
// are: a burst of records that one recv read ahead is answered by one record and one send, where
// the epoll model writes after every record it reads. A one-shot poll, not a multishot one: a
// multishot poll reports wake-ups, not state, and a TLS connection can leave bytes in the socket
// (its turn ends at read_size, or at a bound) that no new wake-up would announce; a poll armed
// afresh checks the state when it is armed, as level-triggered epoll does, for one submission entry
// and no system call of its own. Input the transport holds after a turn (records read ahead) is
// announced by nothing, so the connection queues a no-op whose completion brings its next turn and
// keeps that enter from waiting, as the epoll model's backlog does. What stays is a recv per
// wake-up and a send per pass and connection, outside the ring; feeding BoringSSL from the ring's
// receive buffers through memory BIOs (and sending its records through the ring) would batch those
// too, but it is a second TLS path beside tls.cc's, with its own rules for records, read-ahead and
// shutdown: not done.
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <new>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/byte_buffer.h"
#include "common/clock.h"
#include "common/errno_status.h"
#include "common/internal/server_connection.h"
#include "common/internal/server_models.h"
#include "common/internal/timer_queue.h"
#include "common/internal/transport_connection.h"
#include "common/internal/uring_buffer_ring.h"
#include "common/internal/uring_ring.h"
#include "common/socket.h"
#include "common/transport.h"

namespace netbench {
namespace internal {
namespace {

// What a completion is for: the low bits of its user_data; the rest is the connection's id.
enum Op : uint64_t {
  kAcceptOp = 1,
  kWakeOp = 2,
  kRecvOp = 3,
  kSendOp = 4,
  kCancelOp = 5,
  kListenerReadyOp = 6,
  kPollOp = 7,       // a TLS connection's socket is ready
  kTurnOp = 8,       // a TLS connection's owed turn (a no-op that completes at once)
  kQuietSendOp = 9,  // a send that posts a completion only when it falls short (see QuietSend)
};
constexpr int kOpBits = 4;
constexpr uint64_t UserData(uint64_t id, Op op) { return (id << kOpBits) | op; }

constexpr uint16_t kBufferGroup = 0;
// A provided buffer's size: read_size, up to this.
constexpr size_t kMaxBufferSize = 16 * 1024;
// A connection receives multishot only while this much input room is left and its output is at
// most half its bound; nearer its bounds, one receive at a time, never asking for more than the
// room (see the top).
constexpr size_t kMultishotRoom = 64 * 1024;

class UringWorker;
class UringTlsConnection;

class UringConnection final : public ServerConnection {
 public:
  UringConnection(UringWorker& worker, uint64_t id, UniqueFd fd,
                  std::unique_ptr<ConnectionHandler> handler);
  ~UringConnection() override;

  void Start();
  // A completion of this connection's receive; `data` is the kernel's buffer, valid during the
  // call.
  void OnReceived(int result, const char* data, bool more);
  void OnSent(int result);
  // A quiet send's completion, which the kernel posts only when it fell short or failed.
  void OnQuietSendFailed(int result);
  // After the enter that submitted a quiet send, with no such completion for it: it sent
  // everything, inside that enter's submit (at about `sent_at`).
  void OnQuietSent(int64_t sent_at);
  bool quiet_pending() const { return quiet_pending_; }
  void OnCancelDone() { --in_flight_; }
  // End of a pass: sends what gathered, re-arms or cancels the receive.
  void Prepare();

  // Closed, and the kernel has returned every request that named it.
  bool finished() const { return closed_ && in_flight_ == 0 && !recv_armed_ && !send_in_flight_; }
  uint64_t id() const { return id_; }
  bool dirty() const { return dirty_; }
  void set_dirty(bool value) { dirty_ = value; }

 private:
  size_t PendingOutput() const { return output_.size() + sending_.size(); }
  bool OutputFull() const { return PendingOutput() > options_.max_pending_output; }
  // Bytes set aside count: they are input the connection holds.
  size_t HeldInput() const { return input_.size() + aside_.size(); }
  bool InputFull() const { return HeldInput() >= options_.max_pending_input; }
  bool CanHandle() const { return !closing_ && !closed_ && !OutputFull(); }
  bool CanRead() const { return CanHandle() && !InputFull(); }
  // Offers `data` (not yet in input_) to the handler, within the input bound; what does not fit
  // or comes while the connection cannot read waits in aside_.
  void Feed(const char* data, size_t size);
  // Offers input_ (plus nothing new) to the handler. False once closed.
  bool Handle(absl::string_view input, bool from_input);
  // Work that needs no socket: input left for lack of output room, bytes set aside.
  void Resume();
  void OnHoldOver() override { MarkDirty(); }
  void MarkDirty();
  // Shuts the socket, cancels the requests that name it; the worker erases the connection once
  // they are back.
  void OnClose(bool graceful) override;

  UringWorker& worker_;
  const uint64_t id_;
  UniqueFd fd_;
  const int raw_fd_;
  ByteBuffer input_;
  ByteBuffer aside_;    // received while the connection could not read (see the top)
  ByteBuffer output_;   // gathering
  ByteBuffer sending_;  // the kernel's until the send completes
  bool recv_armed_ = false;
  bool recv_multishot_ = false;
  bool recv_cancelled_ = false;  // a cancel of the armed receive is on its way
  bool send_in_flight_ = false;
  bool quiet_pending_ = false;  // the send in flight is quiet and not yet settled
  bool send_blocked_ = false;   // the last send fell short: the next waits for room (not quiet)
  bool peer_closed_ = false;
  bool dirty_ = false;
  int in_flight_ = 0;  // cancels naming this connection
};

// A TLS connection (see the top): TransportConnection's turn, the event-loop models' own, with its
// replies gathered until the end of the pass. BoringSSL reads and writes the socket itself (the
// Transport), so the ring only tells the connection when its socket is ready: a one-shot
// IORING_OP_POLL_ADD armed at the end of the pass and submitted by the pass's enter. A turn owed
// (its transport held input after a full turn) is brought by a no-op that completes at once.
class UringTlsConnection final : public TransportConnection {
 public:
  UringTlsConnection(UringWorker& worker, uint64_t id, std::unique_ptr<Transport> transport,
                     std::unique_ptr<ConnectionHandler> handler);
  ~UringTlsConnection() override;

  void Start();
  // The connection's poll completed: `result` is poll(2)'s revents, or -errno.
  void OnPolled(int result);
  // The turn it was owed.
  void OnTurn();
  // End of a pass: writes what gathered, arms the poll for what the connection waits for, queues
  // an owed turn.
  void Prepare();

  bool dirty() const { return dirty_; }
  void set_dirty(bool value) { dirty_ = value; }

 private:
  void OweTurn() override {
    owes_turn_ = true;
    MarkDirty();
  }
  void Rewatch() override { MarkDirty(); }
  // Closes the socket; the worker erases this connection after the pass.
  void OnClose(bool graceful) override;
  void MarkDirty();

  UringWorker& worker_;
  const uint64_t id_;
  bool owes_turn_ = false;    // its transport held input after a full turn
  bool turn_queued_ = false;  // the no-op that brings that turn is out
  bool dirty_ = false;
  unsigned polled_ = 0;  // the armed poll's mask; 0: none armed
};

class UringWorker final : public ServerConnection::Timers {
 public:
  UringWorker(const ServerOptions& options, const HandlerFactory& handler_factory,
              std::atomic<int>& live, ServerFailure& failure, Listener listener)
      : options_(options),
        handler_factory_(handler_factory),
        live_(live),
        failure_(failure),
        listener_(std::move(listener)),
        buffer_size_(std::min(options.read_size, kMaxBufferSize)) {}

  ~UringWorker() {
    Join();
    ring_.Exit();  // before the buffers it was lent go
  }

  // Starts the loop's thread, which sets up its ring (IORING_SETUP_SINGLE_ISSUER binds a ring to
  // the thread that creates it, and DEFER_TASKRUN requires that binding); returns how that went.
  absl::Status Start() {
    std::promise<absl::Status> ready;
    std::future<absl::Status> setup = ready.get_future();
    thread_ = StartServerThread([this, &ready] {
      absl::Status status = Init();
      const bool ok = status.ok();
      ready.set_value(std::move(status));
      if (ok) Run();
    });
    absl::Status status = setup.get();
    if (!status.ok()) {
      thread_.join();
      CloseAll();
    }
    return status;
  }

 private:
  absl::Status Init() {
    if (absl::Status status = ring_.Init(); !status.ok()) {
      return status;
    }
    if (absl::Status status = buffers_.Init(
            ring_.get(), kBufferGroup, static_cast<unsigned>(options_.uring_buffers), buffer_size_);
        !status.ok()) {
      return status;
    }
    wake_.reset(eventfd(0, EFD_CLOEXEC));
    if (!wake_.valid()) return ErrnoStatus(errno, "eventfd");
    return absl::OkStatus();
  }

 public:
  void Join() {
    if (!thread_.joinable()) return;
    stop_.store(true, std::memory_order_release);
    uint64_t one = 1;
    (void)!write(wake_.get(), &one, sizeof(one));
    thread_.join();
    CloseAll();
  }

  // The next request slot, submitting what is queued when the ring is full (a system call more).
  io_uring_sqe* Sqe() {
    return ring_.Sqe([this] { ServerCounters::Add(counters_.system_calls, 1); });
  }

  // Multishot when `length` is 0; else one receive of at most `length` bytes.
  void ArmReceive(uint64_t id, int fd, size_t length) {
    io_uring_sqe* sqe = Sqe();
    if (length == 0) {
      io_uring_prep_recv_multishot(sqe, fd, nullptr, 0, 0);
    } else {
      io_uring_prep_recv(sqe, fd, nullptr, std::min(length, buffers_.size()), 0);
    }
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = kBufferGroup;
    io_uring_sqe_set_data64(sqe, UserData(id, kRecvOp));
  }

  // Cancels the connection's request of that kind (its receive, its send).
  void Cancel(uint64_t id, Op op) {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_cancel64(sqe, UserData(id, op), 0);
    io_uring_sqe_set_data64(sqe, UserData(id, kCancelOp));
  }

  // A send whose completion something waits on: the kernel waits for room if the socket has
  // none, and posts a completion either way.
  void Send(uint64_t id, int fd, const char* data, size_t size) {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_send(sqe, fd, data, size, MSG_NOSIGNAL);
    io_uring_sqe_set_data64(sqe, UserData(id, kSendOp));
  }

  // A one-shot readiness poll; `mask` is poll(2)'s.
  void Poll(uint64_t id, int fd, unsigned mask) {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_poll_add(sqe, fd, mask);
    io_uring_sqe_set_data64(sqe, UserData(id, kPollOp));
  }

  // Widens the connection's armed poll to `mask`. Its completion (kCancelOp) is dropped; the poll,
  // if it completed first, comes back on its own and is armed again with the wider mask.
  void UpdatePoll(uint64_t id, unsigned mask) {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_poll_update(sqe, UserData(id, kPollOp), UserData(id, kPollOp), mask,
                              IORING_POLL_UPDATE_EVENTS);
    io_uring_sqe_set_data64(sqe, UserData(id, kCancelOp));
  }

  // A turn for the connection after the next enter, which this request keeps from waiting.
  void QueueTurn(uint64_t id) {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, UserData(id, kTurnOp));
  }

  void MarkDirty(UringTlsConnection* connection) { MarkDirty(connection, tls_dirty_); }

  // A quiet send: one whose full completion nothing waits on (UringConnection::Prepare says
  // when), so that it need not end the enter's wait. Why a send would otherwise cost a second
  // enter: a send the socket takes at once completes inside the enter that submits it, and that
  // completion alone satisfies the wait for one, so the enter returns at once and the loop makes
  // a second one to wait for the next receive (ping-pong paid two enters per message that way).
  //
  //   - MSG_DONTWAIT makes the kernel settle it inside the submit (REQ_F_NOWAIT: it never waits
  //     for room, so it is done, short, or failed when the submit returns; the data is copied
  //     into the socket by then, so the buffer is ours again);
  //   - MSG_WAITALL makes a short send a failure (the kernel's io_net_retry), and a failure posts
  //     its completion with the bytes it did send (io_sendrecv_fail: res = done_io) or -EAGAIN;
  //   - IOSQE_CQE_SKIP_SUCCESS (kernel 5.17) posts nothing when it sent everything.
  //
  // So after the enter that submitted it, a quiet send with no completion sent all of it, and
  // one that fell short has its completion in the ring, which ended that enter's wait at once:
  // the loop goes on with it as with any completion, and no connection waits on a send that
  // completed silently. Checked on kernel 6.18 by sending into a full loopback socket (short:
  // the bytes sent; full: -EAGAIN; both posted inside the submit); the server tests' exact
  // counts under backpressure depend on it. This server already needs 6.1 (DEFER_TASKRUN).
  void QuietSend(UringConnection* connection, uint64_t id, int fd, const char* data, size_t size) {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_send(sqe, fd, data, size, MSG_NOSIGNAL | MSG_DONTWAIT | MSG_WAITALL);
    sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
    io_uring_sqe_set_data64(sqe, UserData(id, kQuietSendOp));
    quiet_.push_back(connection);
  }

  void MarkDirty(UringConnection* connection) { MarkDirty(connection, dirty_); }

  uint64_t AddTimer(int64_t when_nanos, std::function<void()> callback) override {
    return timers_.Add(when_nanos, std::move(callback));
  }
  void CancelTimer(uint64_t id) override { timers_.Cancel(id); }

  void Closed() {
    ServerCounters::Add(counters_.closed, 1);
    live_.fetch_sub(1, std::memory_order_relaxed);
  }

  const ServerOptions& options() const { return options_; }
  ServerCounters& counters() { return counters_; }
  const ServerCounters& counters() const { return counters_; }
  const Listener& listener() const { return listener_; }

 private:
  void Run() {
    // Registered now, on the thread that submits: the enters that follow skip the ring's
    // descriptor lookup.
    ring_.RegisterRingFd();
    ArmAccept();
    ArmWake();
    while (!stopping_) {
      Prepare();
      EraseFinished();
      // When the quiet sends of this pass went out (their completion time, for the idle timer).
      const int64_t sent_at =
          !quiet_.empty() && options_.idle_timeout_nanos > 0 ? MonotonicNanos() : 0;
      ServerCounters::Add(counters_.system_calls, 1);
      if (absl::Status status = ring_.SubmitAndWait(1, timers_.next()); !status.ok()) {
        Fail(status);
        return;
      }
      SettleQuietSends(sent_at);
      ring_.ForEachCompletion([this](const io_uring_cqe& cqe) { Dispatch(cqe); });
      // The buffers the handlers have seen, published to the kernel at once.
      buffers_.Publish();
      timers_.RunDue();
    }
  }

  // The quiet sends submitted by now (see QuietSend): those that fell short have a completion in
  // the ring; the others sent everything. Settled before the pass's completions are handled, so
  // that a handler sees the output room they freed. Not while some request waits unsubmitted (a
  // quiet send among them is not settled) or completions overflowed the ring (a short one's may
  // be among them): the next pass settles them, and a quiet send by its rule leaves nothing to
  // do when it completes, so no connection waits for that.
  void SettleQuietSends(int64_t sent_at) {
    if (quiet_.empty()) return;
    io_uring& ring = ring_.get();
    if (io_uring_sq_ready(&ring) > 0 ||
        (IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_CQ_OVERFLOW) != 0) {
      return;
    }
    unsigned head;
    io_uring_cqe* cqe;
    io_uring_for_each_cqe(&ring, head, cqe) {
      if ((cqe->user_data & ((1 << kOpBits) - 1)) != kQuietSendOp) continue;
      auto it = connections_.find(cqe->user_data >> kOpBits);
      if (it != connections_.end())
        CatchBadAlloc(*it->second, [&] { it->second->OnQuietSendFailed(cqe->res); });
    }
    for (UringConnection* connection : quiet_) {
      if (connection->quiet_pending()) {
        CatchBadAlloc(*connection, [&] { connection->OnQuietSent(sent_at); });
      }
      if (connection->finished()) finished_.push_back(connection->id());
    }
    quiet_.clear();
  }

  template <typename F>
  static void CatchBadAlloc(UringConnection& connection, F&& work) {
    try {
      work();
    } catch (const std::bad_alloc&) {
      connection.CloseOutOfMemory();
    }
  }

  void Dispatch(const io_uring_cqe& cqe) {
    const uint64_t data = cqe.user_data;
    const Op op = static_cast<Op>(data & ((1 << kOpBits) - 1));
    const uint64_t id = data >> kOpBits;
    const bool more = (cqe.flags & IORING_CQE_F_MORE) != 0;
    switch (op) {
      case kAcceptOp:
        OnAccepted(cqe.res, more);
        return;
      case kListenerReadyOp:
        ArmAccept();
        return;
      case kPollOp:
      case kTurnOp:
        DispatchTls(id, op, cqe.res);
        return;
      case kWakeOp:
        if (stop_.load(std::memory_order_acquire)) {
          stopping_ = true;
        } else {
          ArmWake();
        }
        return;
      default:
        break;
    }
    const bool has_buffer = (cqe.flags & IORING_CQE_F_BUFFER) != 0;
    const unsigned buffer_id = cqe.flags >> IORING_CQE_BUFFER_SHIFT;
    const char* buffer = has_buffer ? buffers_.data(buffer_id) : nullptr;
    auto it = connections_.find(id);
    if (it != connections_.end()) {
      UringConnection* connection = it->second.get();
      // A buffer the system refuses to map (ByteBuffer throws std::bad_alloc) closes that
      // connection alone, as in the other models.
      try {
        switch (op) {
          case kRecvOp:
            if (cqe.res == -ENOBUFS) ServerCounters::Add(counters_.receive_buffer_shortages, 1);
            connection->OnReceived(cqe.res, buffer, more);
            break;
          case kSendOp:
            connection->OnSent(cqe.res);
            break;
          case kQuietSendOp:  // settled already, unless SettleQuietSends left it for later
            connection->OnQuietSendFailed(cqe.res);
            break;
          case kCancelOp:
            connection->OnCancelDone();
            break;
          default:
            break;
        }
      } catch (const std::bad_alloc&) {
        connection->CloseOutOfMemory();
      }
      if (connection->finished()) finished_.push_back(id);
    }
    // Handed back once the handler has seen it: the kernel may fill it again from the next
    // enter on.
    if (has_buffer) buffers_.Return(buffer_id);
  }

  void DispatchTls(uint64_t id, Op op, int result);

  // After Prepare, which is the last to hold pointers to connections that closed in the pass.
  void EraseFinished() {
    for (uint64_t id : tls_finished_) tls_connections_.erase(id);
    tls_finished_.clear();
    for (uint64_t id : finished_) {
      auto it = connections_.find(id);
      if (it != connections_.end() && it->second->finished()) connections_.erase(it);
    }
    finished_.clear();
  }

  void ArmAccept() {
    io_uring_sqe* sqe = Sqe();
    // TLS connections are non-blocking: their transport reads and writes them itself and hears
    // "would block" instead of waiting.
    const int flags = SOCK_CLOEXEC | (options_.tls != nullptr ? SOCK_NONBLOCK : 0);
    io_uring_prep_multishot_accept(sqe, listener_.fd.get(), nullptr, nullptr, flags);
    io_uring_sqe_set_data64(sqe, UserData(0, kAcceptOp));
  }

  // A connection waits on the listener. Out of descriptors, an accept fails with EMFILE before it
  // looks at the queue (the kernel takes the descriptor first), so re-arming it at once with
  // nothing pending would spin; the loop waits for a connection to be pending instead, as the
  // other event loops wait for the listener to be readable.
  void ArmListenerReady() {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_poll_add(sqe, listener_.fd.get(), POLLIN);
    io_uring_sqe_set_data64(sqe, UserData(0, kListenerReadyOp));
  }

  // Join's eventfd write ends the loop. A poll, not a read: an eventfd read would wait in an
  // io_uring worker thread.
  void ArmWake() {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_poll_add(sqe, wake_.get(), POLLIN);
    io_uring_sqe_set_data64(sqe, UserData(0, kWakeOp));
  }

  void OnAccepted(int result, bool more) {
    ServerCounters::Add(counters_.accept_calls, 1);
    if (result >= 0) {
      UniqueFd accepted(result);
      if (!more) ArmAccept();
      // A multishot accept reads RLIMIT_NOFILE once, when it is armed (the kernel's
      // io_accept_prep): a descriptor at or over the limit now is one accept(2) would have refused
      // with EMFILE, and it is refused as the other models refuse those.
      rlimit limit{};
      ServerCounters::Add(counters_.system_calls, 1);
      if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && static_cast<rlim_t>(result) >= limit.rlim_cur) {
        ServerCounters::Add(counters_.refused, 1);
        return;  // closes it
      }
      if (live_.fetch_add(1, std::memory_order_relaxed) >= options_.max_connections) {
        live_.fetch_sub(1, std::memory_order_relaxed);
        ServerCounters::Add(counters_.rejected, 1);
        return;  // closes it
      }
      ServerCounters::Add(counters_.accepted, 1);
      const uint64_t id = next_id_++;
      if (options_.tls != nullptr) {
        StartTlsConnection(id, std::move(accepted));
        return;
      }
      auto connection =
          std::make_unique<UringConnection>(*this, id, std::move(accepted), handler_factory_());
      UringConnection* raw = connection.get();
      connections_[id] = std::move(connection);
      raw->Start();
      return;
    }
    if (result == -EMFILE || result == -ENFILE) {
      // Out of descriptors, as the epoll model answers it: refuse what waits through the spare,
      // with the listener non-blocking for the while (the ring's accepts want it blocking).
      const int fd = listener_.fd.get();
      const int flags = fcntl(fd, F_GETFL);
      fcntl(fd, F_SETFL, flags | O_NONBLOCK);
      SpareDescriptor::Outcome outcome = SpareDescriptor::kRefused;
      for (int i = 0; i < 64 && outcome == SpareDescriptor::kRefused; ++i) {
        outcome = RefusePending(spare_, fd, counters_);
      }
      fcntl(fd, F_SETFL, flags);
      ServerCounters::Add(counters_.system_calls, 2);
      if (outcome == SpareDescriptor::kRefused) {
        if (!more) ArmAccept();
        return;
      }
      if (outcome == SpareDescriptor::kNonePending) {
        if (!more) ArmListenerReady();
        return;
      }
      // No slot even for the spare: wait a moment rather than spin.
      if (!more) AddTimer(MonotonicNanos() + 10 * kNanosPerMilli, [this] { ArmAccept(); });
      return;
    }
    // A connection that reset before it was taken, or the like: accept on.
    if (!more) ArmAccept();
  }

  void StartTlsConnection(uint64_t id, UniqueFd fd);

  void Prepare() {
    Prepare(tls_dirty_);
    Prepare(dirty_);
  }

  // `connection` has something to do at the end of the pass (Prepare).
  template <typename Connection>
  static void MarkDirty(Connection* connection, std::vector<Connection*>& dirty) {
    if (connection->dirty() || connection->closed()) return;
    connection->set_dirty(true);
    dirty.push_back(connection);
  }

  template <typename Connection>
  static void Prepare(std::vector<Connection*>& dirty) {
    // A connection's Prepare may close it (it never adds another to the list).
    for (size_t i = 0; i < dirty.size(); ++i) {
      Connection* connection = dirty[i];
      connection->set_dirty(false);
      try {
        connection->Prepare();
      } catch (const std::bad_alloc&) {
        connection->CloseOutOfMemory();
      }
    }
    dirty.clear();
  }

  void Fail(const absl::Status& error) {
    const size_t open = connections_.size();
    CloseAll();
    failure_.Report(absl::Status(
        error.code(),
        absl::StrCat("uring event loop failed: ", error.message(),
                     "; it stopped and closed its listener and ", open, " connections")));
  }

  // After the loop: the ring goes first (its exit cancels and waits for every request), then the
  // connections and their descriptors.
  void CloseAll() {
    ring_.Exit();
    dirty_.clear();
    tls_dirty_.clear();
    quiet_.clear();
    connections_.clear();
    tls_connections_.clear();
    listener_.fd.reset();
  }

  const ServerOptions& options_;
  const HandlerFactory& handler_factory_;
  std::atomic<int>& live_;
  ServerFailure& failure_;
  Listener listener_;
  const size_t buffer_size_;
  UringBufferRing buffers_;
  UringRing ring_;  // exits before buffers_ goes (declared after it)
  UniqueFd wake_;
  std::atomic<bool> stop_{false};
  bool stopping_ = false;  // loop thread only
  ServerCounters counters_;
  SpareDescriptor spare_;
  uint64_t next_id_ = 1;
  TimerQueue timers_;  // the connections' timers among them: it outlives them
  std::unordered_map<uint64_t, std::unique_ptr<UringConnection>> connections_;
  // TLS connections hold nothing the kernel reads or writes (their requests are polls), so they
  // go as soon as they close: tls_finished_ is erased after Prepare.
  std::unordered_map<uint64_t, std::unique_ptr<UringTlsConnection>> tls_connections_;
  std::vector<UringTlsConnection*> tls_dirty_;
  std::vector<uint64_t> tls_finished_;
  std::vector<UringConnection*> dirty_;
  std::vector<UringConnection*> quiet_;  // connections with a quiet send not yet settled
  std::vector<uint64_t> finished_;       // ids of connections to erase after Prepare
  std::thread thread_;

  friend class UringConnection;
  friend class UringTlsConnection;
};

UringConnection::UringConnection(UringWorker& worker, uint64_t id, UniqueFd fd,
                                 std::unique_ptr<ConnectionHandler> handler)
    : ServerConnection(worker, worker.options(), worker.counters(), std::move(handler)),
      worker_(worker),
      id_(id),
      fd_(std::move(fd)),
      raw_fd_(fd_.get()) {}

UringConnection::~UringConnection() {
  // Still open only when the worker shuts down (the ring is gone by then).
  if (!closed_) {
    fd_.reset();  // closed before it is counted closed: whoever sees the count finds it free
    worker_.Closed();
  }
}

void UringConnection::Start() {
  StartIdleTimer();
  MarkDirty();  // arms the receive
}

void UringConnection::MarkDirty() { worker_.MarkDirty(this); }

void UringConnection::OnReceived(int result, const char* data, bool more) {
  if (!more) {
    recv_armed_ = false;
    recv_cancelled_ = false;
  }
  if (closed_) return;
  if (result > 0) {
    ServerCounters::Add(counters_.bytes_read, static_cast<uint64_t>(result));
    NoteActivity();
    Feed(data, static_cast<size_t>(result));
  } else if (result == 0) {
    peer_closed_ = true;
    if (!closing_) {
      handler_->OnPeerClosed(output_);
      closing_ = true;
    }
  } else if (result != -ENOBUFS && result != -ECANCELED) {
    Close(/*graceful=*/false);
    return;
  }
  if (!closed_) MarkDirty();
}

void UringConnection::Feed(const char* data, size_t size) {
  if (!aside_.empty() || !CanRead() || reoffer_) {
    aside_.Append(data, size);
    return;
  }
  while (size > 0 && CanRead() && !reoffer_) {
    const size_t room = options_.max_pending_input - HeldInput();
    const size_t take = std::min(size, room);
    if (input_.empty()) {
      // Straight from the kernel's buffer; only what the handler leaves is copied.
      if (!Handle(absl::string_view(data, take), /*from_input=*/false)) return;
    } else {
      input_.Append(data, take);
      if (!Handle(input_.view(), /*from_input=*/true)) return;
    }
    data += take;
    size -= take;
  }
  if (size > 0) aside_.Append(data, size);
}

bool UringConnection::Handle(absl::string_view input, bool from_input) {
  ServerCounters::Max(counters_.peak_pending_input, input.size());
  // The handler sees only output_; what is being sent takes its share of the bound.
  handler_->set_output_bound(options_.max_pending_output -
                             std::min(sending_.size(), options_.max_pending_output));
  HandlerResult result = handler_->OnData(input, output_);
  if (from_input) {
    input_.Consume(result.consumed);
  } else if (result.consumed < input.size()) {
    input_.Append(input.substr(result.consumed));
  }
  if (input_.size() >= options_.max_pending_input && result.consumed == 0) {
    Close(/*graceful=*/false);  // it needs more input than the bound allows
    return false;
  }
  reoffer_ = result.consumed > 0 && !input_.empty() && OutputFull();
  ServerCounters::Max(counters_.peak_pending_output, PendingOutput());
  Settle(result);
  return true;
}

void UringConnection::Resume() {
  while (!closed_ && CanHandle()) {
    if (reoffer_) {
      if (!Handle(input_.view(), /*from_input=*/true)) return;
      continue;
    }
    // Bytes set aside may be past the bound themselves (see the top): they move into input_ as
    // input_ has room, whatever they hold.
    if (aside_.empty() || input_.size() >= options_.max_pending_input) return;
    // A read's worth at a time, as the receives that brought it: the output bound allows one
    // handler call's reply past it.
    const size_t take = std::min(
        {aside_.size(), options_.read_size,
         options_.max_pending_input - std::min(input_.size(), options_.max_pending_input)});
    if (take == 0) return;
    input_.Append(aside_.data(), take);
    aside_.Consume(take);
    if (!Handle(input_.view(), /*from_input=*/true)) return;
  }
}

void UringConnection::OnSent(int result) {
  send_in_flight_ = false;
  if (closed_) return;
  if (result < 0) {
    Close(/*graceful=*/false);
    return;
  }
  if (static_cast<size_t>(result) == sending_.size()) send_blocked_ = false;
  sending_.Consume(static_cast<size_t>(result));
  ServerCounters::Add(counters_.bytes_written, static_cast<uint64_t>(result));
  NoteActivity();
  MarkDirty();
}

void UringConnection::Prepare() {
  if (closed_) return;
  Resume();
  if (closed_) return;
  bool send = false;
  if (!send_in_flight_ && !held_) {
    if (sending_.empty() && !output_.empty()) std::swap(sending_, output_);
    if (!sending_.empty()) {
      send = true;
    } else if (closing_) {
      Close(/*graceful=*/true);
      return;
    }
  }
  const bool over = OutputFull() || InputFull();
  SetPaused(over);
  const bool want_read = !peer_closed_ && CanRead() && aside_.empty() && !reoffer_;
  const size_t room = over ? 0 : options_.max_pending_input - HeldInput();
  const bool roomy = room >= kMultishotRoom && PendingOutput() <= options_.max_pending_output / 2;
  if (want_read && !recv_armed_) {
    recv_multishot_ = roomy;
    worker_.ArmReceive(id_, raw_fd_, roomy ? 0 : room);
    recv_armed_ = true;
  } else if ((!want_read || !roomy) && recv_armed_ && recv_multishot_ && !recv_cancelled_ &&
             !peer_closed_) {
    worker_.Cancel(id_, kRecvOp);
    recv_cancelled_ = true;
    ++in_flight_;
  }
  if (!send) return;
  send_in_flight_ = true;
  // Quiet (its full completion ends no wait; see UringWorker::QuietSend) only when that
  // completion would leave this connection nothing to do: a receive stays armed for what comes
  // next (not paused by a bound, not cancelled, the peer not gone), the connection is not closing
  // after its output, no output gathers behind this send, no input waits for the room it frees,
  // and the last send did not fall short (then this one waits for room, with a completion). Any
  // other send keeps the enter's wait to its completion, as before.
  const bool quiet =
      !send_blocked_ && want_read && recv_armed_ && !recv_cancelled_ && output_.empty();
  if (quiet) {
    quiet_pending_ = true;
    worker_.QuietSend(this, id_, raw_fd_, sending_.data(), sending_.size());
  } else {
    worker_.Send(id_, raw_fd_, sending_.data(), sending_.size());
  }
}

void UringConnection::OnQuietSendFailed(int result) {
  if (!quiet_pending_) return;
  quiet_pending_ = false;
  // Short or refused: the socket is full, so the rest waits for room (a send with a completion).
  send_blocked_ = true;
  if (result == -EAGAIN) {
    send_in_flight_ = false;
    if (!closed_) MarkDirty();
    return;
  }
  OnSent(result);
}

void UringConnection::OnQuietSent(int64_t sent_at) {
  quiet_pending_ = false;
  send_in_flight_ = false;
  if (closed_) return;
  ServerCounters::Add(counters_.bytes_written, sending_.size());
  sending_.Consume(sending_.size());  // as OnSent drains it: storage a burst grew goes back
  if (options_.idle_timeout_nanos > 0) last_active_ = std::max(last_active_, sent_at);
  // Nothing else: its rule (Prepare) says nothing waits on it.
}

void UringConnection::OnClose(bool graceful) {
  // Graceful: the peer sees our FIN after the last reply.
  if (graceful) {
    ServerCounters::Add(counters_.system_calls, 1);
    shutdown(raw_fd_, SHUT_WR);
  }
  // The requests still out hold the socket open until the next enter cancels them; the
  // descriptor is free at once. The connection lives on until they come back.
  if (recv_armed_ && !recv_cancelled_) {
    worker_.Cancel(id_, kRecvOp);
    recv_cancelled_ = true;
    ++in_flight_;
  }
  if (send_in_flight_) {
    worker_.Cancel(id_, quiet_pending_ ? kQuietSendOp : kSendOp);
    ++in_flight_;
  }
  ServerCounters::Add(counters_.system_calls, 1);
  fd_.reset();
  worker_.Closed();
  if (finished()) worker_.finished_.push_back(id_);
}

void UringWorker::DispatchTls(uint64_t id, Op op, int result) {
  auto it = tls_connections_.find(id);
  if (it == tls_connections_.end()) return;  // closed since: its poll was cancelled
  UringTlsConnection* connection = it->second.get();
  try {
    if (op == kPollOp) {
      connection->OnPolled(result);
    } else {
      connection->OnTurn();
    }
  } catch (const std::bad_alloc&) {
    connection->CloseOutOfMemory();
  }
}

void UringWorker::StartTlsConnection(uint64_t id, UniqueFd fd) {
  // As the other models' accepts do: small replies go out at once.
  ServerCounters::Add(counters_.system_calls, 1);
  (void)SetNoDelay(fd.get());
  absl::StatusOr<std::unique_ptr<Transport>> transport =
      MakeServerTransport(options_, std::move(fd));
  if (!transport.ok()) {
    Closed();
    return;
  }
  auto connection =
      std::make_unique<UringTlsConnection>(*this, id, *std::move(transport), handler_factory_());
  UringTlsConnection* raw = connection.get();
  tls_connections_[id] = std::move(connection);
  try {
    raw->Start();
  } catch (const std::bad_alloc&) {
    raw->CloseOutOfMemory();
  }
}

UringTlsConnection::UringTlsConnection(UringWorker& worker, uint64_t id,
                                       std::unique_ptr<Transport> transport,
                                       std::unique_ptr<ConnectionHandler> handler)
    : TransportConnection(worker, worker.options(), worker.counters(), std::move(transport),
                          std::move(handler),
                          Rules{.write_at_once = false, .count_handshake = true}),
      worker_(worker),
      id_(id) {}

UringTlsConnection::~UringTlsConnection() {
  // Still open only when the worker shuts down (the ring is gone by then).
  if (!closed_) {
    transport_.reset();  // closed before it is counted closed: whoever sees the count finds it free
    worker_.Closed();
  }
}

void UringTlsConnection::Start() {
  if (Begin()) MarkDirty();
}

void UringTlsConnection::OnPolled(int result) {
  polled_ = 0;
  if (closed_) return;
  if (result >= 0) {
    const bool hangup = (result & (POLLHUP | POLLERR)) != 0;
    (void)OnReady((result & POLLIN) != 0 || hangup, (result & POLLOUT) != 0 || hangup, hangup);
  }
  if (!closed_) MarkDirty();  // the poll again, for what it waits for now
}

void UringTlsConnection::OnTurn() {
  turn_queued_ = false;
  if (closed_) return;
  if (TakeTurn()) MarkDirty();
}

void UringTlsConnection::Prepare() {
  if (closed_) return;
  // The pass's replies go out together, as the plain connections' sends do: one TLS record and one
  // send per connection and pass, where the epoll model writes after every read.
  if (!handshaking() && !Flush()) return;
  // Room made, or input still held: another turn, without waiting for the socket.
  if (HoldsReadableInput()) owes_turn_ = true;
  const Interest interest = Wants();
  unsigned want = (interest.readable ? POLLIN : 0) | (interest.writable ? POLLOUT : 0);
  if (owes_turn_ && !turn_queued_) {
    worker_.QueueTurn(id_);
    turn_queued_ = true;
  }
  owes_turn_ = false;
  // A poll armed for more than is wanted now completes once for nothing and is not armed again.
  if (want == 0 || (polled_ & want) == want) return;
  if (polled_ == 0) {
    worker_.Poll(id_, fd_, want);
  } else {
    want |= polled_;
    worker_.UpdatePoll(id_, want);
  }
  polled_ = want;
}

void UringTlsConnection::MarkDirty() { worker_.MarkDirty(this); }

void UringTlsConnection::OnClose(bool graceful) {
  // Graceful: the peer sees our close_notify and FIN after the last reply.
  if (graceful) {
    ServerCounters::Add(counters_.system_calls, 2);
    transport_->ShutdownWrite();
  }
  // The armed poll holds the socket open until the next enter cancels it.
  if (polled_ != 0) worker_.Cancel(id_, kPollOp);
  polled_ = 0;
  ServerCounters::Add(counters_.system_calls, 1);
  transport_.reset();
  worker_.Closed();
  worker_.tls_finished_.push_back(id_);
}

absl::StatusOr<Listener> ListenFor(const ServerOptions& options, int port) {
  ListenOptions listen_options;
  listen_options.host = options.host;
  listen_options.port = port;
  listen_options.reuse_port = options.threads > 1;
  // Blocking: io_uring's accept on a non-blocking listener would complete with EAGAIN instead of
  // waiting.
  listen_options.non_blocking = false;
  return Listen(listen_options);
}

class UringServer final : public WorkerServer<UringWorker> {
 public:
  using WorkerServer::WorkerServer;

  absl::Status Start() {
    int port = options_.port;
    for (int i = 0; i < options_.threads; ++i) {
      absl::StatusOr<Listener> listener = ListenFor(options_, port);
      if (!listener.ok()) return listener.status();
      port = listener->port;
      workers_.push_back(std::make_unique<UringWorker>(options_, handler_factory_, live_, failure_,
                                                       *std::move(listener)));
      if (absl::Status status = workers_.back()->Start(); !status.ok()) return status;
    }
    return absl::OkStatus();
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> StartUringServer(const ServerOptions& options,
                                                         HandlerFactory handler_factory) {
  auto server = std::make_unique<UringServer>(options, std::move(handler_factory));
  if (absl::Status status = server->Start(); !status.ok()) return status;
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace internal
}  // namespace netbench
