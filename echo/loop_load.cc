// The load generator's loop model: non-blocking connections multiplexed over event loops
// (common/event_loop.h), each loop on its own thread, for many connections from few threads.
//
// A connection is a small state machine: a chunk being written (a batch of messages, finished
// across partial writes), what was read and checked, and, per mode, when to write the next chunk:
// stream writes while the socket takes it, pipeline when echoes free a slot, rate when messages
// fall due (a timer per loop, at the earliest due message).
#include <errno.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/event_loop.h"
#include "common/socket.h"
#include "echo/internal/load_state.h"

namespace netbench {
namespace echo {
namespace internal {
namespace {

// Stream writes per wakeup before reads get a turn.
constexpr int kMaxWritesPerEvent = 16;
// How often a loop looks at the run's flags (stop sending, abort).
constexpr int64_t kControlPeriodNanos = 10 * kNanosPerMilli;

class Loop;

class LoopConnection final : public FdHandler {
 public:
  LoopConnection(Loop* loop, LoadConnection* c);

  void Start();
  void OnEvents(int fd, int events) override;
  // Called by the loop's control timer and pacing timer.
  void Poke();
  // The earliest time a rate-mode message of this connection falls due (INT64_MAX if none).
  int64_t NextDueNanos() const;
  void Abort();
  bool done() const { return done_; }

 private:
  void OnReadable();
  void TrySend();
  // The next chunk to write, in messages (0: nothing now).
  uint64_t NextChunk(int64_t now);
  void FinishSending();
  void FinishIfAllEchoed();
  void Finish();
  void SetInterest(int events);
  void CountError(const std::string& key) { ++c_->reader.errors[key]; }

  Loop* loop_;
  LoadConnection* c_;
  const LoadShared& s_;
  const size_t size_;
  std::unique_ptr<int64_t[]> pipeline_send_times_;
  uint64_t sent_ = 0;
  uint64_t received_ = 0;
  uint64_t completed_ = 0;       // pipeline: round trips finished; rate: latencies recorded
  uint64_t chunk_messages_ = 0;  // the chunk being written (0: none)
  size_t chunk_written_ = 0;     // its bytes already written
  uint64_t next_sample_ = kStreamSampleEvery;
  bool sending_ = true;
  bool coalescing_ = false;  // SO_RCVLOWAT raised (LoadOptions::read_coalesce_bytes)
  bool done_ = false;
  int interest_ = kNoEvents;
};

class Loop {
 public:
  Loop(const LoadShared& s, std::unique_ptr<EventLoop> event_loop)
      : s_(s), event_loop_(std::move(event_loop)), latency_(MakeLatencyHistograms(*s.options)) {}

  void AddConnection(LoadConnection* c) {
    connections_.push_back(std::make_unique<LoopConnection>(this, c));
  }
  void Run() {
    for (auto& c : connections_) c->Start();
    ScheduleControl();
    ScheduleDue();
    MaybeStop();
    if (absl::Status s = event_loop_->Run(); !s.ok()) {
      std::fprintf(stderr, "echo client: event loop: %s\n", s.ToString().c_str());
    }
  }
  void ConnectionDone() { MaybeStop(); }
  // Rate mode: makes sure a pacing timer fires by `when_nanos`.
  void WakeBy(int64_t when_nanos) {
    if (when_nanos >= pacing_at_) return;
    if (pacing_timer_ != 0) event_loop_->CancelTimer(pacing_timer_);
    pacing_at_ = when_nanos;
    pacing_timer_ = event_loop_->AddTimer(when_nanos, [this] {
      pacing_timer_ = 0;
      pacing_at_ = INT64_MAX;
      for (auto& c : connections_) {
        if (!c->done()) c->Poke();
      }
      ScheduleDue();
    });
  }

  const LoadShared& shared() const { return s_; }
  EventLoop& event_loop() { return *event_loop_; }
  std::map<std::string, LatencyHistogram>& latency() { return latency_; }
  char* read_buffer() { return read_buffer_.get(); }

