#include "echo/echo_session.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "common/clock.h"
#include "common/socket.h"

namespace netbench {
namespace echo {
namespace {

// The driver reads at most this much at once; longer input is checked in pieces of this size.
constexpr size_t kMaxChunk = 64 * 1024;
// Stream mode times one message in this many (a power of two), so the writer reads the clock
// rarely.
constexpr uint64_t kStreamSampleEvery = 1024;
// Rate mode remembers the send time of at most this many unanswered messages per connection; a
// writer this far ahead of its echoes waits (the corrected latency still counts from the intended
// times).
constexpr uint64_t kMaxRateInFlight = 1 << 16;

// Stream mode's latency samples, handed from the sending side to the receiving side: single
// producer, single consumer, lossy when full (a skipped sample costs nothing but a sample).
class SampleRing {
 public:
  static constexpr uint64_t kCapacity = 64;
  // Sender: message number `message_end` (1-based count of messages written) went out at `sent`.
  void Push(uint64_t message_end, int64_t sent_nanos) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_.load(std::memory_order_acquire) >= kCapacity) return;
    Slot& slot = slots_[head % kCapacity];
    slot.message_end.store(message_end, std::memory_order_relaxed);
    slot.sent_nanos.store(sent_nanos, std::memory_order_relaxed);
    head_.store(head + 1, std::memory_order_release);
  }
  // Receiver: records every sample whose message has been echoed.
  void Collect(uint64_t echoed_messages, int64_t now_nanos, bool record,
               LatencyHistogram& histogram) {
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    const uint64_t head = head_.load(std::memory_order_acquire);
    while (tail != head) {
      const Slot& slot = slots_[tail % kCapacity];
      if (slot.message_end.load(std::memory_order_relaxed) > echoed_messages) break;
      if (record) histogram.Record(now_nanos - slot.sent_nanos.load(std::memory_order_relaxed));
      ++tail;
    }
    tail_.store(tail, std::memory_order_release);
  }
  bool Pending() const {
    return tail_.load(std::memory_order_relaxed) != head_.load(std::memory_order_acquire);
  }

 private:
  struct Slot {
    std::atomic<uint64_t> message_end{0};
    std::atomic<int64_t> sent_nanos{0};
  };
  Slot slots_[kCapacity];
  alignas(64) std::atomic<uint64_t> head_{0};
  alignas(64) std::atomic<uint64_t> tail_{0};
};

// What both sessions share: the echoed byte stream's check and its counters. Counters written by
// one side sit in cache lines of their own, read by the other side and by the driver once a second.
class EchoSessionBase : public ClientSession {
 public:
  EchoSessionBase(const EchoRun& run, const SessionContext& context)
      : run_(run),
        size_(run.message.size()),
        budget_(run.Budget(context.slot)),
        stats_(*context.stats),
        signals_(*context.signals) {}

  uint64_t messages_sent() const override { return sent_.load(std::memory_order_relaxed); }
  uint64_t messages_received() const override {
    return received_bytes_.load(std::memory_order_relaxed) / size_;
  }

  void OnEnd(const SessionEnd& /*end*/) override {
    const uint64_t written = sent_.load();
    const uint64_t echoed = received_bytes_.load();
    if (echoed < written * size_) {
      stats_.errors["echo.missing"] +=
          static_cast<int64_t>((written * size_ - echoed + size_ - 1) / size_);
    }
  }

 protected:
  // Checks `input`, which continues the echoed stream at byte `received`, and counts it.
  uint64_t AcceptEcho(absl::string_view input) {
    uint64_t received = received_bytes_.load(std::memory_order_relaxed);
    for (size_t at = 0; at < input.size(); at += kMaxChunk) {
      const size_t length = std::min(kMaxChunk, input.size() - at);
      if (!run_.pattern.Matches(input.data() + at, length, received + at)) {
        stats_.errors["echo.mismatch"] += static_cast<int64_t>(
            run_.pattern.CountMismatchedMessages(input.data() + at, length, received + at));
      }
    }
    received += input.size();
    received_bytes_.store(received, std::memory_order_relaxed);
    return received;
  }

  const EchoRun& run_;
  const uint64_t size_;
  const uint64_t budget_;
  ClientStats& stats_;
  const RunSignals& signals_;
  alignas(64) std::atomic<uint64_t> sent_{0};            // the sending side's
  alignas(64) std::atomic<uint64_t> received_bytes_{0};  // the receiving side's
  std::atomic<bool> sending_done_{false};
};

// Stream mode: writes without waiting, as fast as the socket takes it or at a fixed rate.
class EchoStreamSession final : public EchoSessionBase {
 public:
  EchoStreamSession(const EchoRun& run, const SessionContext& context)
      : EchoSessionBase(run, context),
        batch_(static_cast<uint64_t>(run.options.batch)),
        paced_(run.options.rate > 0),
        rate_offset_nanos_(
            paced_ ? static_cast<int64_t>(run.rate_interval_nanos * context.slot / run.connections)
                   : 0) {
    if (paced_) {
      send_times_.reset(new std::atomic<int64_t>[kMaxRateInFlight]);
      corrected_ = &stats_.latency.at("rtt_corrected");
      raw_ = &stats_.latency.at("rtt_raw");
    } else {
      sampled_ = &stats_.latency.at("rtt_sampled");
    }
  }

