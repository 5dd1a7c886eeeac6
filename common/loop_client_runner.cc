// The client driver's event-loop models (poll, epoll): `threads` loops, each on its own thread,
// share the connections (slot i on loop i % threads), as wrk's threads each own an ae loop and
// their share of the connections. Every socket stays non-blocking, opening included, so one slow
// peer holds up nobody; per-session deadlines are loop timers.
//
// The orchestrating thread talks to a loop only through EventLoop::Post: the start of the load and
// the end of the run reach every connection on its own loop's thread.
#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/event_loop.h"
#include "common/internal/client_runner.h"
#include "common/transport.h"

namespace netbench {
namespace internal {
namespace {

// Writes and reads per wakeup before the loop's other connections get a turn.
constexpr int kWritesPerEvent = 16;
constexpr int kReadsPerEvent = 16;

class ClientLoop;

// One slot on a loop: its sessions one after another, each opened, loaded and ended.
class LoopConnection final : public FdHandler {
 public:
  LoopConnection(ClientLoop& loop, ClientConnection& c) : loop_(loop), c_(c) {}

  void BeginOpen();
  void Go();
  void Abandon();
  // The loop cannot wait any more: the connection ends with `text`.
  void Fail(const std::string& text);
  void OnEvents(int fd, int events) override;

 private:
  void ContinueOpen(Step step);
  void Start();
  void Pump(int events);
  void SetInterest(int events);
  void ResumeReadingSoon();
  void ArmDeadline();
  void OnDeadline();
  // The session finished or failed: it runs again (Restart), the slot's next one begins, or the
  // slot ends. Every call is a tail call: a session that ends at once (a refused connect) loops
  // here rather than recursing.
  void SessionOver();
  void SessionSendingDone();
  void DoneSending();
  void EndSlot();

  ClientLoop& loop_;
  ClientConnection& c_;
  int registered_fd_ = -1;  // watched by the loop; -1: none
  int interest_ = kNoEvents;
  bool open_reported_ = false;   // the slot's first opening was reported to the run
  bool waiting_for_go_ = false;  // open, the start latch still closed
  bool started_ = false;         // the current session's load began
  bool loaded_ = false;          // any session of the slot's began its load
  bool sending_reported_ = false;
  bool slot_ended_ = false;
  bool in_session_over_ = false;
  bool session_over_again_ = false;
  uint64_t timer_ = 0;           // a pending not_before wake-up, 0: none
  uint64_t resume_timer_ = 0;    // reading on after TLS held more than a turn's budget, 0: none
  uint64_t deadline_timer_ = 0;  // the session's nearest deadline, 0: none
  int64_t deadline_timer_at_ = 0;
};

class ClientLoop {
 public:
  ClientLoop(RunState& run, std::unique_ptr<EventLoop> loop, EventLoopBackend backend)
      : run_(run),
        loop_(std::move(loop)),
        watch_change_cost_(backend == EventLoopBackend::kEpoll ? 1 : 0),
        go_(!run.options->open_before_start) {}

