// The timers of a loop that waits in io_uring_enter (the uring server and client models): a
// callback per deadline, in deadline order, run on the loop's thread once their time has come.
// The loop's enter waits at most until the nearest one.
//
//   TimerQueue timers;
//   const uint64_t id = timers.Add(MonotonicNanos() + kNanosPerSecond, [&] { OnIdle(); });
//   timers.Cancel(id);  // before it ran: it never will
//   ...each pass: wait at most until timers.next() (if it has a value), then
//   timers.RunDue();
//
// (EventLoopBase keeps its own: it holds back timers added while it runs them.)
#ifndef NETBENCH_COMMON_INTERNAL_TIMER_QUEUE_H_
#define NETBENCH_COMMON_INTERNAL_TIMER_QUEUE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "common/clock.h"

namespace netbench {
namespace internal {

class TimerQueue {
 public:
  // Runs `callback` from RunDue at or after `when_nanos` (MonotonicNanos()); returns its id (not
  // 0).
  uint64_t Add(int64_t when_nanos, std::function<void()> callback) {
    const uint64_t id = next_id_++;
    timers_.emplace(std::make_pair(when_nanos, id), std::move(callback));
    deadlines_[id] = when_nanos;
    return id;
  }

  // Forgets timer `id`; one that ran or was cancelled already is no matter.
  void Cancel(uint64_t id) {
    auto it = deadlines_.find(id);
    if (it == deadlines_.end()) return;
    timers_.erase(std::make_pair(it->second, id));
    deadlines_.erase(it);
  }

  // The nearest deadline, if any.
  std::optional<int64_t> next() const {
    if (timers_.empty()) return std::nullopt;
    return timers_.begin()->first.first;
  }

  // Runs, in deadline order (equal deadlines in the order they were added), every timer due by
  // now, those its callbacks add included when they are due by then too.
  void RunDue() {
    const int64_t now = MonotonicNanos();
    while (!timers_.empty() && timers_.begin()->first.first <= now) {
      auto first = timers_.begin();
      std::function<void()> callback = std::move(first->second);
      deadlines_.erase(first->first.second);
      timers_.erase(first);
      callback();
    }
  }

 private:
  std::map<std::pair<int64_t, uint64_t>, std::function<void()>> timers_;
  std::unordered_map<uint64_t, int64_t> deadlines_;
  uint64_t next_id_ = 1;
};

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_TIMER_QUEUE_H_
