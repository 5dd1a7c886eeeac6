// A run's messages over time: how many were sent and received in each fixed interval of the
// measured phase, so that a run's rate can be read as it went (warm-up, a slowdown, the steady
// state) and not only as one average. The client driver records one per run (client_driver.h);
// the clients print it as one line and put it in their run document.
//
//   ClientSeriesRecorder recorder(100 * kNanosPerMilli);
//   recorder.Start(start, /*sent=*/0, /*received=*/0);
//   ... whenever MonotonicNanos() reaches recorder.next_boundary():
//   recorder.Record(now, sent_so_far, received_so_far);
//   ClientSeries series = recorder.Finish(end, sent_at_end, received_at_end);
//   std::cout << "series: " << ClientSeriesJson(series) << "\n";
//
// The counters are cumulative and read only when the recorder is told them, never per message.
// Each interval's count is the difference of the counters at its two ends; a counter read a little
// after a boundary (the reading thread's wake-up) is interpolated back to the boundary linearly
// from the readings either side, so the counts of an interval the reader slept through are shared
// out over the intervals it covered rather than all landing in one. The intervals' counts add up to
// the counters' difference between Start and Finish exactly, whatever the readings' times.
#ifndef NETBENCH_COMMON_CLIENT_SERIES_H_
#define NETBENCH_COMMON_CLIENT_SERIES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"

namespace netbench {

// The recorder's bound on intervals: at 100 ms, 10,000 s of run before intervals are merged.
inline constexpr int kMaxSeriesIntervals = 100000;
// The shortest interval the clients take (--series_interval): shorter ones would wake the driver's
// thread, beside the load it measures, more often than a run's rate over time needs.
inline constexpr int64_t kMinSeriesIntervalNanos = 10 * kNanosPerMilli;

struct ClientSeries {
  // Every interval's length but the last's, from the start of the measured phase; 0 when no series
  // was recorded (then the vectors are empty).
  int64_t interval_nanos = 0;
  // The last interval's length, up to the end of the measured phase: (0, interval_nanos], or 0 for
  // a measured phase of no length.
  int64_t last_nanos = 0;
  // Messages per interval (not cumulative), one entry per interval in both.
  std::vector<uint64_t> sent;
  std::vector<uint64_t> received;

  bool empty() const { return sent.empty(); }
};

// {"interval_s": 0.1, "last_s": 0.043, "sent": [1234, 1200], "received": [1200, 1234]}: one line
// of JSON, seconds with up to nanosecond precision.
std::string ClientSeriesJson(const ClientSeries& series);

class ClientSeriesRecorder {
 public:
  // Intervals of `interval_nanos` (> 0). Memory is bounded by `max_intervals` (even, at least 2;
  // an odd one is taken one lower): a series that fills it has its
  // intervals merged in pairs and goes on at twice the interval, so a long run keeps its whole
  // length at a coarser grain rather than losing its end.
  explicit ClientSeriesRecorder(int64_t interval_nanos, int max_intervals = kMaxSeriesIntervals);

  // The measured phase begins at `start_nanos`, with the counters where they stand then.
  void Start(int64_t start_nanos, uint64_t sent, uint64_t received);
  // The counters at `now_nanos` (not before the previous reading): closes every interval that ended
  // by then.
  void Record(int64_t now_nanos, uint64_t sent, uint64_t received);
  // When the open interval ends: the time to call Record next (INT64_MAX for an interval longer
  // than time can count, as absl::InfiniteDuration() gives).
  int64_t next_boundary() const {
    return boundary_ > INT64_MAX - interval_nanos_ ? INT64_MAX : boundary_ + interval_nanos_;
  }
  // The measured phase ends at `end_nanos` with these counters: the open interval, however short,
  // is the last.
  ClientSeries Finish(int64_t end_nanos, uint64_t sent, uint64_t received);

 private:
  // One counter's series.
  struct Track {
    uint64_t at_boundary = 0;  // the counter at the last closed boundary (interpolated)
    uint64_t at_reading = 0;   // at the last reading
    std::vector<uint64_t> counts;
  };
  // Closes the intervals that end at or before `until_nanos` (strictly before, when `inclusive` is
  // false), from the readings at reading_nanos_ and at `now_nanos`.
  void CloseIntervals(int64_t now_nanos, uint64_t sent, uint64_t received, int64_t until_nanos,
                      bool inclusive);
  // Closes one interval of `track` at a boundary `part` of the way from the last reading to this
  // one, `whole` apart.
  static void CloseOne(Track& track, uint64_t now_value, int64_t part, int64_t whole);
  static void Merge(Track& track);

  int64_t interval_nanos_;
  const int max_intervals_;
  int64_t boundary_ = 0;       // where the open interval began
  int64_t reading_nanos_ = 0;  // when the counters were last read
  Track sent_;
  Track received_;
};

}  // namespace netbench

#endif  // NETBENCH_COMMON_CLIENT_SERIES_H_
