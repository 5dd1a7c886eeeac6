#include "common/internal/server_connection.h"

#include <utility>

namespace netbench {
namespace internal {

ServerConnection::ServerConnection(Timers& timers, const ServerOptions& options,
                                   ServerCounters& counters,
                                   std::unique_ptr<ConnectionHandler> handler)
    : options_(options), counters_(counters), handler_(std::move(handler)), timers_(timers) {
  handler_->set_output_bound(options_.max_pending_output);
  handler_->set_input_bound(options_.max_pending_input);
}

ServerConnection::~ServerConnection() { CancelTimers(); }

void ServerConnection::Close(bool graceful) {
  if (closed_) return;
  closed_ = true;
  CancelTimers();
  OnClose(graceful);
}

void ServerConnection::CloseOutOfMemory() {
  ServerCounters::Add(counters_.out_of_memory, 1);
  Close(/*graceful=*/false);
}

void ServerConnection::StartIdleTimer() {
  if (options_.idle_timeout_nanos <= 0) return;
  NoteActivity();
  idle_timer_ =
      timers_.AddTimer(last_active_ + options_.idle_timeout_nanos, [this] { OnIdleTimer(); });
}

void ServerConnection::ArmHeadTimer() {
  head_timer_ = timers_.AddTimer(MonotonicNanos() + options_.head_timeout_nanos, [this] {
    head_timer_ = 0;
    TimeOut();
  });
}

void ServerConnection::CancelHeadTimerNow() {
  timers_.CancelTimer(head_timer_);
  head_timer_ = 0;
}

void ServerConnection::HoldUntil(int64_t until_nanos) {
  if (until_nanos <= MonotonicNanos()) return;
  held_ = true;
  if (until_nanos > hold_until_) hold_until_ = until_nanos;
  if (hold_timer_ == 0) hold_timer_ = timers_.AddTimer(hold_until_, [this] { OnHoldExpired(); });
}

void ServerConnection::OnHoldExpired() {
  hold_timer_ = 0;
  if (MonotonicNanos() < hold_until_) {  // a later reply pushed the deadline on
    hold_timer_ = timers_.AddTimer(hold_until_, [this] { OnHoldExpired(); });
    return;
  }
  held_ = false;
  OnHoldOver();
}

void ServerConnection::OnIdleTimer() {
  idle_timer_ = 0;
  const int64_t deadline = last_active_ + options_.idle_timeout_nanos;
  if (MonotonicNanos() >= deadline) {
    TimeOut();
    return;
  }
  idle_timer_ = timers_.AddTimer(deadline, [this] { OnIdleTimer(); });
}

void ServerConnection::TimeOut() {
  ServerCounters::Add(counters_.timed_out, 1);
  Close(/*graceful=*/false);
}

void ServerConnection::CancelTimers() {
  if (hold_timer_ != 0) timers_.CancelTimer(hold_timer_);
  if (idle_timer_ != 0) timers_.CancelTimer(idle_timer_);
  if (head_timer_ != 0) timers_.CancelTimer(head_timer_);
  hold_timer_ = idle_timer_ = head_timer_ = 0;
}

}  // namespace internal
}  // namespace netbench