  bool duplex() const override { return true; }

  void OnStart(const ConnectionInfo& connection) override {
    // Connections take turns, so that together they send evenly rather than in bursts.
    rate_start_nanos_ = MonotonicNanos() + rate_offset_nanos_;
    const int coalesce = ReadCoalesceBytes(run_.options);
    coalescing_ = coalesce > 1 && SetReceiveLowWatermark(connection.fd, coalesce).ok();
  }

  // The hot path of the write-up's load: one call per message written, so the paced and sampling
  // branches stay out of line and this one stays a few instructions.
  Output NextOutput() override {
    // The previous chunk has been written.
    sent_.store(written_, std::memory_order_release);
    if (written_ >= budget_ || signals_.stop_sending.load(std::memory_order_relaxed)) {
      return {.sending_finished = true};
    }
    if (paced_) return NextPacedOutput();
    if (written_ >= next_sample_) Sample();
    const uint64_t n = std::min(batch_, budget_ - written_);
    written_ += n;
    return {.data = absl::string_view(run_.batch_buffer.data(), n * size_)};
  }

  void OnSendingFinished(int fd) override {
    sending_done_.store(true, std::memory_order_release);
    // The tail of the echoes may be shorter than the watermark: wake on anything from now on.
    if (coalescing_) SetReceiveLowWatermark(fd, 1).IgnoreError();
  }

  InputResult OnInput(absl::string_view input) override {
    const uint64_t received = AcceptEcho(input);
    const uint64_t echoed = received / size_;
    const bool record = signals_.measuring.load(std::memory_order_relaxed);
    if (paced_) {
      const int64_t now = MonotonicNanos();
      for (; timed_ < echoed; ++timed_) {
        if (!record) continue;
        corrected_->Record(
            now - rate_start_nanos_ -
            static_cast<int64_t>(static_cast<double>(timed_) * run_.rate_interval_nanos));
        raw_->Record(now - send_times_[timed_ % kMaxRateInFlight].load(std::memory_order_relaxed));
      }
    } else if (samples_.Pending()) {
      samples_.Collect(echoed, MonotonicNanos(), record, *sampled_);
    }
    if (received > sent_.load(std::memory_order_acquire) * size_ && sending_done_.load()) {
      return {.consumed = input.size(),
              .error = "echo.extra_bytes",
              .error_text = "the server sent more bytes than it was sent"};
    }
    return {.consumed = input.size(), .finished = IsFinished()};
  }

  std::string OnPeerClosed() override { return IsFinished() ? "" : "read.eof"; }

  bool IsFinished() const override {
    return sending_done_.load(std::memory_order_acquire) &&
           received_bytes_.load(std::memory_order_relaxed) >=
               sent_.load(std::memory_order_acquire) * size_;
  }

 private:
  // One message in kStreamSampleEvery is timed: the writer reads the clock this rarely.
  [[gnu::noinline]] void Sample() {
    samples_.Push(written_, MonotonicNanos());
    next_sample_ = written_ + kStreamSampleEvery;
  }

  // Rate mode: message i is due at rate_start + i * interval, whatever happened to the ones before.
  [[gnu::noinline]] Output NextPacedOutput() {
    const int64_t now = MonotonicNanos();
    const double interval = run_.rate_interval_nanos;
    const uint64_t due = std::min<uint64_t>(
        budget_,
        now < rate_start_nanos_
            ? 0
            : static_cast<uint64_t>(static_cast<double>(now - rate_start_nanos_) / interval) + 1);
    if (due <= written_) {
      return {.not_before = rate_start_nanos_ +
                            static_cast<int64_t>(static_cast<double>(written_) * interval)};
    }
    const uint64_t echoed = messages_received();
    if (written_ - echoed >= kMaxRateInFlight) {
      ++stats_.write_stalls;
      return {.not_before = now + 100 * kNanosPerMicro};
    }
    const uint64_t n = std::min(
        {batch_, budget_ - written_, due - written_, kMaxRateInFlight - (written_ - echoed)});
    for (uint64_t i = written_; i < written_ + n; ++i) {
      send_times_[i % kMaxRateInFlight].store(now, std::memory_order_relaxed);
    }
    written_ += n;
    return {.data = absl::string_view(run_.batch_buffer.data(), n * size_)};
  }

