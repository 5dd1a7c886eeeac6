// The client driver's uring model: `threads` loops on io_uring, each on its own thread with its
// own ring, share the connections (slot i on loop i % threads) as the poll and epoll loops do
// (loop_client_runner.cc), and drive each slot through the same states (internal/client_slot.h):
// open, wait for the latch, load, end, the next session. What differs is how the load moves bytes
// on plain TCP:
//
//   - one multishot receive per connection into the loop's provided buffer ring
//     (internal/uring_buffer_ring.h): the bytes go to the session straight from the kernel's
//     buffer (ClientConnection::DeliverReceived), without a read call; a completion without
//     IORING_CQE_F_MORE ended the receive (ENOBUFS when every buffer was out) and it is armed
//     again at the end of the pass;
//   - a send (IORING_OP_SEND), one in flight per connection. A large output (kInPlaceBytes on)
//     is sent where the session keeps it (ClientConnection::TakeOutput), which stays valid until
//     its next NextOutput, asked only once the send wrote it in full (MarkWritten). Small outputs
//     are gathered instead: up to kOutputsPerSend of them are copied into the slot's own buffer
//     and sent at once, as the epoll model writes up to 16 outputs per wakeup with a call each
//     (a stream of 22-byte messages would otherwise cost an enter per message and connection);
//
// and every request of a pass is submitted by the one io_uring_enter that then waits for the next
// completions, its timeout the nearest timer (a deadline, a paced send), if any. Go and
// Abort reach a loop through a posted task and an eventfd the ring polls. The ring is set up
// IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN on the loop's own thread, with its descriptor
// registered, as the uring server's (uring_server.cc).
//
// Opening (connect, TLS handshake, the session's opening exchange) stays on ClientConnection's
// non-blocking steps; the loop waits for the readiness each step asks for with IORING_OP_POLL_ADD,
// submitted in the pass's enter. TLS connections keep doing so in the load phase too: readiness by
// POLL_ADD, then PumpInput/PumpOutput read and write through the TLS transport, as the epoll
// model does (the TLS library reads and writes the socket itself).
//
// A session that ends with requests still naming its socket (a receive, a send, a poll) has them
// cancelled and waits for every one to come back before it is ended: its socket closes, goes into
// the pool, or its session's output is freed only once the kernel is done with them.
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/errno_status.h"
#include "common/internal/client_runner.h"
#include "common/internal/client_slot.h"
#include "common/internal/timer_queue.h"
#include "common/internal/uring_buffer_ring.h"
#include "common/internal/uring_ring.h"
#include "common/transport.h"
#include "common/unique_fd.h"

namespace netbench {
namespace internal {
namespace {

// What a completion is for: the low bits of its user_data; the rest is the slot's index on its
// loop.
enum Op : uint64_t {
  kWakeOp = 1,
  kReadableOp = 2,  // POLL_ADD POLLIN (opening, TLS)
  kWritableOp = 3,  // POLL_ADD POLLOUT (opening, TLS)
  kRecvOp = 4,      // multishot receive (plain TCP, load)
  kSendOp = 5,      // send of the pending output (plain TCP, load)
  kCancelOp = 6,
};
constexpr int kOpBits = 3;
constexpr uint64_t UserData(uint64_t index, Op op) { return (index << kOpBits) | op; }

constexpr uint16_t kBufferGroup = 0;
constexpr size_t kBufferSize = 16 * 1024;
// Outputs at least this large are sent in place; smaller ones are gathered, up to kOutputsPerSend
// of them (and at most about kInPlaceBytes), into one send.
constexpr size_t kInPlaceBytes = 4096;
constexpr int kOutputsPerSend = 16;

class UringClientLoop;

// One slot on a loop (internal/client_slot.h): while it opens, and through a TLS session, the
// ring polls its socket for readiness; in a plain TCP session's load the ring receives and sends.
class UringSlot final : public ClientSlot {
 public:
  UringSlot(UringClientLoop& loop, ClientConnection& c, uint64_t index);

  void OnCompletion(Op op, int result, const char* data, bool more);
  // End of a pass: sends what the session has, re-arms the receive.
  void Prepare();

  bool dirty() const { return dirty_; }
  void set_dirty(bool value) { dirty_ = value; }

