// Counts events and turns them into a rate per second at each Tick(), for the "msgs/s now" progress line
// that long runs print every second.
//
//   RateMeter meter(MonotonicNanos());
//   meter.Add(messages_done_this_round);
//   ... once a second:
//   absl::PrintF("%.0f msgs/s now, %d total\n", meter.Tick(MonotonicNanos()), meter.total());
//
// Add() may be called from many threads at once (relaxed atomics); Tick() from one.
#ifndef NETBENCH_COMMON_RATE_METER_H_
#define NETBENCH_COMMON_RATE_METER_H_

#include <atomic>
#include <cstdint>

namespace netbench {

class RateMeter {
 public:
  explicit RateMeter(int64_t now_nanos) : last_tick_nanos_(now_nanos) {}

  void Add(uint64_t n) { total_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t total() const { return total_.load(std::memory_order_relaxed); }

  // Events per second since the previous Tick (or construction).
  double Tick(int64_t now_nanos) {
    uint64_t total_now = total();
    int64_t elapsed = now_nanos - last_tick_nanos_;
    double rate = elapsed > 0 ? static_cast<double>(total_now - total_at_last_tick_) * 1e9 / elapsed : 0.0;
    total_at_last_tick_ = total_now;
    last_tick_nanos_ = now_nanos;
    return rate;
  }

 private:
  std::atomic<uint64_t> total_{0};
  uint64_t total_at_last_tick_ = 0;
  int64_t last_tick_nanos_;
};

}  // namespace netbench

#endif  // NETBENCH_COMMON_RATE_METER_H_
