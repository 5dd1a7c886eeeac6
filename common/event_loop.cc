// The backend-independent half of EventLoop: the factory, timers, and Post/Stop wake-ups.
#include "common/event_loop.h"

#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/errno_status.h"
#include "common/internal/event_loop_base.h"
#include "common/platform.h"

namespace netbench {

EventLoopBackend DefaultEventLoopBackend() {
  return kHasEpoll ? EventLoopBackend::kEpoll : EventLoopBackend::kPoll;
}

std::vector<EventLoopBackend> AvailableEventLoopBackends() {
  if (kHasEpoll) return {EventLoopBackend::kPoll, EventLoopBackend::kEpoll};
  return {EventLoopBackend::kPoll};
}

absl::StatusOr<EventLoopBackend> ParseEventLoopBackend(absl::string_view name) {
  if (name == "poll") return EventLoopBackend::kPoll;
  if (name == "epoll") {
    if (kHasEpoll) return EventLoopBackend::kEpoll;
    return absl::InvalidArgumentError(absl::StrCat("epoll is not built on this platform (",
                                                   kPlatformName, ": Linux only); use poll"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown event loop backend \"", name, "\" (want poll or epoll)"));
}

const char* EventLoopBackendName(EventLoopBackend backend) {
  switch (backend) {
    case EventLoopBackend::kPoll:
      return "poll";
    case EventLoopBackend::kEpoll:
      return "epoll";
  }
  return "?";
}

absl::StatusOr<std::unique_ptr<EventLoop>> EventLoop::Create(EventLoopBackend backend) {
  switch (backend) {
    case EventLoopBackend::kPoll:
      return internal::CreatePollEventLoop();
    case EventLoopBackend::kEpoll:
#if NETBENCH_LINUX
      return internal::CreateEpollEventLoop();
#else
      return absl::UnimplementedError(
          absl::StrCat("epoll is not built on this platform (", kPlatformName, ")"));
#endif
  }
  return absl::InvalidArgumentError("unknown event loop backend");
}

namespace internal {

absl::Status EventLoopBase::InitWakeup() {
  // A pipe rather than eventfd keeps this portable; a wake-up costs one write, and only when none
  // is pending already.
  int fds[2];
  if (OpenPipe(fds, /*non_blocking=*/true) != 0) return ErrnoStatus(errno, "pipe");
  wake_read_.reset(fds[0]);
  wake_write_.reset(fds[1]);
  return Add(wake_read_.get(), kReadable, &waker_);
}

int EventLoopBase::TimeoutMillis(int64_t timeout_nanos) {
  if (timeout_nanos < 0) return -1;
  int64_t millis = (timeout_nanos + kNanosPerMilli - 1) / kNanosPerMilli;
  return millis > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                  : static_cast<int>(millis);
}

void EventLoopBase::Waker::OnEvents(int fd, int /*events*/) {
  char drain[256];
  while (read(fd, drain, sizeof(drain)) > 0) {
  }
  // Cleared before taking the tasks: a Post that races with us either lands in this batch or writes
  // a fresh wake-up byte.
  loop_->wake_pending_.store(false);
  {
    std::lock_guard<std::mutex> lock(loop_->posted_mutex_);
    loop_->running_.swap(loop_->posted_);
  }
  for (std::function<void()>& task : loop_->running_) task();
  loop_->running_.clear();
}

void EventLoopBase::Wake() {
  if (wake_pending_.exchange(true)) return;
  char byte = 1;
  ssize_t n;
  do {
    n = write(wake_write_.get(), &byte, 1);
  } while (n < 0 && errno == EINTR);
  // EAGAIN means the pipe is full of wake-ups already: the loop will wake.
}

void EventLoopBase::Post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(posted_mutex_);
    posted_.push_back(std::move(task));
  }
  Wake();
}

void EventLoopBase::Stop() {
  stop_requested_.store(true);
  Wake();
}

uint64_t EventLoopBase::AddTimer(int64_t when_nanos, std::function<void()> callback) {
  uint64_t id = next_timer_id_++;
  timers_.emplace(std::make_pair(when_nanos, id), std::move(callback));
  timer_deadlines_.emplace(id, when_nanos);
  return id;
}

void EventLoopBase::CancelTimer(uint64_t id) {
  auto it = timer_deadlines_.find(id);
  if (it == timer_deadlines_.end()) return;  // already ran or cancelled
  timers_.erase(std::make_pair(it->second, id));
  timer_deadlines_.erase(it);
}

void EventLoopBase::RunDueTimers() {
  if (timers_.empty()) return;
  int64_t now = MonotonicNanos();
  // Timers added by these callbacks wait for the next pass, so a timer that re-arms itself for
  // "now" cannot starve the fds.
  uint64_t last_id = next_timer_id_ - 1;
  while (!timers_.empty()) {
    auto it = timers_.begin();
    if (it->first.first > now) break;
    if (it->first.second > last_id) {
      // Skip over timers added during this pass without running them.
      auto next = std::find_if(timers_.begin(), timers_.end(), [&](const auto& entry) {
        return entry.first.first > now || entry.first.second <= last_id;
      });
      if (next == timers_.end() || next->first.first > now) break;
      it = next;
    }
    std::function<void()> callback = std::move(it->second);
    timer_deadlines_.erase(it->first.second);
    timers_.erase(it);
    callback();
  }
}

absl::StatusOr<int> EventLoopBase::RunOnce(int64_t timeout_nanos) {
  int64_t wait = timeout_nanos;
  if (!timers_.empty()) {
    int64_t until_timer = timers_.begin()->first.first - MonotonicNanos();
    if (until_timer < 0) until_timer = 0;
    if (wait < 0 || until_timer < wait) wait = until_timer;
  }
  absl::StatusOr<int> dispatched = Poll(wait);
  if (!dispatched.ok()) return dispatched;
  RunDueTimers();
  return dispatched;
}

absl::Status EventLoopBase::Run() {
  while (!stop_requested_.load(std::memory_order_relaxed)) {
    // A failed wait fails again at once (EINVAL, EBADF, EFAULT, ENOMEM): looping would spin.
    if (absl::StatusOr<int> dispatched = RunOnce(-1); !dispatched.ok()) return dispatched.status();
  }
  stop_requested_.store(false);
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace netbench
