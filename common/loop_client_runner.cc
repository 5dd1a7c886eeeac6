// The client driver's event-loop models (poll, epoll): `threads` loops, each on its own thread,
// share the connections (connection i on loop i % threads), as wrk's threads each own an ae loop
// and their share of the connections. Every socket stays non-blocking, opening included, so one
// slow peer holds up nobody.
//
// The orchestrating thread talks to a loop only through EventLoop::Post: the start of the load and
// the end of the run reach every connection on its own loop's thread.
#include <algorithm>
#include <string>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/event_loop.h"
#include "common/internal/client_runner.h"

namespace netbench {
namespace internal {
namespace {

// Writes and reads per wakeup before the loop's other connections get a turn.
constexpr int kWritesPerEvent = 16;
constexpr int kReadsPerEvent = 16;

class ClientLoop;

class LoopConnection final : public FdHandler {
 public:
  LoopConnection(ClientLoop& loop, ClientConnection& c) : loop_(loop), c_(c) {}

  void BeginOpen();
  void Start();
  void Abandon();
  // The loop cannot wait any more: the connection ends with `text`.
  void Fail(const std::string& text);
  void OnEvents(int fd, int events) override;
  bool ended() const { return ended_; }

 private:
  void ContinueOpen(Step step);
  void Pump(int events);
  void SetInterest(int events);
  void DoneSending();
  void End();

  ClientLoop& loop_;
  ClientConnection& c_;
  bool registered_ = false;
  bool open_reported_ = false;
  bool started_ = false;
  bool sending_done_ = false;
  bool ended_ = false;
  int interest_ = kNoEvents;
  uint64_t timer_ = 0;  // a pending not_before wake-up, 0: none
};

class ClientLoop {
 public:
  ClientLoop(RunState& run, std::unique_ptr<EventLoop> loop) : run_(run), loop_(std::move(loop)) {}

  void Add(ClientConnection& c) {
    connections_.push_back(std::make_unique<LoopConnection>(*this, c));
  }
  void StartThread() {
    thread_ = std::thread([this] {
      remaining_ = static_cast<int>(connections_.size());
      for (auto& c : connections_) c->BeginOpen();
      if (remaining_ == 0) return;
      if (absl::Status status = loop_->Run(); !status.ok()) {
        // The wait itself failed (poll(2) or epoll_wait(2)): every connection of this loop ends
        // with that cause, and the run goes on with the other loops'.
        for (auto& c : connections_) c->Fail(std::string(status.message()));
      }
    });
  }
  void Go() {
    loop_->Post([this] {
      for (auto& c : connections_) c->Start();
    });
  }
  void Abort() {
    loop_->Post([this] {
      for (auto& c : connections_) c->Abandon();
    });
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

  RunState& run() { return run_; }
  EventLoop& loop() { return *loop_; }
  void ConnectionEnded() {
    if (--remaining_ == 0) loop_->Stop();
  }

 private:
  RunState& run_;
  std::unique_ptr<EventLoop> loop_;
  std::vector<std::unique_ptr<LoopConnection>> connections_;
  int remaining_ = 0;  // connections not ended; the loop's thread only
  std::thread thread_;
};

void LoopConnection::BeginOpen() {
  const Step step = c_.BeginOpen(*loop_.run().options);
  if (step != Step::kFailed) {
    if (!loop_.loop().Add(c_.fd(), kWritable, this).ok()) {
      c_.Fail("event_loop", "cannot watch the socket");
    } else {
      registered_ = true;
      interest_ = kWritable;
    }
  }
  ContinueOpen(c_.failed() ? Step::kFailed : step);
}

void LoopConnection::ContinueOpen(Step step) {
  if (step == Step::kWantRead || step == Step::kWantWrite) {
    return SetInterest(step == Step::kWantRead ? kReadable : kWritable);
  }
  open_reported_ = true;
  loop_.run().Opened();
  if (step == Step::kDone) return SetInterest(kNoEvents);  // until the load starts
  End();
}

void LoopConnection::Start() {
  if (ended_) return;
  if (loop_.run().abort.load()) return Abandon();
  started_ = true;
  const Step step = c_.Start();
  if (step == Step::kDone || step == Step::kFailed) return End();
  Pump(kWritable);
}

void LoopConnection::Abandon() {
  if (ended_) return;
  c_.Abandon(loop_.run().abort_cause);
  End();
}

void LoopConnection::Fail(const std::string& text) {
  if (ended_) return;
  c_.Fail("event_loop", text);
  End();
}

void LoopConnection::OnEvents(int /*fd*/, int events) {
  if (ended_) return;
  if (!open_reported_) return ContinueOpen(c_.ContinueOpen());
  if (started_) Pump(events);
}

void LoopConnection::Pump(int events) {
  Step in = Step::kWantRead;
  if (events & (kReadable | kHangup)) {
    in = c_.PumpInput(kReadsPerEvent);
    if (in == Step::kDone || in == Step::kFailed) return End();
  }
  Step out = Step::kDone;
  if (!sending_done_) {
    out = c_.PumpOutput(kWritesPerEvent);
    if (out == Step::kFailed) return End();
    if (out == Step::kDone) DoneSending();
    if (out == Step::kIdle && c_.not_before() > 0 && timer_ == 0) {
      timer_ = loop_.loop().AddTimer(c_.not_before(), [this] {
        timer_ = 0;
        if (!ended_) Pump(kNoEvents);
      });
    }
  }
  if (c_.CheckFinished()) return End();
  // A read that stopped at its budget is finished on the next wakeup: the loops are
  // level-triggered.
  SetInterest(kReadable | (out == Step::kWantWrite || out == Step::kYield ? kWritable : 0));
}

void LoopConnection::SetInterest(int events) {
  if (!registered_ || events == interest_) return;
  interest_ = events;
  if (!loop_.loop().Modify(c_.fd(), events).ok()) c_.Fail("event_loop", "cannot watch the socket");
}

void LoopConnection::DoneSending() {
  if (sending_done_) return;
  sending_done_ = true;
  loop_.run().SendingDone();
}

void LoopConnection::End() {
  if (ended_) return;
  ended_ = true;
  if (timer_ != 0) loop_.loop().CancelTimer(timer_);
  if (registered_) loop_.loop().Remove(c_.fd());
  registered_ = false;
  if (!open_reported_) {
    open_reported_ = true;
    loop_.run().Opened();
  }
  DoneSending();
  c_.session().OnEnd();
  loop_.run().Ended();
  loop_.ConnectionEnded();
}

class LoopRunner final : public ClientRunner {
 public:
  explicit LoopRunner(std::vector<std::unique_ptr<ClientLoop>> loops) : loops_(std::move(loops)) {
    for (auto& loop : loops_) loop->StartThread();
  }
  ~LoopRunner() override { Join(); }

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
  std::vector<std::unique_ptr<ClientLoop>> loops_;
};

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
    loops.push_back(std::make_unique<ClientLoop>(run, *std::move(loop)));
  }
  for (size_t i = 0; i < connections.size(); ++i) loops[i % count]->Add(*connections[i]);
  return std::unique_ptr<ClientRunner>(new LoopRunner(std::move(loops)));
}

}  // namespace internal
}  // namespace netbench
