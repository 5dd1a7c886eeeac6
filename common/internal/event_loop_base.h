// The part of EventLoop shared by every polling backend: timers, Post/Stop with a wake-up pipe, and
// Run. A backend (poll_event_loop.cc, epoll_event_loop.cc) implements Add/Modify/Remove and Poll,
// as each of Redis' ae_*.c files implements the same few functions.
#ifndef NETBENCH_COMMON_INTERNAL_EVENT_LOOP_BASE_H_
#define NETBENCH_COMMON_INTERNAL_EVENT_LOOP_BASE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/event_loop.h"
#include "common/unique_fd.h"

namespace netbench {
namespace internal {

class EventLoopBase : public EventLoop {
 public:
  EventLoopBase() = default;
  ~EventLoopBase() override = default;

  uint64_t AddTimer(int64_t when_nanos, std::function<void()> callback) override;
  void CancelTimer(uint64_t id) override;
  absl::StatusOr<int> RunOnce(int64_t timeout_nanos) override;
  absl::Status Run() override;
  void Stop() override;
  void Post(std::function<void()> task) override;

  // Creates the wake-up pipe and watches it; a backend's factory calls this once it can Add.
  absl::Status InitWakeup();

 protected:
  // Waits at most `timeout_nanos` (< 0: no limit) for readiness, dispatches it, and returns the
  // number of handlers called: 0 on a timeout or EINTR, the translated errno on any other failure.
  virtual absl::StatusOr<int> Poll(int64_t timeout_nanos) = 0;

  // Poll backends wait in milliseconds: round up so that a timer never fires early.
  static int TimeoutMillis(int64_t timeout_nanos);

 private:
  class Waker final : public FdHandler {
   public:
    explicit Waker(EventLoopBase* loop) : loop_(loop) {}
    void OnEvents(int fd, int events) override;

   private:
    EventLoopBase* loop_;
  };

  void Wake();
  void RunDueTimers();

  UniqueFd wake_read_;
  UniqueFd wake_write_;
  Waker waker_{this};
  std::atomic<bool> wake_pending_{false};
  std::atomic<bool> stop_requested_{false};

  std::mutex posted_mutex_;
  std::vector<std::function<void()>> posted_;   // guarded by posted_mutex_
  std::vector<std::function<void()>> running_;  // loop thread only: swapped with posted_

  // Ordered by (when, id): equal deadlines run in the order they were added.
  std::map<std::pair<int64_t, uint64_t>, std::function<void()>> timers_;
  std::unordered_map<uint64_t, int64_t> timer_deadlines_;
  uint64_t next_timer_id_ = 1;
};

absl::StatusOr<std::unique_ptr<EventLoop>> CreatePollEventLoop();
// Built where NETBENCH_LINUX is 1 (platform.h).
absl::StatusOr<std::unique_ptr<EventLoop>> CreateEpollEventLoop();

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_EVENT_LOOP_BASE_H_
