// The client driver's uring model: `threads` loops on io_uring, each on its own thread with its
// own ring, share the connections (slot i on loop i % threads) as the poll and epoll loops do
// (loop_client_runner.cc), and drive each slot through the same states: open, wait for the latch,
// load, end, the next session. What differs is how the load moves bytes on plain TCP:
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
// TLS connections: reads and writes per readiness before the loop's other connections get a turn.
constexpr int kWritesPerEvent = 16;
constexpr int kReadsPerEvent = 16;

class UringClientLoop;

// One slot on a loop: its sessions one after another, each opened, loaded and ended.
class UringSlot {
 public:
  UringSlot(UringClientLoop& loop, ClientConnection& c, uint64_t index)
      : loop_(loop), c_(c), index_(index) {}

  void BeginOpen();
  void Go();
  void Abandon();
  // The loop cannot wait any more: the connection ends with `text`.
  void Fail(const std::string& text);
  void OnCompletion(Op op, int result, const char* data, bool more);
  // End of a pass: sends what the session has, re-arms the receive.
  void Prepare();

  bool dirty() const { return dirty_; }
  void set_dirty(bool value) { dirty_ = value; }

 private:
  void ContinueOpen(Step step);
  void Start();
  void OnReady(Op op);
  // TLS, or a plain session while it is opening: the transport reads and writes.
  // Reads when `readable`, then writes what the session has (PumpOutput finds out whether the
  // socket takes it), as LoopConnection::Pump.
  void Pump(bool readable);
  void OnReceived(int result, const char* data);
  void OnSent(int result);
  void Watch(bool readable, bool writable);
  // TLS may hold records it already took off the socket (Transport::Pending), which no poll
  // signals: after a read that stopped at its budget, the rest is read on the loop's next pass
  // (a timer due at once), as LoopConnection::ResumeReadingSoon.
  void ResumeReadingSoon();
  // Sends the session's next output(s) (plain load, no send in flight).
  void SendOutput();
  void MarkDirty();
  void ArmDeadline();
  void OnDeadline();
  // As LoopConnection's: the session runs again (Restart), the slot's next one begins, or the
  // slot ends; first every request naming the socket comes back.
  void SessionOver();
  void CancelRequests();
  void SessionSendingDone();
  void DoneSending();
  void EndSlot();

  UringClientLoop& loop_;
  ClientConnection& c_;
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
  int in_flight_ = 0;      // requests naming the socket, cancels included
  bool draining_ = false;  // the session is over; its requests are on their way back
  bool dirty_ = false;
  bool open_reported_ = false;
  bool waiting_for_go_ = false;
  bool started_ = false;
  bool loaded_ = false;
  bool sending_reported_ = false;
  bool slot_ended_ = false;
  bool in_session_over_ = false;
  bool session_over_again_ = false;
  uint64_t timer_ = 0;           // a pending not_before wake-up, 0: none
  uint64_t resume_timer_ = 0;    // reading on after TLS held more than a turn's budget, 0: none
  uint64_t deadline_timer_ = 0;  // the session's nearest deadline, 0: none
  int64_t deadline_timer_at_ = 0;
};