  // The connections of one loop share their thread's statistics.
  void Add(ClientConnection& c) {
    stats_ = &c.stats();
    connections_.push_back(std::make_unique<LoopConnection>(*this, c));
  }
  void StartThread() {
    thread_ = std::thread([this] {
      remaining_ = static_cast<int>(connections_.size());
      for (auto& c : connections_) c->BeginOpen();
      // Not EventLoop::Run: each wait is counted.
      while (remaining_ > 0) {
        ++stats_->system_calls;
        if (absl::StatusOr<int> dispatched = loop_->RunOnce(-1); !dispatched.ok()) {
          // The wait itself failed (poll(2) or epoll_wait(2)): every connection of this loop ends
          // with that cause, and the run goes on with the other loops'.
          for (auto& c : connections_) c->Fail(std::string(dispatched.status().message()));
          return;
        }
      }
    });
  }
  void Go() {
    loop_->Post([this] {
      go_ = true;
      for (auto& c : connections_) c->Go();
    });
  }
  void Abort() {
    loop_->Post([this] {
      for (auto& c : connections_) c->Abandon();
    });
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

  RunState& run() { return run_; }
  EventLoop& loop() { return *loop_; }
  ReadScratch& scratch() { return scratch_; }
  // epoll's Add, Modify and Remove are system calls (epoll_ctl); poll's only edit its array.
  uint64_t watch_change_cost() const { return watch_change_cost_; }
  // The load has begun: open connections start at once.
  bool go() const { return go_; }
  void SlotEnded() { --remaining_; }

 private:
  RunState& run_;
  std::unique_ptr<EventLoop> loop_;
  const uint64_t watch_change_cost_;
  ClientStats* stats_ = nullptr;
  bool go_;  // the loop's thread only
  std::vector<std::unique_ptr<LoopConnection>> connections_;
  int remaining_ = 0;    // slots not ended; the loop's thread only
  ReadScratch scratch_;  // every connection of the loop reads here
  std::thread thread_;
};

void LoopConnection::BeginOpen() {
  started_ = false;
  const Step step = c_.BeginOpen();
  ArmDeadline();
  ContinueOpen(step);
}

void LoopConnection::ContinueOpen(Step step) {
  if (step == Step::kWantRead || step == Step::kWantWrite) {
    return SetInterest(step == Step::kWantRead ? kReadable : kWritable);
  }
  if (!open_reported_) {
    open_reported_ = true;
    loop_.run().Opened();
  }
  if (step != Step::kDone) return SessionOver();
  if (loop_.go()) return Start();
  waiting_for_go_ = true;
  SetInterest(kNoEvents);  // until the load starts
}

void LoopConnection::Go() {
  if (slot_ended_ || !waiting_for_go_) return;
  if (loop_.run().abort.load()) return Abandon();
  Start();
}

void LoopConnection::Start() {
  waiting_for_go_ = false;
  started_ = loaded_ = true;
  const Step step = c_.Start();
  ArmDeadline();  // a latched first session's deadline begins with the load
  if (step == Step::kDone || step == Step::kFailed) return SessionOver();
  Pump(kWritable);
}

void LoopConnection::Abandon() {
  if (slot_ended_) return;
  c_.Abandon(loop_.run().abort_cause);
  SessionOver();
}

void LoopConnection::Fail(const std::string& text) {
  if (slot_ended_) return;
  c_.Fail("event_loop", text);
  c_.EndSession();  // no session replaces it: this loop cannot wait any more
  EndSlot();
}

void LoopConnection::OnEvents(int /*fd*/, int events) {
  if (slot_ended_ || waiting_for_go_) return;
  if (!started_) {
    const Step step = c_.ContinueOpen();
    ArmDeadline();  // a completed connect's deadline no longer applies
    return ContinueOpen(step);
  }
  Pump(events);
}

void LoopConnection::Pump(int events) {
  Step in = Step::kWantRead;
  if (events & (kReadable | kHangup)) {
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
      timer_ = loop_.loop().AddTimer(c_.not_before(), [this] {
        timer_ = 0;
        if (!slot_ended_ && started_) Pump(kNoEvents);
      });
    }
  }
  if (c_.CheckFinished()) return SessionOver();
  // A read that stopped at its budget is finished on the next wakeup: the loops are
  // level-triggered for what the socket holds, and ResumeReadingSoon covers what TLS holds.
  SetInterest(kReadable | (out == Step::kWantWrite || out == Step::kYield ? kWritable : 0));
}

// Registers the socket with its first interest (a session that waits only for the latch is not
// watched), or changes it.
void LoopConnection::SetInterest(int events) {
  if (registered_fd_ < 0) {
    if (events == kNoEvents) return;
    c_.CountSystemCalls(loop_.watch_change_cost());
    if (!loop_.loop().Add(c_.fd(), events, this).ok()) {
      c_.Fail("event_loop", "cannot watch the socket");
      return SessionOver();
    }
    registered_fd_ = c_.fd();
    interest_ = events;
    return;
  }
  if (events == interest_) return;
  interest_ = events;
  c_.CountSystemCalls(loop_.watch_change_cost());
  if (!loop_.loop().Modify(registered_fd_, events).ok()) {
    c_.Fail("event_loop", "cannot watch the socket");
    SessionOver();
  }
}

// TLS may hold records it already took off the socket (Transport::Pending): the socket no longer
// signals them, so waiting for readability after a read that stopped at its budget could wait
// forever (a stream's tail went missing). The rest is read on the loop's next turn, after the
// other connections had theirs, as a zero-delay timer.
void LoopConnection::ResumeReadingSoon() {
  if (resume_timer_ != 0 || c_.transport() == nullptr || c_.transport()->Pending() == 0) return;
  resume_timer_ = loop_.loop().AddTimer(MonotonicNanos(), [this] {
    resume_timer_ = 0;
    if (!slot_ended_ && started_) Pump(kReadable);
  });
}

void LoopConnection::ArmDeadline() {
  const int64_t deadline = c_.ended() ? 0 : c_.deadline();
  if (deadline == deadline_timer_at_) return;
  if (deadline_timer_ != 0) loop_.loop().CancelTimer(deadline_timer_);
  deadline_timer_ = 0;
  deadline_timer_at_ = deadline;
  if (deadline == 0) return;
  deadline_timer_ = loop_.loop().AddTimer(deadline, [this] {
    deadline_timer_ = 0;
    deadline_timer_at_ = 0;
    OnDeadline();
  });
}

void LoopConnection::OnDeadline() {
  if (slot_ended_ || c_.ended()) return;
  if (c_.CheckDeadlines(MonotonicNanos())) return SessionOver();
  ArmDeadline();
}

void LoopConnection::SessionOver() {
  if (in_session_over_) {
    session_over_again_ = true;
    return;
  }
  in_session_over_ = true;
  do {
    session_over_again_ = false;
    if (slot_ended_) break;
    if (timer_ != 0) loop_.loop().CancelTimer(timer_);
    timer_ = 0;
    if (resume_timer_ != 0) loop_.loop().CancelTimer(resume_timer_);
    resume_timer_ = 0;
    if (deadline_timer_ != 0) loop_.loop().CancelTimer(deadline_timer_);
    deadline_timer_ = 0;
    deadline_timer_at_ = 0;
    if (registered_fd_ >= 0) {
      c_.CountSystemCalls(loop_.watch_change_cost());
      loop_.loop().Remove(registered_fd_);
    }
    registered_fd_ = -1;
    interest_ = kNoEvents;
    waiting_for_go_ = false;
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

void LoopConnection::SessionSendingDone() {
  if (!loop_.run().options->replace_sessions) DoneSending();
}

void LoopConnection::DoneSending() {
  if (sending_reported_) return;
  sending_reported_ = true;
  loop_.run().SendingDone();
}

void LoopConnection::EndSlot() {
  slot_ended_ = true;
  if (!open_reported_) {
    open_reported_ = true;
    loop_.run().Opened();
  }
  DoneSending();
  loop_.run().Ended();
  loop_.SlotEnded();
}

class LoopRunner final : public ClientRunner {
 public:
  explicit LoopRunner(std::vector<std::unique_ptr<ClientLoop>> loops) : loops_(std::move(loops)) {
    for (auto& loop : loops_) loop->StartThread();
  }
  ~LoopRunner() override { Join(); }

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
  std::vector<std::unique_ptr<ClientLoop>> loops_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ClientRunner>> StartLoopRunner(
    RunState& run, std::vector<std::unique_ptr<ClientConnection>>& connections) {
  const ClientDriverOptions& options = *run.options;
  const EventLoopBackend backend =
      options.model == ClientModel::kPoll ? EventLoopBackend::kPoll : EventLoopBackend::kEpoll;
  const int count = std::min<int>(options.threads, static_cast<int>(connections.size()));
  std::vector<std::unique_ptr<ClientLoop>> loops;
  for (int i = 0; i < count; ++i) {
    absl::StatusOr<std::unique_ptr<EventLoop>> loop = EventLoop::Create(backend);
    if (!loop.ok()) return loop.status();
    loops.push_back(std::make_unique<ClientLoop>(run, *std::move(loop), backend));
  }
  for (size_t i = 0; i < connections.size(); ++i) loops[i % count]->Add(*connections[i]);
  return std::unique_ptr<ClientRunner>(new LoopRunner(std::move(loops)));
}

}  // namespace internal
}  // namespace netbench
