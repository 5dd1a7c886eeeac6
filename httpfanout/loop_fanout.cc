// The event-loop models (poll, epoll): one thread, non-blocking sockets, every request in flight a
// slot driven by readiness events; per-request deadlines are loop timers.
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/cpu_time.h"
#include "common/errno_status.h"
#include "common/event_loop.h"
#include "common/transport.h"
#include "httpfanout/fanout_client.h"
#include "httpfanout/internal/connect.h"

namespace netbench {
namespace {

class LoopFanoutClient;

// One request in flight at a time; reused for the next request when it finishes.
class Slot : public FdHandler {
 public:
  explicit Slot(LoopFanoutClient* client) : client_(client) {}
  void OnEvents(int fd, int events) override;

  LoopFanoutClient* client_;
  HttpExchange exchange;
  std::unique_ptr<Transport> transport;
  UniqueFd connecting;  // the socket while its connect is pending
  int watched_fd = -1;  // registered with the loop
  int watched_events = 0;
  int index = -1;       // the request, -1 when idle
  bool reused = false;  // on a kept-alive connection
  bool retried = false;
  bool started = false;  // exchange.Start was called for this request
  uint64_t deadline_timer = 0;
  uint64_t connect_timer = 0;
};

class LoopFanoutClient : public FanoutClient {
 public:
  LoopFanoutClient(const FanoutOptions& options, SocketAddress address, int64_t resolve_nanos,
                   std::unique_ptr<EventLoop> loop)
      : FanoutClient(options, address, resolve_nanos), loop_(std::move(loop)) {
    for (int i = 0; i < in_flight(); ++i) slots_.push_back(std::make_unique<Slot>(this));
  }

  ~LoopFanoutClient() override {
    for (auto& slot : slots_) Unwatch(*slot);
  }

  RepetitionResult RunRepetition() override {
    RepetitionResult result;
    result.outcomes.resize(options_.requests);
    result_ = &result;
    next_ = 0;
    remaining_ = options_.requests;
    CpuTimes cpu_before = SelfCpuTimes();
    Stopwatch watch;
    for (auto& slot : slots_) StartNext(*slot);
    // Timers bound every request, so this ends.
    while (remaining_ > 0) {
      absl::StatusOr<int> ran = loop_->RunOnce(100 * kNanosPerMilli);
      if (!ran.ok()) {  // the wait itself failed: what is left can never finish
        result.errors["event_loop"] += remaining_;
        result.failed += remaining_;
        break;
      }
    }
    result.wall_nanos = watch.ElapsedNanos();
    result.cpu_nanos = (SelfCpuTimes() - cpu_before).total_nanos();
    result_ = nullptr;
    return result;
  }

  void OnEvents(Slot& slot, int events) {
    if (slot.connecting.valid()) {
      int err = fanout_internal::PendingConnectError(slot.connecting.get());
      if (err == 0 && !(events & kWritable)) return;  // not yet
      if (err != 0) {
        Finish(slot, ExchangeError{
                         std::string(ErrnoName(err)), err,
                         absl::StrCat("connect ", address_.ToString(), ": ", strerror(err)), true});
        return;
      }
      Connected(slot);
      return;
    }
    Drive(slot);
  }

 private:
  void Watch(Slot& slot, int fd, int events) {
    if (slot.watched_fd == fd) {
      if (slot.watched_events != events) loop_->Modify(fd, events).IgnoreError();
    } else {
      Unwatch(slot);
      loop_->Add(fd, events, &slot).IgnoreError();
      slot.watched_fd = fd;
    }
    slot.watched_events = events;
  }

  void Unwatch(Slot& slot) {
    if (slot.watched_fd >= 0) loop_->Remove(slot.watched_fd);
    slot.watched_fd = -1;
    slot.watched_events = 0;
  }

  void StartNext(Slot& slot) {
    if (next_ >= options_.requests) {
      slot.index = -1;
      return;
    }
    slot.index = next_++;
    slot.retried = false;
    slot.started = false;
    ExchangeTiming& timing = slot.exchange.timing();
    timing = ExchangeTiming();
    timing.start = MonotonicNanos();
    Slot* s = &slot;
    slot.deadline_timer = loop_->AddTimer(timing.start + options_.timeout_nanos, [this, s] {
      s->deadline_timer = 0;
      Finish(*s, ExchangeError{"timeout", ETIMEDOUT,
                               absl::StrCat("no complete response within ",
                                            options_.timeout_nanos / kNanosPerMilli, " ms"),
                               s->exchange.timing().first_byte == 0});
    });
    if (options_.keepalive && !idle_.empty()) {
      slot.transport = std::move(idle_.back());
      idle_.pop_back();
      slot.reused = true;
      Begin(slot);
      return;
    }
    Connect(slot);
  }

