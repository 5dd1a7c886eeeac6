// The client driver's threads model: a thread per connection with blocking I/O, the goroutine per
// connection of the Go clients. A duplex session's sending side gets a second thread, as the Go
// spammer runs a writer goroutine beside its reader.
//
// Opening runs on a non-blocking socket that the thread polls within the run's deadline (a blocking
// connect would wait out the kernel's SYN retries, minutes, whatever --timeout says). The load then
// runs on a blocking socket whose timeouts (kWakePeriodNanos) let the thread look at the run's
// flags now and then; a wait that ends that way is a tick, not an error.
//
// Over TLS a duplex session keeps one thread that waits in poll(2) for either direction: one TLS
// connection cannot be read and written from two threads at once.
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
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

void SetSocketTimeouts(int fd) {
  timeval tv{0, static_cast<suseconds_t>(kWakePeriodNanos / kNanosPerMicro)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

class ConnectionThread {
 public:
  ConnectionThread(RunState& run, ClientConnection& c) : run_(run), c_(c) {
    thread_ = std::thread([this] { Main(); });
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Main() {
    const bool open = Open();
    run_.Opened();
    if (!open || !run_.WaitForGo()) {
      // A thread may see the deadline pass before the orchestrator says the run is over.
      if (!c_.ended()) c_.Abandon(run_.abort.load() ? run_.abort_cause : "timeout");
      run_.SendingDone();
      c_.session().OnEnd();
      run_.Ended();
      return;
    }
    if (c_.session().duplex() && c_.transport()->name() == std::string_view("tls")) {
      RunPolling();
    } else if (c_.session().duplex()) {
      RunDuplex();
    } else {
      RunAlternating();
    }
    DoneSending();
    c_.session().OnEnd();
    run_.Ended();
  }

  bool Open() {
    Step step = c_.BeginOpen(*run_.options);
    while (step == Step::kWantRead || step == Step::kWantWrite) {
      if (run_.abort.load() || MonotonicNanos() >= run_.deadline_nanos) return false;
      if (WaitFor(c_.fd(), step, run_.deadline_nanos)) step = c_.ContinueOpen();
    }
    return step == Step::kDone;
  }

  void DoneSending() {
    if (sending_done_) return;
    sending_done_ = true;
    run_.SendingDone();
  }

  // True (after abandoning the connection) once the run is over.
  bool Aborted() {
    if (!run_.abort.load(std::memory_order_relaxed)) return false;
    c_.Abandon(run_.abort_cause);
    return true;
  }

  // One thread, a blocking socket: send what is due, then wait for what comes back.
  void RunAlternating() {
    SetNonBlocking(c_.fd(), false).IgnoreError();
    SetSocketTimeouts(c_.fd());
    if (Step s = c_.Start(); s == Step::kFailed || s == Step::kDone) return;
    while (!c_.ended() && !Aborted()) {
      if (!sending_done_) {
        const Step out = c_.PumpOutput(kWritesPerCall);
        if (out == Step::kFailed) return;
        if (out == Step::kDone) DoneSending();
        if (out == Step::kWantWrite) {
          ++c_.stats().write_stalls;
          continue;
        }
        if (out == Step::kYield) continue;
        if (out == Step::kIdle && c_.not_before() > 0) {
          SleepUntilMonotonic(std::min(c_.not_before(), MonotonicNanos() + kWakePeriodNanos));
          continue;
        }
      }
      if (c_.CheckFinished()) return;
      // One read at a time: a blocking read for an answer not yet asked for would wait a tick.
      const Step in = c_.PumpInput(1);
      if (in == Step::kDone || in == Step::kFailed) return;
    }
  }

  // Two threads on a blocking socket: this one reads, a writer thread sends.
  void RunDuplex() {
    SetNonBlocking(c_.fd(), false).IgnoreError();
    SetSocketTimeouts(c_.fd());
    if (Step s = c_.Start(); s == Step::kFailed || s == Step::kDone) return;
    std::thread writer([this] {
      while (!c_.failed() && !run_.abort.load(std::memory_order_relaxed)) {
        const Step out = c_.PumpOutput(kWritesPerCall);
        if (out == Step::kDone || out == Step::kFailed) break;
        if (out == Step::kWantWrite) {
          ++c_.stats().write_stalls;
        } else if (out == Step::kIdle) {
          if (c_.not_before() > 0) {
            WakeOnTime();
            SleepUntilMonotonic(std::min(c_.not_before(), MonotonicNanos() + kWakePeriodNanos));
          } else {
            SleepUntilMonotonic(MonotonicNanos() + kWakePeriodNanos);  // waits on the reader: rare
          }
        }
      }
      DoneSending();
    });
    while (!c_.ended() && !Aborted()) {
      const Step in = c_.PumpInput(1);
      if (in == Step::kDone || in == Step::kFailed) break;
      if (in == Step::kWantRead && c_.CheckFinished()) break;
    }
    writer.join();
  }

  // One thread on a non-blocking socket, waiting in poll(2) for whichever direction is ready.
  void RunPolling() {
    if (Step s = c_.Start(); s == Step::kFailed || s == Step::kDone) return;
    while (!c_.ended() && !Aborted()) {
      Step out = Step::kDone;
      if (!sending_done_) {
        out = c_.PumpOutput(64);
        if (out == Step::kFailed) return;
        if (out == Step::kDone) DoneSending();
      }
      const Step in = c_.PumpInput(16);
      if (in == Step::kDone || in == Step::kFailed || c_.CheckFinished()) return;
      if (out == Step::kYield || in == Step::kYield) continue;
      int64_t until = MonotonicNanos() + kWakePeriodNanos;
      if (out == Step::kIdle && c_.not_before() > 0) until = std::min(until, c_.not_before());
      pollfd p{c_.fd(), static_cast<short>(POLLIN | (out == Step::kWantWrite ? POLLOUT : 0)), 0};
      poll(&p, 1, PollMillis(until));
    }
  }

  // A paced sender wakes on time rather than up to 50 us late (Linux's default timer slack).
  void WakeOnTime() {
    if (!timer_slack_set_) RequestPreciseWakeups();
    timer_slack_set_ = true;
  }

  RunState& run_;
  ClientConnection& c_;
  std::thread thread_;
  bool sending_done_ = false;
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