 private:
  // Arms a poll for each readiness wanted that none watches yet.
  void Watch(bool readable, bool writable) override;
  uint64_t AddTimer(int64_t when_nanos, std::function<void()> callback) override;
  void CancelTimer(uint64_t id) override;
  // Plain TCP: the ring receives and sends from the next pass on (Prepare).
  void BeginLoad() override;
  // A plain load's send waits for the next pass (Prepare); TLS writes at once.
  void OnPaced() override;
  // First every request naming the socket comes back (cancelled).
  bool ReleaseSocket() override;
  void SlotEnded() override;

  void OnReceived(int result, const char* data);
  void OnSent(int result);
  // Sends the session's next output(s) (plain load, no send in flight).
  void SendOutput();
  void MarkDirty();
  void CancelRequests();

  UringClientLoop& loop_;
  const uint64_t index_;
  bool plain_load_ = false;  // plain TCP in its load phase: the ring receives and sends
  bool readable_armed_ = false;
  bool writable_armed_ = false;
  bool recv_armed_ = false;
  bool send_in_flight_ = false;
  bool send_in_place_ = false;  // the send in flight is of the session's own bytes
  // Small outputs gathered for the send in flight (or the next): the slot's, kept across sessions.
  std::string gathered_;
  size_t gathered_sent_ = 0;  // of gathered_, written
  bool peer_closed_ = false;
  int in_flight_ = 0;  // requests naming the socket, cancels included
  bool dirty_ = false;
};

class UringClientLoop {
 public:
  // `stats`: the statistics of the loop's connections' thread, where its system calls count.
  UringClientLoop(RunState& run, ClientStats& stats) : run_(run), stats_(stats) {}

  ~UringClientLoop() {
    Join();
    ring_.Exit();
  }

  void Add(ClientConnection& c) {
    slots_.push_back(std::make_unique<UringSlot>(*this, c, slots_.size()));
  }

  // Starts the loop's thread, which sets up its ring (SINGLE_ISSUER binds a ring to the thread
  // that creates it) and returns how that went; the thread then waits for Begin, so that no
  // connection opens before every loop of the run has its ring.
  absl::Status Start() {
    std::promise<absl::Status> ready;
    std::future<absl::Status> setup = ready.get_future();
    std::shared_future<bool> begin = begin_.get_future().share();
    thread_ = std::thread([this, &ready, begin] {
      absl::Status status = Init();
      const bool ok = status.ok();
      ready.set_value(std::move(status));
      if (ok && begin.get()) Run();
    });
    absl::Status status = setup.get();
    if (!status.ok()) thread_.join();
    return status;
  }
  // After a successful Start: true runs the loop, false ends its thread.
  void Begin(bool run) { begin_.set_value(run); }

  void Go() {
    Post([this] {
      for (auto& slot : slots_) slot->Go();
    });
  }
  void Abort() {
    Post([this] {
      for (auto& slot : slots_) slot->Abandon();
    });
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

  RunState& run() { return run_; }
  ReadScratch& scratch() { return scratch_; }
  void SlotEnded() { --remaining_; }

  // The next request slot, submitting what is queued when the ring is full (a system call more).
  io_uring_sqe* Sqe() {
    return ring_.Sqe([this] { ++stats_.system_calls; });
  }
  void PollAdd(uint64_t index, int fd, Op op) {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_poll_add(sqe, fd, op == kReadableOp ? POLLIN : POLLOUT);
    io_uring_sqe_set_data64(sqe, UserData(index, op));
  }
  void Receive(uint64_t index, int fd) {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_recv_multishot(sqe, fd, nullptr, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = kBufferGroup;
    io_uring_sqe_set_data64(sqe, UserData(index, kRecvOp));
  }
  // MSG_WAITALL: the kernel retries a short send until every byte is written (kernel 5.19 on),
  // so that a completion means all of it or an error. `then_idle`: after it the slot waits for
  // input only (see Run).
  void Send(uint64_t index, int fd, absl::string_view data, bool then_idle) {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_send(sqe, fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_WAITALL);
    io_uring_sqe_set_data64(sqe, UserData(index, kSendOp));
    if (then_idle) {
      ++sends_then_idle_;
    } else {
      other_sends_ = true;
    }
  }
  void Cancel(uint64_t index, Op op) {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_cancel64(sqe, UserData(index, op), 0);
    io_uring_sqe_set_data64(sqe, UserData(index, kCancelOp));
  }

  void MarkDirty(UringSlot* slot) {
    if (slot->dirty()) return;
    slot->set_dirty(true);
    dirty_.push_back(slot);
  }

  uint64_t AddTimer(int64_t when_nanos, std::function<void()> callback) {
    return timers_.Add(when_nanos, std::move(callback));
  }
  void CancelTimer(uint64_t id) { timers_.Cancel(id); }

 private:
  absl::Status Init() {
    if (absl::Status status = ring_.Init(); !status.ok()) {
      return status;
    }
    const int count = run_.options->uring_buffers;
    if (absl::Status status = buffers_.Init(ring_.get(), kBufferGroup, count, kBufferSize);
        !status.ok()) {
      return status;
    }
    wake_.reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!wake_.valid()) return ErrnoStatus(errno, "eventfd");
    return absl::OkStatus();
  }

  void Post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(posted_mutex_);
      posted_.push_back(std::move(task));
    }
    uint64_t one = 1;
    (void)!write(wake_.get(), &one, sizeof(one));
  }

