// The client driver's event-loop models (poll, epoll): `threads` loops, each on its own thread,
// share the connections (slot i on loop i % threads), as wrk's threads each own an ae loop and
// their share of the connections. Every socket stays non-blocking, opening included, so one slow
// peer holds up nobody; per-session deadlines are loop timers.
//
// The orchestrating thread talks to a loop only through EventLoop::Post: the start of the load and
// the end of the run reach every connection on its own loop's thread.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/event_loop.h"
#include "common/internal/client_runner.h"
#include "common/internal/client_slot.h"

namespace netbench {
namespace internal {
namespace {

class ClientLoop;

// One slot on a loop (internal/client_slot.h): its socket watched by the loop, its timers the
// loop's.
class LoopSlot final : public ClientSlot, public FdHandler {
 public:
  LoopSlot(ClientLoop& loop, ClientConnection& c);

  void OnEvents(int /*fd*/, int events) override { OnReady((events & (kReadable | kHangup)) != 0); }

 private:
  // Registers the socket with its first interest (a session that waits only for the latch is not
  // watched), or changes it.
  void Watch(bool readable, bool writable) override;
  uint64_t AddTimer(int64_t when_nanos, std::function<void()> callback) override;
  void CancelTimer(uint64_t id) override;
  bool ReleaseSocket() override;
  void SlotEnded() override;

  ClientLoop& loop_;
  int registered_fd_ = -1;  // watched by the loop; -1: none
  int interest_ = kNoEvents;
};

class ClientLoop {
 public:
  ClientLoop(RunState& run, std::unique_ptr<EventLoop> loop, EventLoopBackend backend)
      : run_(run),
        loop_(std::move(loop)),
        watch_change_cost_(backend == EventLoopBackend::kEpoll ? 1 : 0) {}

  // The connections of one loop share their thread's statistics.
  void Add(ClientConnection& c) {
    stats_ = &c.stats();
    slots_.push_back(std::make_unique<LoopSlot>(*this, c));
  }
  void StartThread() {
    thread_ = std::thread([this] {
      remaining_ = static_cast<int>(slots_.size());
      for (auto& slot : slots_) slot->BeginOpen();
      // Not EventLoop::Run: each wait is counted.
      while (remaining_ > 0) {
        ++stats_->system_calls;
        if (absl::StatusOr<int> dispatched = loop_->RunOnce(-1); !dispatched.ok()) {
          // The wait itself failed (poll(2) or epoll_wait(2)): every connection of this loop ends
          // with that cause, and the run goes on with the other loops'.
          for (auto& slot : slots_) slot->Fail(std::string(dispatched.status().message()));
          return;
        }
      }
    });
  }
  void Go() {
    loop_->Post([this] {
      for (auto& slot : slots_) slot->Go();
    });
  }
  void Abort() {
    loop_->Post([this] {
      for (auto& slot : slots_) slot->Abandon();
    });
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

  RunState& run() { return run_; }
  EventLoop& loop() { return *loop_; }
  ReadScratch& scratch() { return scratch_; }
  // epoll's Add, Modify and Remove are system calls (epoll_ctl); poll's only edit its array.
  uint64_t watch_change_cost() const { return watch_change_cost_; }
  void SlotEnded() { --remaining_; }

 private:
  RunState& run_;
  std::unique_ptr<EventLoop> loop_;
  const uint64_t watch_change_cost_;
  ClientStats* stats_ = nullptr;
  std::vector<std::unique_ptr<LoopSlot>> slots_;
  int remaining_ = 0;    // slots not ended; the loop's thread only
  ReadScratch scratch_;  // every connection of the loop reads here
  std::thread thread_;
};

LoopSlot::LoopSlot(ClientLoop& loop, ClientConnection& c)
    : ClientSlot(loop.run(), c, loop.scratch()), loop_(loop) {}

void LoopSlot::Watch(bool readable, bool writable) {
  const int events = (readable ? kReadable : 0) | (writable ? kWritable : 0);
  ClientConnection& c = connection();
  if (registered_fd_ < 0) {
    if (events == kNoEvents) return;
    c.CountSystemCalls(loop_.watch_change_cost());
    if (!loop_.loop().Add(c.fd(), events, this).ok()) {
      c.Fail("event_loop", "cannot watch the socket");
      return SessionOver();
    }
    registered_fd_ = c.fd();
    interest_ = events;
    return;
  }
  if (events == interest_) return;
  interest_ = events;
  c.CountSystemCalls(loop_.watch_change_cost());
  if (!loop_.loop().Modify(registered_fd_, events).ok()) {
    c.Fail("event_loop", "cannot watch the socket");
    SessionOver();
  }
}

uint64_t LoopSlot::AddTimer(int64_t when_nanos, std::function<void()> callback) {
  return loop_.loop().AddTimer(when_nanos, std::move(callback));
}

void LoopSlot::CancelTimer(uint64_t id) { loop_.loop().CancelTimer(id); }

bool LoopSlot::ReleaseSocket() {
  if (registered_fd_ >= 0) {
    connection().CountSystemCalls(loop_.watch_change_cost());
    loop_.loop().Remove(registered_fd_);
  }
  registered_fd_ = -1;
  interest_ = kNoEvents;
  return true;
}

void LoopSlot::SlotEnded() { loop_.SlotEnded(); }

}  // namespace

absl::StatusOr<std::unique_ptr<ClientRunner>> StartLoopRunner(
    RunState& run, std::vector<std::unique_ptr<ClientConnection>>& connections) {
  const ClientDriverOptions& options = *run.options;
  const EventLoopBackend backend =
      options.model == ClientModel::kPoll ? EventLoopBackend::kPoll : EventLoopBackend::kEpoll;
  const int count = std::min<int>(options.threads, static_cast<int>(connections.size()));
  std::vector<std::unique_ptr<ClientLoop>> loops;
  for (int i = 0; i < count; ++i) {
    absl::StatusOr<std::unique_ptr<EventLoop>> loop = EventLoop::Create(backend);
    if (!loop.ok()) return loop.status();
    loops.push_back(std::make_unique<ClientLoop>(run, *std::move(loop), backend));
  }
  for (size_t i = 0; i < connections.size(); ++i) loops[i % count]->Add(*connections[i]);
  for (auto& loop : loops) loop->StartThread();
  return std::unique_ptr<ClientRunner>(new LoopsRunner<ClientLoop>(std::move(loops)));
}

}  // namespace internal
}  // namespace netbench
