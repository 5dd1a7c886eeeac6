// Monotonic time in nanoseconds, and a stopwatch on top of it.
//
// Every duration netbench reports comes from here, so that all programs read the same clock
// (CLOCK_MONOTONIC: immune to wall-clock steps, ~20 ns per read through the vDSO).
//
//   netbench::Stopwatch watch;
//   DoWork();
//   int64_t ns = watch.ElapsedNanos();
#ifndef NETBENCH_COMMON_CLOCK_H_
#define NETBENCH_COMMON_CLOCK_H_

#include <time.h>

#include <cstdint>

namespace netbench {

inline constexpr int64_t kNanosPerMicro = 1000;
inline constexpr int64_t kNanosPerMilli = 1000 * kNanosPerMicro;
inline constexpr int64_t kNanosPerSecond = 1000 * kNanosPerMilli;

// Nanoseconds since an arbitrary fixed point (boot); only differences are meaningful.
inline int64_t MonotonicNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNanosPerSecond + ts.tv_nsec;
}

inline double NanosToSeconds(int64_t ns) { return static_cast<double>(ns) / kNanosPerSecond; }

// Measures elapsed monotonic time from construction or the last Restart().
class Stopwatch {
 public:
  Stopwatch() : start_(MonotonicNanos()) {}

  void Restart() { start_ = MonotonicNanos(); }
  int64_t start_nanos() const { return start_; }
  int64_t ElapsedNanos() const { return MonotonicNanos() - start_; }
  double ElapsedSeconds() const { return NanosToSeconds(ElapsedNanos()); }

 private:
  int64_t start_;
};

}  // namespace netbench

#endif  // NETBENCH_COMMON_CLOCK_H_