  // A poll, not a read: an eventfd read would wait in an io_uring worker thread.
  void ArmWake() {
    io_uring_sqe* sqe = Sqe();
    io_uring_prep_poll_add(sqe, wake_.get(), POLLIN);
    io_uring_sqe_set_data64(sqe, UserData(0, kWakeOp));
  }

  void OnWake() {
    uint64_t value;
    ++stats_.system_calls;
    (void)!read(wake_.get(), &value, sizeof(value));
    std::vector<std::function<void()>> tasks;
    {
      std::lock_guard<std::mutex> lock(posted_mutex_);
      tasks.swap(posted_);
    }
    for (auto& task : tasks) task();
    ArmWake();
  }

  void Run() {
    // Registered on the thread that submits: the enters that follow skip the ring's descriptor
    // lookup. Optional (kernel 5.18): without it they look it up.
    ++stats_.system_calls;
    ring_.RegisterRingFd();
    remaining_ = static_cast<int>(slots_.size());
    ArmWake();
    for (auto& slot : slots_) slot->BeginOpen();
    while (remaining_ > 0) {
      Prepare();
      if (remaining_ == 0) break;
      // No timer, no timeout: a timeout costs an hrtimer armed and cancelled per enter, dearer
      // on these VMs than the system call (docs/notes/2026-12-02-uring-bench-results.md); Go and
      // Abort come through the eventfd.
      // A send that the socket takes at once completes inside the enter that submits it, and its
      // completion alone would end the wait: a ping-pong would take two enters per message, one
      // for the send and one for the answer. When every send of the pass leaves its slot waiting
      // for input only (sends_then_idle_), their completions alone would give the loop nothing to
      // do, so the enter waits for one completion more than them; a timer still bounds it, and
      // Go and Abort still end it through the eventfd. (A send that fails resets its connection,
      // whose receive then ends too: that is the completion more.)
      const unsigned wait_for = other_sends_ ? 1 : 1 + sends_then_idle_;
      sends_then_idle_ = 0;
      other_sends_ = false;
      ++stats_.system_calls;
      if (absl::Status status = ring_.SubmitAndWait(wait_for, timers_.next()); !status.ok()) {
        // Every connection of this loop ends with that cause; the run goes on with the other
        // loops'. The ring goes first: its exit takes back every request.
        ring_.Exit();
        const std::string text = status.ToString();
        for (auto& slot : slots_) slot->Fail(text);
        return;
      }
      ring_.ForEachCompletion([this](const io_uring_cqe& cqe) { Dispatch(cqe); });
      buffers_.Publish();
      timers_.RunDue();
    }
  }

  void Dispatch(const io_uring_cqe& cqe) {
    const Op op = static_cast<Op>(cqe.user_data & ((1 << kOpBits) - 1));
    const uint64_t index = cqe.user_data >> kOpBits;
    if (op == kWakeOp) return OnWake();
    const bool has_buffer = (cqe.flags & IORING_CQE_F_BUFFER) != 0;
    const unsigned buffer_id = cqe.flags >> IORING_CQE_BUFFER_SHIFT;
    const char* data = has_buffer ? buffers_.data(buffer_id) : nullptr;
    if (op == kRecvOp && cqe.res == -ENOBUFS) ++stats_.receive_buffer_shortages;
    slots_[index]->OnCompletion(op, cqe.res, data, (cqe.flags & IORING_CQE_F_MORE) != 0);
    // Handed back once the session has seen it.
    if (has_buffer) buffers_.Return(buffer_id);
  }

