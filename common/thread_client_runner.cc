// The client driver's threads model: a thread per connection with blocking I/O, the goroutine per
// connection of the Go clients. A duplex session's sending side gets a second thread, as the Go
// spammer runs a writer goroutine beside its reader.
//
// Opening runs on a non-blocking socket that the thread polls within the run's deadline (a blocking
// connect would wait out the kernel's SYN retries, minutes, whatever --timeout says). The load then
// runs on a blocking socket whose timeouts (kWakePeriodNanos) let the thread look at the run's
// flags now and then; a wait that ends that way is a tick, not an error. Near a session's deadline
// the timeouts shrink to what is left of it, so that a blocked read wakes on time.
//
// With replace_sessions the thread runs its slot's sessions one after another, as a goroutine per
// request in flight would.
//
// Over TLS a duplex session keeps one thread that waits in poll(2) for either direction: one TLS
// connection cannot be read and written from two threads at once.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/internal/client_runner.h"
#include "common/platform.h"
#include "common/socket.h"

namespace netbench {
namespace internal {
namespace {

constexpr int kWritesPerCall = 1 << 16;

int PollMillis(int64_t until_nanos) {
  const int64_t left = std::clamp<int64_t>(until_nanos - MonotonicNanos(), 0, kWakePeriodNanos);
  return static_cast<int>((left + kNanosPerMilli - 1) / kNanosPerMilli);
}

// Waits until `fd` is ready for `step` (kWantRead/kWantWrite), `until` passes, or a wake period
// passes. True when the fd is ready.
bool WaitFor(int fd, Step step, int64_t until) {
  pollfd p{fd, static_cast<short>(step == Step::kWantRead ? POLLIN : POLLOUT), 0};
  return poll(&p, 1, PollMillis(until)) > 0;
}

// Socket timeouts of `nanos`, at least a millisecond (zero would mean none): two system calls.
void SetSocketTimeouts(int fd, int64_t nanos) {
  nanos = std::max<int64_t>(nanos, kNanosPerMilli);
  timeval tv{static_cast<time_t>(nanos / kNanosPerSecond),
             static_cast<suseconds_t>(nanos % kNanosPerSecond / kNanosPerMicro)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

class ConnectionThread {
 public:
  ConnectionThread(RunState& run, ClientConnection& c)
      : run_(run),
        c_(c),
        latched_(run.options->open_before_start),
        replacing_(run.options->replace_sessions) {
    thread_ = std::thread([this] { Main(); });
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Main() {
    bool open = Open();
    run_.Opened();
    // With the latch, a slot whose first connection could not open ends: the run will not start.
    if (latched_ && (!open || !run_.WaitForGo())) {
      if (!c_.ended()) c_.Abandon(run_.abort_cause);
      c_.EndSession();
      EndSlot();
      return;
    }
    while (true) {
      if (open) Load();
      // Open and Load return unfinished only when the run was aborted.
      if (!c_.ended()) c_.Abandon(run_.abort_cause);
      if (!run_.abort.load() && c_.Restart()) {
        open = Open();
        continue;
      }
      c_.EndSession();
      std::unique_ptr<ClientSession> next = run_.NextSession(c_);
      if (next == nullptr) break;
      c_.BeginSession(std::move(next));
      open = Open();
    }
    EndSlot();
  }

  // Opens on a non-blocking socket; false when the session failed or the run was aborted.
  bool Open() {
    Step step = c_.BeginOpen();
    while (step == Step::kWantRead || step == Step::kWantWrite) {
      if (run_.abort.load()) return false;
      const int64_t deadline = c_.deadline();
      if (deadline != 0 && c_.CheckDeadlines(MonotonicNanos())) return false;
      c_.CountSystemCalls(1);
      if (WaitFor(c_.fd(), step, deadline != 0 ? deadline : INT64_MAX)) step = c_.ContinueOpen();
    }
    return step == Step::kDone;
  }

  void Load() {
    if (c_.session().duplex() && c_.transport()->name() == std::string_view("tls")) {
      RunPolling();
    } else if (c_.session().duplex()) {
      RunDuplex();
    } else {
      RunAlternating();
    }
    // A socket that may go back into the pool keeps the usual ticks for its next session.
    if (blocking_ && tick_nanos_ != kWakePeriodNanos && c_.transport() != nullptr) {
      c_.CountSystemCalls(2);
      SetSocketTimeouts(c_.fd(), kWakePeriodNanos);
    }
  }

  // The session's sending side is done: the slot's too, unless the slot has sessions to come.
  void SessionSendingDone() {
    if (!replacing_) DoneSending();
  }

  void DoneSending() {
    if (sending_reported_) return;
    sending_reported_ = true;
    run_.SendingDone();
  }

  void EndSlot() {
    DoneSending();
    run_.Ended();
  }

  // True (after abandoning the session) once the run is over. Acquire: abort_cause was written
  // before the flag.
  bool Aborted() {
    if (!run_.abort.load(std::memory_order_acquire)) return false;
    c_.Abandon(run_.abort_cause);
    return true;
  }

  // True (the session failed) once one of its deadlines passed. Near one, a blocking socket's
  // timeouts shrink to what is left, so that the next blocked call wakes in time.
  bool Expired() {
    const int64_t deadline = c_.deadline();
    if (deadline == 0) return false;
    const int64_t now = MonotonicNanos();
    if (c_.CheckDeadlines(now)) return true;
    if (blocking_ && deadline - now < tick_nanos_) {
      tick_nanos_ = std::max<int64_t>(deadline - now, kNanosPerMilli);
      c_.CountSystemCalls(2);
      SetSocketTimeouts(c_.fd(), tick_nanos_);
    }
    return false;
  }

  // A blocking socket that wakes every wake period. A socket from the pool that the threads model
  // left blocking has those timeouts already: one fcntl says so.
  void MakeBlocking() {
    c_.CountSystemCalls(1);
    const int flags = fcntl(c_.fd(), F_GETFL, 0);
    if (flags >= 0 && (flags & O_NONBLOCK) != 0) {
      c_.CountSystemCalls(3);  // with the two timeouts
      fcntl(c_.fd(), F_SETFL, flags & ~O_NONBLOCK);
      SetSocketTimeouts(c_.fd(), kWakePeriodNanos);
    }
    blocking_ = true;
    tick_nanos_ = kWakePeriodNanos;
  }

  // One thread, a blocking socket: send what is due, then wait for what comes back.
  void RunAlternating() {
    MakeBlocking();
    if (Step s = c_.Start(); s == Step::kFailed || s == Step::kDone) return;
    while (!c_.ended() && !Aborted() && !Expired()) {
      if (!c_.sending_done()) {
        const Step out = c_.PumpOutput(kWritesPerCall);
        if (out == Step::kFailed) return;
        if (out == Step::kDone) SessionSendingDone();
        if (out == Step::kWantWrite) {
          ++c_.stats().write_stalls;
          continue;
        }
        if (out == Step::kYield) continue;
        if (out == Step::kIdle && c_.not_before() > 0) {
          c_.CountSystemCalls(1);
          SleepUntilMonotonic(std::min(c_.not_before(), MonotonicNanos() + kWakePeriodNanos));
          continue;
        }
      }
      if (c_.CheckFinished()) return;
      // One read at a time: a blocking read for an answer not yet asked for would wait a tick.
      const Step in = c_.PumpInput(1, scratch_);
      if (in == Step::kDone || in == Step::kFailed) return;
    }
  }

  // Two threads on a blocking socket: this one reads, a writer thread sends.
  void RunDuplex() {
    MakeBlocking();
    if (Step s = c_.Start(); s == Step::kFailed || s == Step::kDone) return;
    std::thread writer([this] {
      while (!c_.failed() && !run_.abort.load(std::memory_order_relaxed)) {
        const Step out = c_.PumpOutput(kWritesPerCall);
        if (out == Step::kDone || out == Step::kFailed) break;
        if (out == Step::kWantWrite) {
          ++c_.stats().write_stalls;
        } else if (out == Step::kIdle) {
          c_.CountSendingSystemCalls(1);
          if (c_.not_before() > 0) {
            WakeOnTime();
            SleepUntilMonotonic(std::min(c_.not_before(), MonotonicNanos() + kWakePeriodNanos));
          } else {
            SleepUntilMonotonic(MonotonicNanos() + kWakePeriodNanos);  // waits on the reader: rare
          }
        }
      }
      SessionSendingDone();
    });
    while (!c_.ended() && !Aborted() && !Expired()) {
      const Step in = c_.PumpInput(1, scratch_);
      if (in == Step::kDone || in == Step::kFailed) break;
      if (in == Step::kWantRead && c_.CheckFinished()) break;
    }
    writer.join();
  }

  // One thread on a non-blocking socket, waiting in poll(2) for whichever direction is ready.
  void RunPolling() {
    blocking_ = false;
    if (Step s = c_.Start(); s == Step::kFailed || s == Step::kDone) return;
    while (!c_.ended() && !Aborted() && !Expired()) {
      Step out = Step::kDone;
      if (!c_.sending_done()) {
        out = c_.PumpOutput(64);
        if (out == Step::kFailed) return;
        if (out == Step::kDone) SessionSendingDone();
      }
      const Step in = c_.PumpInput(16, scratch_);
      if (in == Step::kDone || in == Step::kFailed || c_.CheckFinished()) return;
      if (out == Step::kYield || in == Step::kYield) continue;
      int64_t until = MonotonicNanos() + kWakePeriodNanos;
      if (out == Step::kIdle && c_.not_before() > 0) until = std::min(until, c_.not_before());
      if (c_.deadline() != 0) until = std::min(until, c_.deadline());
      pollfd p{c_.fd(), static_cast<short>(POLLIN | (out == Step::kWantWrite ? POLLOUT : 0)), 0};
      c_.CountSystemCalls(1);
      poll(&p, 1, PollMillis(until));
    }
  }

  // A paced sender wakes on time rather than up to 50 us late (Linux's default timer slack).
  void WakeOnTime() {
    if (!timer_slack_set_) {
      c_.CountSendingSystemCalls(1);
      RequestPreciseWakeups();
    }
    timer_slack_set_ = true;
  }

  RunState& run_;
  ClientConnection& c_;
  const bool latched_;
  const bool replacing_;
  std::thread thread_;
  bool sending_reported_ = false;
  bool blocking_ = false;
  int64_t tick_nanos_ = kWakePeriodNanos;  // the blocking socket's timeouts
  ReadScratch scratch_;                    // the receiving side's
  bool timer_slack_set_ = false;
};

class ThreadRunner final : public ClientRunner {
 public:
  ThreadRunner(RunState& run, std::vector<std::unique_ptr<ClientConnection>>& connections) {
    threads_.reserve(connections.size());
    for (auto& c : connections) threads_.push_back(std::make_unique<ConnectionThread>(run, *c));
  }
  ~ThreadRunner() override { Join(); }

  // The threads wait on RunState's condition and flags themselves.
  void Go() override {}
  void Abort() override {}
  void Join() override {
    for (auto& t : threads_) t->Join();
  }

 private:
  std::vector<std::unique_ptr<ConnectionThread>> threads_;
};

}  // namespace

std::unique_ptr<ClientRunner> StartThreadRunner(
    RunState& run, std::vector<std::unique_ptr<ClientConnection>>& connections) {
  return std::make_unique<ThreadRunner>(run, connections);
}

}  // namespace internal
}  // namespace netbench