  const uint64_t batch_;
  const bool paced_;
  const int64_t rate_offset_nanos_;
  // The sending side's own.
  uint64_t written_ = 0;  // messages handed out (the chunk in flight included)
  uint64_t next_sample_ = kStreamSampleEvery;
  int64_t rate_start_nanos_ = 0;  // rate mode: message i is due at rate_start + i * interval
  bool coalescing_ = false;
  // Shared by the two sides.
  SampleRing samples_;
  std::unique_ptr<std::atomic<int64_t>[]> send_times_;  // rate: indexed by message % in-flight cap
  // The receiving side's own.
  uint64_t timed_ = 0;
  LatencyHistogram* sampled_ = nullptr;
  LatencyHistogram* corrected_ = nullptr;
  LatencyHistogram* raw_ = nullptr;
};

// Pipeline mode (ping-pong when pipeline == 1): `pipeline` messages in flight; every round trip is
// timed, and as many new messages go out, in one write, as came back.
class EchoPipelineSession final : public EchoSessionBase {
 public:
  EchoPipelineSession(const EchoRun& run, const SessionContext& context)
      : EchoSessionBase(run, context),
        window_(static_cast<uint64_t>(run.options.pipeline)),
        send_times_(new int64_t[window_]),
        rtt_(stats_.latency.at("rtt")) {}

  Output NextOutput() override {
    const uint64_t sent = sent_.load(std::memory_order_relaxed);
    if (sent >= budget_ || signals_.stop_sending.load(std::memory_order_relaxed)) {
      sending_done_.store(true);
      return {.sending_finished = true};
    }
    const uint64_t n = std::min(completed_ + window_ - sent, budget_ - sent);
    if (n == 0) return {};
    const int64_t now = MonotonicNanos();
    for (uint64_t i = sent; i < sent + n; ++i) send_times_[i % window_] = now;
    sent_.store(sent + n, std::memory_order_relaxed);
    return {.data = absl::string_view(run_.batch_buffer.data(), n * size_)};
  }

  InputResult OnInput(absl::string_view input) override {
    const uint64_t received = AcceptEcho(input);
    const uint64_t sent = sent_.load(std::memory_order_relaxed);
    if (received > sent * size_) {
      return {.consumed = input.size(),
              .error = "echo.extra_bytes",
              .error_text = "the server sent more bytes than it was sent"};
    }
    const uint64_t echoed = received / size_;
    if (echoed > completed_) {
      const int64_t now = MonotonicNanos();
      if (signals_.measuring.load(std::memory_order_relaxed)) {
        for (uint64_t i = completed_; i < echoed; ++i) rtt_.Record(now - send_times_[i % window_]);
      }
      completed_ = echoed;
    }
    return {.consumed = input.size(), .finished = IsFinished()};
  }

  std::string OnPeerClosed() override { return IsFinished() ? "" : "read.eof"; }

  bool IsFinished() const override {
    return sending_done_.load(std::memory_order_relaxed) &&
           completed_ == sent_.load(std::memory_order_relaxed);
  }

 private:
  const uint64_t window_;
  std::unique_ptr<int64_t[]> send_times_;
  LatencyHistogram& rtt_;
  uint64_t completed_ = 0;
};

}  // namespace

EchoRun::EchoRun(const LoadOptions& o, int n)
    : options(o),
      connections(n),
      message(BuildEchoMessage(o.size)),
      batch_buffer(RepeatMessage(message, std::max(o.batch, o.pipeline))),
      pattern(message, kMaxChunk),
      rate_interval_nanos(o.rate > 0 ? 1e9 * n / o.rate : 0) {}

uint64_t EchoRun::Budget(int index) const {
  if (options.messages <= 0) return UINT64_MAX;
  return static_cast<uint64_t>(options.messages / connections +
                               (index < options.messages % connections ? 1 : 0));
}

void AddLatencyHistograms(const LoadOptions& options, ClientStats& stats) {
  if (options.mode == LoadMode::kPipeline) {
    stats.latency["rtt"];
  } else if (options.rate > 0) {
    stats.latency["rtt_corrected"];
    stats.latency["rtt_raw"];
  } else {
    stats.latency["rtt_sampled"];
  }
}

std::unique_ptr<ClientSession> MakeEchoSession(const EchoRun& run, const SessionContext& context) {
  AddLatencyHistograms(run.options, *context.stats);
  if (run.options.mode == LoadMode::kPipeline) {
    return std::make_unique<EchoPipelineSession>(run, context);
  }
  return std::make_unique<EchoStreamSession>(run, context);
}

}  // namespace echo
}  // namespace netbench