  void Prepare() {
    // A slot's Prepare may end its session and begin the next (never another slot's).
    for (size_t i = 0; i < dirty_.size(); ++i) {
      UringSlot* slot = dirty_[i];
      slot->set_dirty(false);
      slot->Prepare();
    }
    dirty_.clear();
  }

  RunState& run_;
  ClientStats& stats_;
  UringRing ring_;
  UringBufferRing buffers_;
  UniqueFd wake_;
  std::mutex posted_mutex_;
  std::vector<std::function<void()>> posted_;  // guarded by posted_mutex_
  std::vector<std::unique_ptr<UringSlot>> slots_;
  std::vector<UringSlot*> dirty_;
  int remaining_ = 0;    // slots not ended; the loop's thread only
  ReadScratch scratch_;  // TLS connections of the loop read here
  TimerQueue timers_;
  unsigned sends_then_idle_ = 0;  // this pass's sends after which their slots wait for input
  bool other_sends_ = false;      // this pass has a send after which its slot has more to do
  std::promise<bool> begin_;
  std::thread thread_;
};

UringSlot::UringSlot(UringClientLoop& loop, ClientConnection& c, uint64_t index)
    : ClientSlot(loop.run(), c, loop.scratch()), loop_(loop), index_(index) {}

void UringSlot::BeginLoad() {
  plain_load_ = run().options->tls == nullptr;
  if (plain_load_) return MarkDirty();
  Pump(/*readable=*/false);
}

void UringSlot::OnPaced() {
  if (plain_load_) return MarkDirty();
  Pump(/*readable=*/false);
}

void UringSlot::OnCompletion(Op op, int result, const char* data, bool more) {
  switch (op) {
    case kReadableOp:
      readable_armed_ = false;
      break;
    case kWritableOp:
      writable_armed_ = false;
      break;
    case kRecvOp:
      if (!more) recv_armed_ = false;
      break;
    case kSendOp:
      send_in_flight_ = false;
      break;
    default:
      break;
  }
  if (!more) --in_flight_;
  if (draining()) {
    // What the ended session's requests brought back is nobody's now.
    if (in_flight_ == 0) SessionOver();
    return;
  }
  if (slot_ended() || waiting_for_go()) return;
  switch (op) {
    case kReadableOp:
    case kWritableOp:
      if (started() && plain_load_) return;  // a poll armed while it opened
      return OnReady(op == kReadableOp);
    case kRecvOp:
      return OnReceived(result, data);
    case kSendOp:
      return OnSent(result);
    default:
      return;
  }
}

void UringSlot::Watch(bool readable, bool writable) {
  if (readable && !readable_armed_) {
    loop_.PollAdd(index_, connection().fd(), kReadableOp);
    readable_armed_ = true;
    ++in_flight_;
  }
  if (writable && !writable_armed_) {
    loop_.PollAdd(index_, connection().fd(), kWritableOp);
    writable_armed_ = true;
    ++in_flight_;
  }
}

uint64_t UringSlot::AddTimer(int64_t when_nanos, std::function<void()> callback) {
  return loop_.AddTimer(when_nanos, std::move(callback));
}

void UringSlot::CancelTimer(uint64_t id) { loop_.CancelTimer(id); }

void UringSlot::OnReceived(int result, const char* data) {
  ClientConnection& c = connection();
  if (result > 0) {
    const Step step = c.DeliverReceived(absl::string_view(data, static_cast<size_t>(result)));
    if (step == Step::kDone || step == Step::kFailed) return SessionOver();
  } else if (result == 0) {
    peer_closed_ = true;
    const Step step = c.ReceivedEof();
    if (step == Step::kDone || step == Step::kFailed) return SessionOver();
  } else if (result != -ENOBUFS && result != -ECANCELED) {
    c.ReceiveFailed(-result);
    return SessionOver();
  }
  MarkDirty();  // the session may have more to send; the receive may need arming again
}

void UringSlot::OnSent(int result) {
  if (result < 0) {
    connection().WriteFailed(-result);
    return SessionOver();
  }
  if (!send_in_place_) {
    gathered_sent_ += static_cast<size_t>(result);
    if (gathered_sent_ == gathered_.size()) {
      gathered_.clear();  // keeps its capacity
      gathered_sent_ = 0;
    }
  } else if (connection().MarkWritten(static_cast<size_t>(result)) == Step::kDone) {
    SessionSendingDone();
  }
  MarkDirty();
}

void UringSlot::SendOutput() {
  ClientConnection& c = connection();
  bool then_idle = false;  // the session said it has nothing more until input arrives
  if (gathered_.empty()) {
    absl::string_view data;
    Step out = c.TakeOutput(data);
    for (int outputs = 0;; ++outputs) {
      if (out == Step::kFailed) return SessionOver();
      if (out == Step::kDone) {
        SessionSendingDone();
        break;
      }
      if (out == Step::kIdle) {
        then_idle = c.not_before() == 0;
        WaitForPace();
        break;
      }
      if (outputs == 0 && data.size() >= kInPlaceBytes) {
        loop_.Send(index_, c.fd(), data, /*then_idle=*/false);
        send_in_flight_ = send_in_place_ = true;
        ++in_flight_;
        return;
      }
      // Gathered counts as written: the session's next output may reuse its buffer. Its sending
      // side may thus be done before the bytes are; the session is not ended while they wait
      // (Prepare).
      gathered_.append(data.data(), data.size());
      if (c.MarkWritten(data.size()) == Step::kDone) {
        SessionSendingDone();
        break;
      }
      if (outputs + 1 == kOutputsPerSend || gathered_.size() >= kInPlaceBytes) break;
      out = c.TakeOutput(data);
    }
  }
  if (gathered_.size() > gathered_sent_) {
    loop_.Send(index_, c.fd(), absl::string_view(gathered_).substr(gathered_sent_), then_idle);
    send_in_flight_ = true;
    send_in_place_ = false;
    ++in_flight_;
  }
}

void UringSlot::MarkDirty() { loop_.MarkDirty(this); }

void UringSlot::Prepare() {
  ClientConnection& c = connection();
  if (slot_ended() || draining() || !plain_load_ || c.ended()) return;
  if (!send_in_flight_ && (!gathered_.empty() || !c.sending_done())) {
    SendOutput();
    if (draining() || !plain_load_) return;  // it failed
  }
  // A session whose sending side is done finishes once its gathered bytes are out too.
  if (!send_in_flight_ && gathered_.empty() && c.CheckFinished()) return SessionOver();
  if (!recv_armed_ && !peer_closed_) {
    loop_.Receive(index_, c.fd());
    recv_armed_ = true;
    ++in_flight_;
  }
}

bool UringSlot::ReleaseSocket() {
  plain_load_ = false;
  if (in_flight_ > 0) {
    // The kernel still holds the socket, and maybe the session's output: the session ends when
    // the last request is back (OnCompletion calls again).
    if (!draining()) CancelRequests();
    return false;
  }
  // The slot's connection starts over.
  peer_closed_ = false;
  gathered_.clear();
  gathered_sent_ = 0;
  return true;
}

void UringSlot::CancelRequests() {
  for (Op op : {kReadableOp, kWritableOp, kRecvOp, kSendOp}) {
    const bool armed = op == kReadableOp   ? readable_armed_
                       : op == kWritableOp ? writable_armed_
                       : op == kRecvOp     ? recv_armed_
                                           : send_in_flight_;
    if (!armed) continue;
    loop_.Cancel(index_, op);
    ++in_flight_;
  }
}

void UringSlot::SlotEnded() { loop_.SlotEnded(); }

}  // namespace

absl::StatusOr<std::unique_ptr<ClientRunner>> StartUringRunner(
    RunState& run, std::vector<std::unique_ptr<ClientConnection>>& connections) {
  const int count = std::min<int>(run.options->threads, static_cast<int>(connections.size()));
  std::vector<std::unique_ptr<UringClientLoop>> loops;
  // Slot i's statistics are its loop's thread's (client_driver.cc): loop k's are those of its
  // first slot, k.
  for (int i = 0; i < count; ++i) {
    loops.push_back(std::make_unique<UringClientLoop>(run, connections[i]->stats()));
  }
  for (size_t i = 0; i < connections.size(); ++i) loops[i % count]->Add(*connections[i]);
  // Every ring is set up before any connection opens: a loop that cannot have one fails the run.
  size_t started = 0;
  absl::Status status;
  for (; started < loops.size() && status.ok(); ++started) status = loops[started]->Start();
  if (!status.ok()) --started;  // that one's thread has ended
  for (size_t i = 0; i < started; ++i) loops[i]->Begin(status.ok());
  if (!status.ok()) return status;
  return std::unique_ptr<ClientRunner>(new LoopsRunner<UringClientLoop>(std::move(loops)));
}

}  // namespace internal
}  // namespace netbench