class UringClientLoop {
 public:
  // `stats`: the statistics of the loop's connections' thread, where its system calls count.
  UringClientLoop(RunState& run, ClientStats& stats)
      : run_(run), stats_(stats), go_(!run.options->open_before_start) {}

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
      go_ = true;
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
  bool go() const { return go_; }
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
      // on these VMs than the system call (tools/uring_bench_results.md); Go and Abort come
      // through the eventfd.
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
  bool go_;  // the loop's thread only
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

void UringSlot::BeginOpen() {
  started_ = false;
  plain_load_ = false;
  peer_closed_ = false;
  gathered_.clear();
  gathered_sent_ = 0;
  const Step step = c_.BeginOpen();
  ArmDeadline();
  ContinueOpen(step);
}

void UringSlot::ContinueOpen(Step step) {
  if (step == Step::kWantRead || step == Step::kWantWrite) {
    return Watch(step == Step::kWantRead, step == Step::kWantWrite);
  }
  if (!open_reported_) {
    open_reported_ = true;
    loop_.run().Opened();
  }
  if (step != Step::kDone) return SessionOver();
  if (loop_.go()) return Start();
  waiting_for_go_ = true;  // nothing is watched until the load starts
}

void UringSlot::Go() {
  if (slot_ended_ || !waiting_for_go_) return;
  if (loop_.run().abort.load()) return Abandon();
  Start();
}

void UringSlot::Start() {
  waiting_for_go_ = false;
  started_ = loaded_ = true;
  const Step step = c_.Start();
  ArmDeadline();  // a latched first session's deadline begins with the load
  if (step == Step::kDone || step == Step::kFailed) return SessionOver();
  plain_load_ = loop_.run().options->tls == nullptr;
  if (plain_load_) return MarkDirty();
  Pump(/*readable=*/false);
}

void UringSlot::Abandon() {
  if (slot_ended_ || draining_) return;
  c_.Abandon(loop_.run().abort_cause);
  SessionOver();
}

void UringSlot::Fail(const std::string& text) {
  if (slot_ended_) return;
  c_.Fail("event_loop", text);
  c_.EndSession();  // no session replaces it: this loop cannot wait any more
  EndSlot();
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
  if (draining_) {
    // What the ended session's requests brought back is nobody's now.
    if (in_flight_ == 0) SessionOver();
    return;
  }
  if (slot_ended_ || waiting_for_go_) return;
  switch (op) {
    case kReadableOp:
    case kWritableOp:
      return OnReady(op);
    case kRecvOp:
      return OnReceived(result, data);
    case kSendOp:
      return OnSent(result);
    default:
      return;
  }
}

void UringSlot::OnReady(Op op) {
  if (!started_) {
    const Step step = c_.ContinueOpen();
    ArmDeadline();  // a completed connect's deadline no longer applies
    return ContinueOpen(step);
  }
  if (!plain_load_) Pump(op == kReadableOp);
}

void UringSlot::Pump(bool readable) {
  Step in = Step::kWantRead;
  if (readable) {
    in = c_.PumpInput(kReadsPerEvent, loop_.scratch());
    if (in == Step::kDone || in == Step::kFailed) return SessionOver();
    if (in == Step::kYield) ResumeReadingSoon();
  }
  Step out = Step::kDone;
  if (!c_.sending_done()) {
    out = c_.PumpOutput(kWritesPerEvent);
    if (out == Step::kFailed) return SessionOver();
    if (out == Step::kDone) SessionSendingDone();
    if (out == Step::kIdle && c_.not_before() > 0 && timer_ == 0) {
      timer_ = loop_.AddTimer(c_.not_before(), [this] {
        timer_ = 0;
        if (!slot_ended_ && started_ && !draining_) Pump(/*readable=*/false);
      });
    }
  }
  if (c_.CheckFinished()) return SessionOver();
  // A read that stopped at its budget is finished when the next poll says readable again, which
  // it does at once for what the socket holds (polls are level-triggered); ResumeReadingSoon
  // covers what TLS holds.
  Watch(true, out == Step::kWantWrite || out == Step::kYield);
}

void UringSlot::ResumeReadingSoon() {
  if (resume_timer_ != 0 || c_.transport() == nullptr || c_.transport()->Pending() == 0) return;
  resume_timer_ = loop_.AddTimer(MonotonicNanos(), [this] {
    resume_timer_ = 0;
    if (!slot_ended_ && started_ && !draining_ && !plain_load_) Pump(/*readable=*/true);
  });
}

// Arms a poll for each readiness wanted that none watches yet.
void UringSlot::Watch(bool readable, bool writable) {
  if (readable && !readable_armed_) {
    loop_.PollAdd(index_, c_.fd(), kReadableOp);
    readable_armed_ = true;
    ++in_flight_;
  }
  if (writable && !writable_armed_) {
    loop_.PollAdd(index_, c_.fd(), kWritableOp);
    writable_armed_ = true;
    ++in_flight_;
  }
}

void UringSlot::OnReceived(int result, const char* data) {
  if (result > 0) {
    const Step step = c_.DeliverReceived(absl::string_view(data, static_cast<size_t>(result)));
    if (step == Step::kDone || step == Step::kFailed) return SessionOver();
  } else if (result == 0) {
    peer_closed_ = true;
    const Step step = c_.ReceivedEof();
    if (step == Step::kDone || step == Step::kFailed) return SessionOver();
  } else if (result != -ENOBUFS && result != -ECANCELED) {
    c_.ReceiveFailed(-result);
    return SessionOver();
  }
  MarkDirty();  // the session may have more to send; the receive may need arming again
}

void UringSlot::OnSent(int result) {
  if (result < 0) {
    c_.WriteFailed(-result);
    return SessionOver();
  }
  if (!send_in_place_) {
    gathered_sent_ += static_cast<size_t>(result);
    if (gathered_sent_ == gathered_.size()) {
      gathered_.clear();  // keeps its capacity
      gathered_sent_ = 0;
    }
  } else if (c_.MarkWritten(static_cast<size_t>(result)) == Step::kDone) {
    SessionSendingDone();
  }
  MarkDirty();
}

void UringSlot::SendOutput() {
  bool then_idle = false;  // the session said it has nothing more until input arrives
  if (gathered_.empty()) {
    absl::string_view data;
    Step out = c_.TakeOutput(data);
    for (int outputs = 0;; ++outputs) {
      if (out == Step::kFailed) return SessionOver();
      if (out == Step::kDone) {
        SessionSendingDone();
        break;
      }
      if (out == Step::kIdle) {
        then_idle = c_.not_before() == 0;
        if (c_.not_before() > 0 && timer_ == 0) {
          timer_ = loop_.AddTimer(c_.not_before(), [this] {
            timer_ = 0;
            MarkDirty();
          });
        }
        break;
      }
      if (outputs == 0 && data.size() >= kInPlaceBytes) {
        loop_.Send(index_, c_.fd(), data, /*then_idle=*/false);
        send_in_flight_ = send_in_place_ = true;
        ++in_flight_;
        return;
      }
      // Gathered counts as written: the session's next output may reuse its buffer. Its sending
      // side may thus be done before the bytes are; the session is not ended while they wait
      // (Prepare).
      gathered_.append(data.data(), data.size());
      if (c_.MarkWritten(data.size()) == Step::kDone) {
        SessionSendingDone();
        break;
      }
      if (outputs + 1 == kOutputsPerSend || gathered_.size() >= kInPlaceBytes) break;
      out = c_.TakeOutput(data);
    }
  }
  if (gathered_.size() > gathered_sent_) {
    loop_.Send(index_, c_.fd(), absl::string_view(gathered_).substr(gathered_sent_), then_idle);
    send_in_flight_ = true;
    send_in_place_ = false;
    ++in_flight_;
  }
}

void UringSlot::MarkDirty() { loop_.MarkDirty(this); }

void UringSlot::Prepare() {
  if (slot_ended_ || draining_ || !plain_load_ || c_.ended()) return;
  if (!send_in_flight_ && (!gathered_.empty() || !c_.sending_done())) {
    SendOutput();
    if (draining_ || !plain_load_) return;  // it failed
  }
  // A session whose sending side is done finishes once its gathered bytes are out too.
  if (!send_in_flight_ && gathered_.empty() && c_.CheckFinished()) return SessionOver();
  if (!recv_armed_ && !peer_closed_) {
    loop_.Receive(index_, c_.fd());
    recv_armed_ = true;
    ++in_flight_;
  }
}

void UringSlot::ArmDeadline() {
  const int64_t deadline = c_.ended() ? 0 : c_.deadline();
  if (deadline == deadline_timer_at_) return;
  if (deadline_timer_ != 0) loop_.CancelTimer(deadline_timer_);
  deadline_timer_ = 0;
  deadline_timer_at_ = deadline;
  if (deadline == 0) return;
  deadline_timer_ = loop_.AddTimer(deadline, [this] {
    deadline_timer_ = 0;
    deadline_timer_at_ = 0;
    OnDeadline();
  });
}

void UringSlot::OnDeadline() {
  if (slot_ended_ || draining_ || c_.ended()) return;
  if (c_.CheckDeadlines(MonotonicNanos())) return SessionOver();
  ArmDeadline();
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

void UringSlot::SessionOver() {
  if (in_session_over_) {
    session_over_again_ = true;
    return;
  }
  in_session_over_ = true;
  do {
    session_over_again_ = false;
    if (slot_ended_) break;
    if (timer_ != 0) loop_.CancelTimer(timer_);
    timer_ = 0;
    if (resume_timer_ != 0) loop_.CancelTimer(resume_timer_);
    resume_timer_ = 0;
    if (deadline_timer_ != 0) loop_.CancelTimer(deadline_timer_);
    deadline_timer_ = 0;
    deadline_timer_at_ = 0;
    waiting_for_go_ = false;
    plain_load_ = false;
    if (in_flight_ > 0) {
      // The kernel still holds the socket, and maybe the session's output: the session ends
      // when the last request is back (OnCompletion calls again).
      if (!draining_) {
        draining_ = true;
        CancelRequests();
      }
      break;
    }
    draining_ = false;
    if (!loop_.run().abort.load() && c_.Restart()) {
      BeginOpen();
      continue;
    }
    c_.EndSession();
    // With the latch, a slot whose first connection could not open ends: the run will not start.
    const bool may_replace = loaded_ || !loop_.run().options->open_before_start;
    std::unique_ptr<ClientSession> next = may_replace ? loop_.run().NextSession(c_) : nullptr;
    if (next == nullptr) {
      EndSlot();
      break;
    }
    c_.BeginSession(std::move(next));
    BeginOpen();
  } while (session_over_again_);
  in_session_over_ = false;
}

void UringSlot::SessionSendingDone() {
  if (!loop_.run().options->replace_sessions) DoneSending();
}

void UringSlot::DoneSending() {
  if (sending_reported_) return;
  sending_reported_ = true;
  loop_.run().SendingDone();
}

void UringSlot::EndSlot() {
  slot_ended_ = true;
  if (!open_reported_) {
    open_reported_ = true;
    loop_.run().Opened();
  }
  DoneSending();
  loop_.run().Ended();
  loop_.SlotEnded();
}

class UringRunner final : public ClientRunner {
 public:
  explicit UringRunner(std::vector<std::unique_ptr<UringClientLoop>> loops)
      : loops_(std::move(loops)) {}
  ~UringRunner() override { Join(); }

  void Go() override {
    for (auto& loop : loops_) loop->Go();
  }
  void Abort() override {
    for (auto& loop : loops_) loop->Abort();
  }
  void Join() override {
    for (auto& loop : loops_) loop->Join();
  }

 private:
  std::vector<std::unique_ptr<UringClientLoop>> loops_;
};

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
  return std::unique_ptr<ClientRunner>(new UringRunner(std::move(loops)));
}

}  // namespace internal
}  // namespace netbench
