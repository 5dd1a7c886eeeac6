// What the client driver (client_driver.cc) shares with its models: the threads runner
// (thread_client_runner.cc), the event-loop runner (loop_client_runner.cc) and the io_uring runner
// (uring_client_runner.cc, Linux only), as server.cc shares
// internal/server_models.h with thread_server.cc and event_loop_server.cc.
//
// The orchestrating thread waits on RunState's counters; runners report each slot once when its
// first session's connection is open (or failed to open), once when its sending side is done (its
// session's, or with replace_sessions its last session's), and once when it ended.
#ifndef NETBENCH_COMMON_INTERNAL_CLIENT_RUNNER_H_
#define NETBENCH_COMMON_INTERNAL_CLIENT_RUNNER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/client_driver.h"
#include "common/internal/client_connection.h"

namespace netbench {
namespace internal {

// Blocking sockets and waits wake at least this often to look at the run's flags.
inline constexpr int64_t kWakePeriodNanos = 50 * kNanosPerMilli;

struct RunState {
  const ClientDriverOptions* options = nullptr;
  const SessionFactory* factory = nullptr;
  int64_t deadline_nanos = 0;
  std::atomic<int64_t> next_sequence{0};  // SessionContext::sequence of the next replacement
  RunSignals signals;
  std::atomic<bool> abort{false};  // the run is over: every connection stops where it is
  const char* abort_cause = "";    // set before `abort`: what ended connections are counted as

  std::mutex mutex;
  std::condition_variable changed;
  // Guarded by mutex.
  int opening = 0;  // connections neither open nor failed yet
  int sending = 0;  // sending sides not done
  int running = 0;  // connections not ended
  bool go = false;  // the start latch: every connection is open, the load begins
  int64_t start_nanos = 0;

  // Each is called once per connection.
  void Opened();
  void SendingDone();
  void Ended();
  // Blocks until the latch opens or the run is aborted; true when the load is to begin.
  bool WaitForGo();
  // With replace_sessions: the slot's next session, or nullptr when the slot is done (the factory
  // said so, the run was aborted, or stop_sending was raised).
  std::unique_ptr<ClientSession> NextSession(ClientConnection& c);
};

class ClientRunner {
 public:
  virtual ~ClientRunner() = default;
  // Opens the latch (RunState::go is already set): the load begins.
  virtual void Go() = 0;
  // Ends every connection still running (RunState::abort is already set).
  virtual void Abort() = 0;
  virtual void Join() = 0;
};

// The runner of the models whose loops each run on a thread of their own with their share of the
// slots (loop_client_runner.cc, uring_client_runner.cc): the run's start and end reach every loop.
// `Loop` has Go(), Abort() and Join(), as ClientRunner's.
template <typename Loop>
class LoopsRunner final : public ClientRunner {
 public:
  explicit LoopsRunner(std::vector<std::unique_ptr<Loop>> loops) : loops_(std::move(loops)) {}
  ~LoopsRunner() override { Join(); }

  void Go() override {
    for (auto& loop : loops_) loop->Go();
  }
  void Abort() override {
    for (auto& loop : loops_) loop->Abort();
  }
  void Join() override {
    for (auto& loop : loops_) loop->Join();
  }

 private:
  std::vector<std::unique_ptr<Loop>> loops_;
};

// Each starts opening every connection at once and returns.
std::unique_ptr<ClientRunner> StartThreadRunner(
    RunState& run, std::vector<std::unique_ptr<ClientConnection>>& connections);
absl::StatusOr<std::unique_ptr<ClientRunner>> StartLoopRunner(
    RunState& run, std::vector<std::unique_ptr<ClientConnection>>& connections);
// Where uring is built (platform.bzl's if_uring) and UringSupport() said yes.
absl::StatusOr<std::unique_ptr<ClientRunner>> StartUringRunner(
    RunState& run, std::vector<std::unique_ptr<ClientConnection>>& connections);

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_CLIENT_RUNNER_H_