  void Connect(Slot& slot) {
    slot.reused = false;
    int err = 0;
    UniqueFd fd = fanout_internal::BeginConnect(address_, &err);
    if (!fd.valid()) {
      Finish(slot, ExchangeError{std::string(ErrnoName(err)), err,
                                 absl::StrCat("connect ", address_.ToString(), ": ", strerror(err)),
                                 true});
      return;
    }
    slot.connecting = std::move(fd);
    Watch(slot, slot.connecting.get(), kWritable);
    if (options_.connect_timeout_nanos < options_.timeout_nanos) {
      Slot* s = &slot;
      slot.connect_timer =
          loop_->AddTimer(MonotonicNanos() + options_.connect_timeout_nanos, [this, s] {
            s->connect_timer = 0;
            Finish(*s, ExchangeError{
                           "connect_timeout", ETIMEDOUT,
                           absl::StrCat("connect ", address_.ToString(), ": no answer within ",
                                        options_.connect_timeout_nanos / kNanosPerMilli, " ms"),
                           true});
          });
    }
  }

  void Connected(Slot& slot) {
    if (slot.connect_timer != 0) loop_->CancelTimer(slot.connect_timer);
    slot.connect_timer = 0;
    slot.exchange.timing().connected = MonotonicNanos();
    ++result_->connections_opened;
    UniqueFd fd = std::move(slot.connecting);
    int raw = fd.get();
    if (options_.url.tls()) {
      absl::StatusOr<std::unique_ptr<Transport>> tls =
          options_.tls->Wrap(std::move(fd), options_.url.host);
      if (!tls.ok()) {
        Unwatch(slot);
        Finish(slot, ExchangeError{"tls", 0, std::string(tls.status().message()), true});
        return;
      }
      slot.transport = *std::move(tls);
    } else {
      slot.transport = MakePlainTransport(std::move(fd));
    }
    (void)raw;
    Begin(slot);
  }

  void Begin(Slot& slot) {
    slot.exchange.Start(slot.transport.get(), &request_, options_.url.tls() && !slot.reused,
                        options_.verify_checksum);
    slot.started = true;
    Drive(slot);
  }

  void Drive(Slot& slot) {
    switch (slot.exchange.Advance()) {
      case HttpExchange::Step::kWantRead:
        Watch(slot, slot.transport->fd(), kReadable);
        return;
      case HttpExchange::Step::kWantWrite:
        Watch(slot, slot.transport->fd(), kWritable);
        return;
      case HttpExchange::Step::kDone:
        if (options_.url.tls()) NoteTls(*slot.transport);
        Finish(slot, std::nullopt);
        return;
      case HttpExchange::Step::kFailed: {
        const ExchangeError& error = slot.exchange.error();
        if (slot.reused && error.before_response && !slot.retried) {
          // The server closed the kept-alive connection meanwhile: retry once on a fresh one.
          slot.retried = true;
          Unwatch(slot);
          slot.transport.reset();
          Connect(slot);
          return;
        }
        Finish(slot, error);
        return;
      }
    }
  }

  void Finish(Slot& slot, std::optional<ExchangeError> failure) {
    if (slot.index < 0) return;
    if (slot.deadline_timer != 0) loop_->CancelTimer(slot.deadline_timer);
    if (slot.connect_timer != 0) loop_->CancelTimer(slot.connect_timer);
    slot.deadline_timer = slot.connect_timer = 0;
    Record(slot.index, slot.started ? &slot.exchange : nullptr, failure ? &*failure : nullptr,
           slot.exchange.timing(), *result_);
    Unwatch(slot);
    slot.connecting.reset();
    if (!failure && options_.keepalive && slot.exchange.keep_alive()) {
      idle_.push_back(std::move(slot.transport));
    } else {
      slot.transport.reset();
    }
    --remaining_;
    StartNext(slot);
  }

  std::unique_ptr<EventLoop> loop_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::unique_ptr<Transport>> idle_;  // kept-alive connections to the one host
  RepetitionResult* result_ = nullptr;
  int next_ = 0;
  int remaining_ = 0;
};

void Slot::OnEvents(int /*fd*/, int events) { client_->OnEvents(*this, events); }

}  // namespace

std::unique_ptr<FanoutClient> MakeLoopFanoutClient(const FanoutOptions& options,
                                                   SocketAddress address, int64_t resolve_nanos) {
  absl::StatusOr<std::unique_ptr<EventLoop>> loop = EventLoop::Create(
      options.model == FanoutModel::kPoll ? EventLoopBackend::kPoll : EventLoopBackend::kEpoll);
  if (!loop.ok()) return nullptr;
  return std::make_unique<LoopFanoutClient>(options, address, resolve_nanos, *std::move(loop));
}

}  // namespace netbench