 private:
  void ScheduleDue() {
    if (s_.options->rate <= 0) return;
    int64_t next = INT64_MAX;
    for (auto& c : connections_) {
      if (!c->done()) next = std::min(next, c->NextDueNanos());
    }
    if (next != INT64_MAX) WakeBy(next);
  }
  void ScheduleControl() {
    event_loop_->AddTimer(MonotonicNanos() + kControlPeriodNanos, [this] {
      if (s_.control->abort.load(std::memory_order_relaxed)) {
        for (auto& c : connections_) c->Abort();
      } else if (s_.control->stop_sending.load(std::memory_order_relaxed)) {
        for (auto& c : connections_) {
          if (!c->done()) c->Poke();
        }
      }
      if (!MaybeStop()) ScheduleControl();
    });
  }
  bool MaybeStop() {
    for (auto& c : connections_) {
      if (!c->done()) return false;
    }
    event_loop_->Stop();
    return true;
  }

  const LoadShared& s_;
  std::unique_ptr<EventLoop> event_loop_;
  std::vector<std::unique_ptr<LoopConnection>> connections_;
  std::map<std::string, LatencyHistogram> latency_;
  std::unique_ptr<char[]> read_buffer_{new char[kReadChunk]};  // shared by the loop's connections
  uint64_t pacing_timer_ = 0;
  int64_t pacing_at_ = INT64_MAX;
};

LoopConnection::LoopConnection(Loop* loop, LoadConnection* c)
    : loop_(loop), c_(c), s_(loop->shared()), size_(s_.message.size()) {
  if (s_.options->mode == LoadMode::kPipeline) {
    pipeline_send_times_.reset(new int64_t[s_.options->pipeline]);
  }
}

void LoopConnection::Start() {
  interest_ = kReadable;
  absl::Status added = loop_->event_loop().Add(c_->fd.get(), interest_, this);
  if (!added.ok()) {
    CountError("loop.add");
    done_ = true;
    FinishSending();
    s_.control->ReaderDone();
    return;
  }
  if (const int coalesce = ReadCoalesceBytes(*s_.options); coalesce > 1) {
    coalescing_ = SetReceiveLowWatermark(c_->fd.get(), coalesce).ok();
  }
  TrySend();
  FinishIfAllEchoed();  // a connection with nothing to send
}

void LoopConnection::SetInterest(int events) {
  if (done_ || events == interest_) return;
  interest_ = events;
  if (!loop_->event_loop().Modify(c_->fd.get(), events).ok()) CountError("loop.modify");
}

void LoopConnection::OnEvents(int /*fd*/, int events) {
  if (events & (kReadable | kHangup)) OnReadable();
  if (!done_ && (events & kWritable)) TrySend();
  FinishIfAllEchoed();
}

void LoopConnection::Poke() {
  if (done_) return;
  TrySend();
  FinishIfAllEchoed();
}

// Checked after every step: the last echo may arrive before the sender notices it is done (its last
// write filled the per-event quota), and then no further event would come to end the connection.
void LoopConnection::FinishIfAllEchoed() {
  if (!done_ && !sending_ && received_ >= sent_ * size_) Finish();
}

int64_t LoopConnection::NextDueNanos() const {
  if (!sending_ || chunk_messages_ != 0 || sent_ >= c_->budget) return INT64_MAX;
  return c_->rate_start_nanos +
         static_cast<int64_t>(static_cast<double>(sent_) * s_.rate_interval_nanos);
}

void LoopConnection::Abort() {
  if (done_) return;
  Finish();
}

uint64_t LoopConnection::NextChunk(int64_t now) {
  const uint64_t left = c_->budget - sent_;
  const uint64_t batch = static_cast<uint64_t>(s_.options->batch);
  if (s_.options->mode == LoadMode::kPipeline) {
    return std::min(completed_ + static_cast<uint64_t>(s_.options->pipeline) - sent_, left);
  }
  if (s_.options->rate <= 0) return std::min(batch, left);
  const int64_t start = c_->rate_start_nanos;
  const uint64_t due =
      now < start
          ? 0
          : static_cast<uint64_t>(static_cast<double>(now - start) / s_.rate_interval_nanos) + 1;
  if (due <= sent_) return 0;
  const uint64_t in_flight = sent_ - received_ / size_;
  if (in_flight >= kMaxRateInFlight) {
    ++c_->writer.stalls;
    return 0;
  }
  return std::min({batch, due - sent_, left, kMaxRateInFlight - in_flight});
}

void LoopConnection::TrySend() {
  const RunControl& control = *s_.control;
  for (int writes = 0; writes < kMaxWritesPerEvent && !done_;) {
    if (chunk_messages_ == 0) {
      if (!sending_) break;
      if (control.stop_sending.load(std::memory_order_relaxed) || sent_ >= c_->budget) {
        FinishSending();
        break;
      }
      const bool stream = s_.options->mode == LoadMode::kStream && s_.options->rate <= 0;
      const int64_t now = stream ? 0 : MonotonicNanos();
      chunk_messages_ = NextChunk(now);
      if (chunk_messages_ == 0) break;
      chunk_written_ = 0;
      if (s_.options->mode == LoadMode::kPipeline) {
        for (uint64_t i = sent_; i < sent_ + chunk_messages_; ++i) {
          pipeline_send_times_[i % s_.options->pipeline] = now;
        }
      } else if (s_.options->rate > 0) {
        for (uint64_t i = sent_; i < sent_ + chunk_messages_; ++i) {
          c_->send_times[i % kMaxRateInFlight].store(now, std::memory_order_relaxed);
        }
      }
    }
    const size_t length = chunk_messages_ * size_;
    ssize_t n = send(c_->fd.get(), s_.batch_buffer.data() + chunk_written_, length - chunk_written_,
                     MSG_NOSIGNAL);
    ++writes;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (WouldBlock(errno)) {
        SetInterest(kReadable | kWritable);
        return;
      }
      ++c_->writer.errors[ErrnoKey("write", errno)];
      Finish();
      return;
    }
    chunk_written_ += static_cast<size_t>(n);
    if (chunk_written_ < length) continue;
    sent_ += chunk_messages_;
    chunk_messages_ = 0;
    c_->writer.messages.store(sent_, std::memory_order_relaxed);
    if (s_.options->mode == LoadMode::kStream && s_.options->rate <= 0 && sent_ >= next_sample_) {
      c_->samples.Push(sent_, MonotonicNanos());
      next_sample_ = sent_ + kStreamSampleEvery;
    }
  }
  if (done_) return;
  // The write quota may run out just as the last message went: sending is over all the same, and no
  // further event would come to say so (rate and pipeline modes do not watch for writability).
  if (sending_ && chunk_messages_ == 0 &&
      (control.stop_sending.load(std::memory_order_relaxed) || sent_ >= c_->budget)) {
    FinishSending();
  }
  // Stream mode keeps writing while the socket takes it; the other modes write when something is
  // due.
  const bool want_write =
      chunk_messages_ != 0 ||
      (sending_ && s_.options->mode == LoadMode::kStream && s_.options->rate <= 0);
  SetInterest(want_write ? (kReadable | kWritable) : kReadable);
  if (s_.options->rate > 0) {
    const int64_t due = NextDueNanos();
    if (due != INT64_MAX) loop_->WakeBy(due);
  }
}

void LoopConnection::OnReadable() {
  char* buffer = loop_->read_buffer();
  const RunControl& control = *s_.control;
  for (int reads = 0; reads < 4 && !done_; ++reads) {
    ssize_t n = recv(c_->fd.get(), buffer, kReadChunk, 0);
    if (n == 0) {
      if (sending_ || received_ < sent_ * size_) CountError("read.eof");
      Finish();
      return;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (WouldBlock(errno)) break;
      CountError(ErrnoKey("read", errno));
      Finish();
      return;
    }
    received_ = AcceptEcho(s_, *c_, buffer, static_cast<size_t>(n), received_);
    if (received_ > (sent_ + chunk_messages_) * size_) {
      CountError("echo.extra_bytes");
      Finish();
      return;
    }
    const uint64_t echoed = std::min(received_ / size_, sent_);
    const bool record = control.measuring.load(std::memory_order_relaxed);
    if (s_.options->mode == LoadMode::kPipeline) {
      if (echoed > completed_) {
        const int64_t now = MonotonicNanos();
        if (record) {
          LatencyHistogram& rtt = loop_->latency().at("rtt");
          for (uint64_t i = completed_; i < echoed; ++i) {
            rtt.Record(now - pipeline_send_times_[i % s_.options->pipeline]);
          }
        }
        completed_ = echoed;
      }
    } else if (s_.options->rate > 0) {
      const int64_t now = MonotonicNanos();
      for (; completed_ < echoed; ++completed_) {
        if (!record) continue;
        loop_->latency()
            .at("rtt_corrected")
            .Record(now - c_->rate_start_nanos -
                    static_cast<int64_t>(static_cast<double>(completed_) * s_.rate_interval_nanos));
        loop_->latency().at("rtt_raw").Record(
            now - c_->send_times[completed_ % kMaxRateInFlight].load(std::memory_order_relaxed));
      }
    } else if (c_->samples.Pending()) {
      c_->samples.Collect(echoed, MonotonicNanos(), record, loop_->latency().at("rtt_sampled"));
    }
    // A short read emptied the socket: asking again would only return EAGAIN (the loop is level
    // triggered and reports what arrives later).
    if (static_cast<size_t>(n) < kReadChunk) break;
  }
  if (done_) return;
  if (s_.options->mode == LoadMode::kPipeline) TrySend();
}

void LoopConnection::FinishSending() {
  if (!sending_) return;
  sending_ = false;
  // The last echoes may be fewer than the watermark: report the socket readable on any byte again
  // (setting it re-checks readiness, so the loop hears of bytes already waiting).
  if (coalescing_) coalescing_ = !SetReceiveLowWatermark(c_->fd.get(), 1).ok();
  c_->writer.done.store(true, std::memory_order_release);
  s_.control->SenderDone();
}

void LoopConnection::Finish() {
  if (done_) return;
  FinishSending();
  done_ = true;
  loop_->event_loop().Remove(c_->fd.get());
  s_.control->ReaderDone();
  loop_->ConnectionDone();
}

class LoopThreads final : public ThreadWorkers {
 public:
  ~LoopThreads() override { Join(); }
  void Join() override {
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  void MergeLatency(std::map<std::string, LatencyHistogram>& latency) override {
    for (auto& loop : loops_) {
      for (auto& [name, histogram] : loop->latency()) latency.at(name).Merge(histogram);
    }
  }

  std::vector<std::unique_ptr<Loop>> loops_;
  std::vector<std::thread> threads_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ThreadWorkers>> StartLoopWorkers(
    const LoadShared& shared, std::vector<std::unique_ptr<LoadConnection>>& connections,
    int threads) {
  auto workers = std::make_unique<LoopThreads>();
  const EventLoopBackend backend = DefaultEventLoopBackend();
  threads = std::max(1, std::min<int>(threads, static_cast<int>(connections.size())));
  for (int i = 0; i < threads; ++i) {
    absl::StatusOr<std::unique_ptr<EventLoop>> event_loop = EventLoop::Create(backend);
    if (!event_loop.ok()) return event_loop.status();
    workers->loops_.push_back(std::make_unique<Loop>(shared, *std::move(event_loop)));
  }
  for (size_t i = 0; i < connections.size(); ++i) {
    if (!SetNonBlocking(connections[i]->fd.get()).ok()) ++connections[i]->reader.errors["fcntl"];
    workers->loops_[i % threads]->AddConnection(connections[i].get());
  }
  for (auto& loop : workers->loops_) {
    workers->threads_.emplace_back([l = loop.get()] { l->Run(); });
  }
  return workers;
}

}  // namespace internal
}  // namespace echo
}  // namespace netbench
