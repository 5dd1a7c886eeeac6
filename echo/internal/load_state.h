// State shared by the load generator's orchestration (load_generator.cc) and its two models
// (thread_load.cc: a thread or two per connection; loop_load.cc: event loops over many
// connections).
//
// Hot counters are written by one thread each, with relaxed stores into cache lines of their own,
// and read by the orchestrating thread once a second: no read-modify-write is shared between
// threads while loading.
#ifndef NETBENCH_ECHO_INTERNAL_LOAD_STATE_H_
#define NETBENCH_ECHO_INTERNAL_LOAD_STATE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/histogram.h"
#include "common/unique_fd.h"
#include "echo/load_generator.h"
#include "echo/message.h"

namespace netbench {
namespace echo {
namespace internal {

inline constexpr size_t kReadChunk = 64 * 1024;
// Stream mode times one message in this many (a power of two), so the writer reads the clock
// rarely.
inline constexpr uint64_t kStreamSampleEvery = 1024;
// Blocking sockets wake this often to look at the run's flags (stop, abort).
inline constexpr int64_t kSocketTimeoutNanos = 50 * kNanosPerMilli;
// Rate mode remembers the send time of at most this many unanswered messages per connection; a
// writer this far ahead of its echoes waits (the corrected latency still counts from the intended
// times).
inline constexpr uint64_t kMaxRateInFlight = 1 << 16;

// Counts errors by cause; touched only by the thread that owns it, merged after the run.
using ErrorCounts = std::map<std::string, int64_t>;
// "write.ECONNRESET" for context "write" and ECONNRESET.
std::string ErrnoKey(const char* context, int err);

// Flags the orchestrating thread raises; workers poll them with relaxed loads.
struct RunControl {
  std::atomic<bool> stop_sending{
      false};                          // the sending phase is over: finish the current write, stop
  std::atomic<bool> measuring{false};  // warmup is over: record latencies
  std::atomic<bool> abort{false};      // drain timeout or hard timeout: return now

  // Workers report the end of their sending and of their reading here, so the orchestrator waits on
  // a condition instead of polling.
  std::mutex mutex;
  std::condition_variable changed;
  int senders_left = 0;  // guarded by mutex
  int readers_left = 0;  // guarded by mutex
  void SenderDone();
  void ReaderDone();
};

// Stream mode's latency samples, handed from a connection's writer to its reader: single producer,
// single consumer, lossy when full (a skipped sample costs nothing but a sample).
class SampleRing {
 public:
  static constexpr uint64_t kCapacity = 64;
  // Writer: message number `message_end` (1-based count of messages written) went out at
  // `sent_nanos`.
  void Push(uint64_t message_end, int64_t sent_nanos);
  // Reader: records into `histogram` every sample whose message has been echoed
  // (`echoed_messages`).
  void Collect(uint64_t echoed_messages, int64_t now_nanos, bool record,
               LatencyHistogram& histogram);
  bool Pending() const {
    return tail_.load(std::memory_order_relaxed) != head_.load(std::memory_order_acquire);
  }

 private:
  struct Slot {
    std::atomic<uint64_t> message_end{0};
    std::atomic<int64_t> sent_nanos{0};
  };
  Slot slots_[kCapacity];
  alignas(64) std::atomic<uint64_t> head_{0};  // written by the writer
  alignas(64) std::atomic<uint64_t> tail_{0};  // written by the reader
};

// Everything the workers share read-only.
struct LoadShared {
  const LoadOptions* options = nullptr;
  RunControl* control = nullptr;
  std::string message;
  std::string batch_buffer;  // the message repeated max(batch, pipeline) times
  std::unique_ptr<EchoPattern> pattern;
  double rate_interval_nanos = 0;  // rate mode: between two messages of one connection
};

// One connection's state. The writer side and the reader side may run on two threads (threads
// model, stream mode); each has its own cache line and its own error counts.
struct LoadConnection {
  int index = 0;
  UniqueFd fd;
  uint64_t budget = UINT64_MAX;  // messages this connection may send
  int64_t rate_start_nanos = 0;  // rate mode: message i is due at rate_start_nanos + i * interval

  struct alignas(64) {
    std::atomic<uint64_t> messages{0};  // written so far (complete messages)
    std::atomic<bool> done{false};
    uint64_t stalls = 0;
    ErrorCounts errors;
  } writer;
  struct alignas(64) {
    std::atomic<uint64_t> bytes{0};  // echoed so far
    ErrorCounts errors;
  } reader;

  // Latencies recorded by the reader side; which ones depends on the mode (see
  // LoadResult::latency).
  std::map<std::string, LatencyHistogram> latency;
  SampleRing samples;  // stream mode without rate
  std::unique_ptr<std::atomic<int64_t>[]>
      send_times;  // rate mode: indexed by message % kMaxRateInFlight
};

// Checks `length` received bytes, which start at byte `received` of the connection's echoed stream,
// and adds the echoed byte count to the connection's counter (read by the orchestrating thread). A
// chunk with a wrong byte counts every message it spoils as "echo.mismatch".
inline uint64_t AcceptEcho(const LoadShared& s, LoadConnection& c, const char* data, size_t length,
                           uint64_t received) {
  if (!s.pattern->Matches(data, length, received)) {
    c.reader.errors["echo.mismatch"] +=
        static_cast<int64_t>(s.pattern->CountMismatchedMessages(data, length, received));
  }
  received += length;
  c.reader.bytes.store(received, std::memory_order_relaxed);
  return received;
}

// Threads model: runs connection `c` on one thread (pipeline) or two (stream) and returns once its
// threads are started; Join waits for them.
class ThreadWorkers {
 public:
  virtual ~ThreadWorkers() = default;
  virtual void Join() = 0;
  // Adds latencies the workers kept themselves (the loop model keeps them per loop, not per
  // connection).
  virtual void MergeLatency(std::map<std::string, LatencyHistogram>& /*latency*/) {}
};
std::unique_ptr<ThreadWorkers> StartThreadWorkers(const LoadShared& shared, LoadConnection& c);

// Loop model: runs `connections` over `threads` event loops, each on its own thread.
absl::StatusOr<std::unique_ptr<ThreadWorkers>> StartLoopWorkers(
    const LoadShared& shared, std::vector<std::unique_ptr<LoadConnection>>& connections,
    int threads);

// Builds the latency histograms a connection or loop needs for the run's mode.
std::map<std::string, LatencyHistogram> MakeLatencyHistograms(const LoadOptions& options);

}  // namespace internal
}  // namespace echo
}  // namespace netbench

#endif  // NETBENCH_ECHO_INTERNAL_LOAD_STATE_H_
