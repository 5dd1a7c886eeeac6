#include "common/internal/client_slot.h"

#include <memory>
#include <utility>

#include "common/clock.h"
#include "common/transport.h"

namespace netbench {
namespace internal {
namespace {

// Writes and reads per readiness before the loop's other connections get a turn.
constexpr int kWritesPerEvent = 16;
constexpr int kReadsPerEvent = 16;

}  // namespace

ClientSlot::ClientSlot(RunState& run, ClientConnection& c, ReadScratch& scratch)
    : run_(run), c_(c), scratch_(scratch), go_(!run.options->open_before_start) {}

void ClientSlot::BeginOpen() {
  started_ = false;
  const Step step = c_.BeginOpen();
  ArmDeadline();
  ContinueOpen(step);
}

void ClientSlot::ContinueOpen(Step step) {
  if (step == Step::kWantRead || step == Step::kWantWrite) {
    return Watch(step == Step::kWantRead, step == Step::kWantWrite);
  }
  if (!open_reported_) {
    open_reported_ = true;
    run_.Opened();
  }
  if (step != Step::kDone) return SessionOver();
  if (go_) return Start();
  waiting_for_go_ = true;
  Watch(false, false);  // until the load starts
}

void ClientSlot::Go() {
  go_ = true;
  if (slot_ended_ || !waiting_for_go_) return;
  if (run_.abort.load()) return Abandon();
  Start();
}

void ClientSlot::Start() {
  waiting_for_go_ = false;
  started_ = loaded_ = true;
  const Step step = c_.Start();
  ArmDeadline();  // a latched first session's deadline begins with the load
  if (step == Step::kDone || step == Step::kFailed) return SessionOver();
  BeginLoad();
}

void ClientSlot::Abandon() {
  if (slot_ended_ || draining_) return;
  c_.Abandon(run_.abort_cause);
  SessionOver();
}

void ClientSlot::Fail(const std::string& text) {
  if (slot_ended_) return;
  c_.Fail("event_loop", text);
  c_.EndSession();  // no session replaces it: this loop cannot wait any more
  EndSlot();
}

void ClientSlot::OnReady(bool readable) {
  if (slot_ended_ || waiting_for_go_) return;
  if (!started_) {
    const Step step = c_.ContinueOpen();
    ArmDeadline();  // a completed connect's deadline no longer applies
    return ContinueOpen(step);
  }
  Pump(readable);
}

void ClientSlot::Pump(bool readable) {
  Step in = Step::kWantRead;
  if (readable) {
    in = c_.PumpInput(kReadsPerEvent, scratch_);
    if (in == Step::kDone || in == Step::kFailed) return SessionOver();
    if (in == Step::kYield) ResumeReadingSoon();
  }
  Step out = Step::kDone;
  if (!c_.sending_done()) {
    out = c_.PumpOutput(kWritesPerEvent);
    if (out == Step::kFailed) return SessionOver();
    if (out == Step::kDone) SessionSendingDone();
    if (out == Step::kIdle) WaitForPace();
  }
  if (c_.CheckFinished()) return SessionOver();
  // A read that stopped at its budget is finished when the socket is ready again, which it is at
  // once for what the socket holds (readiness is level-triggered); ResumeReadingSoon covers what
  // TLS holds.
  Watch(true, out == Step::kWantWrite || out == Step::kYield);
}

void ClientSlot::WaitForPace() {
  if (c_.not_before() <= 0 || timer_ != 0) return;
  timer_ = AddTimer(c_.not_before(), [this] {
    timer_ = 0;
    if (!slot_ended_ && started_ && !draining_) OnPaced();
  });
}

void ClientSlot::ResumeReadingSoon() {
  if (resume_timer_ != 0 || c_.transport() == nullptr || c_.transport()->Pending() == 0) return;
  resume_timer_ = AddTimer(MonotonicNanos(), [this] {
    resume_timer_ = 0;
    if (!slot_ended_ && started_ && !draining_) Pump(/*readable=*/true);
  });
}

void ClientSlot::ArmDeadline() {
  const int64_t deadline = c_.ended() ? 0 : c_.deadline();
  if (deadline == deadline_timer_at_) return;
  if (deadline_timer_ != 0) CancelTimer(deadline_timer_);
  deadline_timer_ = 0;
  deadline_timer_at_ = deadline;
  if (deadline == 0) return;
  deadline_timer_ = AddTimer(deadline, [this] {
    deadline_timer_ = 0;
    deadline_timer_at_ = 0;
    OnDeadline();
  });
}

void ClientSlot::OnDeadline() {
  if (slot_ended_ || draining_ || c_.ended()) return;
  if (c_.CheckDeadlines(MonotonicNanos())) return SessionOver();
  ArmDeadline();
}

void ClientSlot::CancelTimers() {
  if (timer_ != 0) CancelTimer(timer_);
  timer_ = 0;
  if (resume_timer_ != 0) CancelTimer(resume_timer_);
  resume_timer_ = 0;
  if (deadline_timer_ != 0) CancelTimer(deadline_timer_);
  deadline_timer_ = 0;
  deadline_timer_at_ = 0;
}

void ClientSlot::SessionOver() {
  if (in_session_over_) {
    session_over_again_ = true;
    return;
  }
  in_session_over_ = true;
  do {
    session_over_again_ = false;
    if (slot_ended_) break;
    CancelTimers();
    waiting_for_go_ = false;
    if (!ReleaseSocket()) {
      draining_ = true;  // the model calls again once it let go
      break;
    }
    draining_ = false;
    if (!run_.abort.load() && c_.Restart()) {
      BeginOpen();
      continue;
    }
    c_.EndSession();
    // With the latch, a slot whose first connection could not open ends: the run will not start.
    const bool may_replace = loaded_ || !run_.options->open_before_start;
    std::unique_ptr<ClientSession> next = may_replace ? run_.NextSession(c_) : nullptr;
    if (next == nullptr) {
      EndSlot();
      break;
    }
    c_.BeginSession(std::move(next));
    BeginOpen();
  } while (session_over_again_);
  in_session_over_ = false;
}

void ClientSlot::SessionSendingDone() {
  if (!run_.options->replace_sessions) DoneSending();
}

void ClientSlot::DoneSending() {
  if (sending_reported_) return;
  sending_reported_ = true;
  run_.SendingDone();
}

void ClientSlot::EndSlot() {
  slot_ended_ = true;
  if (!open_reported_) {
    open_reported_ = true;
    run_.Opened();
  }
  DoneSending();
  run_.Ended();
  SlotEnded();
}

}  // namespace internal
}  // namespace netbench
