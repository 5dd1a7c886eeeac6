#include "websocket/client_session.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/byte_buffer.h"
#include "common/clock.h"
#include "websocket/close_frame.h"
#include "websocket/frame_writer.h"
#include "websocket/handshake.h"
#include "websocket/mask.h"
#include "websocket/mask_key_source.h"
#include "websocket/message_reader.h"

namespace netbench::websocket {
namespace {

constexpr absl::string_view kHello = "hello, world!";

class WebSocketClientSession final : public ClientSession {
 public:
  WebSocketClientSession(const WebSocketRun& run, const SessionContext& context)
      : run_(run),
        stats_(*context.stats),
        signals_(*context.signals),
        reader_({.role = Role::kClient, .assemble = true}),
        send_times_(run.mode == ClientMode::kEcho ? run.pipeline : 0),
        rtt_(run.mode == ClientMode::kEcho ? &stats_.latency["rtt"] : nullptr) {
    out_.Reserve(4096);
  }

  // The opening handshake (RFC 6455 section 4.1).
  std::string OpeningRequest() override {
    key_ = GenerateHandshakeKey();
    return BuildHandshakeRequest(run_.url.HostHeader(), run_.url.target, key_);
  }

  OpeningResult OnOpeningData(absl::string_view input) override {
    OpeningResult result;
    absl::Status error;
    const int n = ParseHandshakeResponse(input, key_, &error);
    if (n == kHandshakeError) {
      result.error = absl::StrCat("the upgrade was refused: ", error.message());
    } else if (n > 0) {
      result.consumed = static_cast<size_t>(n);
      result.open = true;
    }
    return result;
  }

  bool duplex() const override { return run_.mode == ClientMode::kSink; }

  // The sending side: control replies first, then the next frames, then the close frame.
  Output NextOutput() override {
    out_.Clear();
    AppendControlReplies();
    if (close_sent_.load(std::memory_order_relaxed)) {
      return {.data = out_.view(), .sending_finished = true};
    }
    const int64_t sent = sent_.load(std::memory_order_relaxed);
    if (sent < run_.messages) {
      const int64_t budget =
          run_.mode == ClientMode::kSink ? run_.pipeline : run_.pipeline - in_flight_;
      const int64_t n = std::min<int64_t>(budget, run_.messages - sent);
      if (n > 0) AppendMessages(n);
    } else if (run_.mode == ClientMode::kSink ||
               received_.load(std::memory_order_relaxed) == run_.messages) {
      AppendClose(kCloseNormal, "done");
      return {.data = out_.view(), .sending_finished = true};
    }
    return {.data = out_.view()};
  }

  // The receiving side.
  InputResult OnInput(absl::string_view input) override {
    InputResult result;
    size_t pos = 0;
    while (true) {
      WebSocketEvent event;
      pos += reader_.Read(input.substr(pos), &event);
      if (event.type == EventType::kNone) break;
      switch (event.type) {
        case EventType::kMessage:
          OnMessage(event.payload);
          break;
        case EventType::kPing: {
          std::lock_guard<std::mutex> lock(control_mutex_);
          pongs_.emplace_back(event.payload);
          control_pending_.store(true, std::memory_order_release);
          break;
        }
        case EventType::kClose:
          close_received_.store(true, std::memory_order_release);
          if (!WorkDone()) {
            result.error = absl::StrCat("server_close_", event.close_code);
            result.error_text =
                absl::StrCat("the server closed with ", event.close_code, " ",
                             std::string(event.payload), " before the work was done");
          } else if (!close_sent_.load(std::memory_order_acquire)) {
            std::lock_guard<std::mutex> lock(control_mutex_);
            close_reply_ =
                event.close_code == kCloseNoStatus ? uint16_t{kCloseNormal} : event.close_code;
            control_pending_.store(true, std::memory_order_release);
          }
          break;
        case EventType::kError:
          result.error = absl::StrCat("protocol_", event.close_code);
          result.error_text =
              absl::StrCat("protocol error from the server: ", std::string(event.payload));
          break;
        case EventType::kNone:
        case EventType::kPong:
          break;
      }
      if (!result.error.empty()) break;
    }
    result.consumed = std::min(pos, input.size());
    result.finished = result.error.empty() && IsFinished();
    return result;
  }

  std::string OnPeerClosed() override {
    return close_received_.load(std::memory_order_acquire) ? "" : "eof";
  }

  bool IsFinished() const override {
    return close_received_.load(std::memory_order_acquire) &&
           close_sent_.load(std::memory_order_acquire);
  }

  uint64_t messages_sent() const override { return sent_.load(std::memory_order_relaxed); }
  uint64_t messages_received() const override { return received_.load(std::memory_order_relaxed); }

 private:
  bool WorkDone() const {
    return sent_.load(std::memory_order_relaxed) == run_.messages &&
           (run_.mode == ClientMode::kSink ||
            received_.load(std::memory_order_relaxed) == run_.messages);
  }

  void AppendMessages(int64_t n) {
    const absl::string_view payload = run_.payload;
    const Opcode opcode = run_.binary ? Opcode::kBinary : Opcode::kText;
    char* p = out_.WritableSpace(n * (kMaxFrameHeaderSize + payload.size()));
    size_t used = 0;
    const int64_t now = run_.mode == ClientMode::kEcho ? MonotonicNanos() : 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t key = keys_.Next();
      const size_t h = WriteFrameHeader({.fin = true,
                                         .masked = true,
                                         .opcode = opcode,
                                         .mask_key = key,
                                         .payload_length = payload.size()},
                                        p + used);
      MaskCopy(p + used + h, payload.data(), payload.size(), key);
      used += h + payload.size();
      if (run_.mode == ClientMode::kEcho) {
        send_times_[send_tail_] = now;
        send_tail_ = send_tail_ + 1 == send_times_.size() ? 0 : send_tail_ + 1;
      }
    }
    out_.CommitWrite(used);
    in_flight_ += n;
    sent_.store(sent_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  void AppendClose(uint16_t code, absl::string_view reason) {
    char payload[kMaxControlPayload];
    const size_t n = WriteClosePayload(code, reason, payload);
    AppendFrame(out_, Opcode::kClose, absl::string_view(payload, n), true, true, keys_.Next());
    close_sent_.store(true, std::memory_order_release);
  }

  // Pongs and a close reply the receiving side asked for; the mask keys are the sending side's.
  void AppendControlReplies() {
    if (!control_pending_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(control_mutex_);
    control_pending_.store(false, std::memory_order_relaxed);
    for (const std::string& payload : pongs_) {
      AppendFrame(out_, Opcode::kPong, payload, true, true, keys_.Next());
    }
    pongs_.clear();
    if (close_reply_ != 0 && !close_sent_.load(std::memory_order_relaxed)) {
      AppendClose(close_reply_, "");
    }
  }

  void OnMessage(absl::string_view payload) {
    received_.store(received_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (run_.mode != ClientMode::kEcho) return;
    if (payload != run_.payload) ++stats_.errors["mismatched_echo"];
    if (in_flight_ == 0) return;
    --in_flight_;
    if (signals_.measuring.load(std::memory_order_relaxed)) {
      rtt_->Record(MonotonicNanos() - send_times_[send_head_]);
    }
    send_head_ = send_head_ + 1 == send_times_.size() ? 0 : send_head_ + 1;
  }

  const WebSocketRun& run_;
  ClientStats& stats_;
  const RunSignals& signals_;
  std::string key_;
  // The sending side's.
  ByteBuffer out_;
  MaskKeySource keys_;
  // The receiving side's.
  MessageReader reader_;
  // Echo mode only, where one thread drives both sides: send times of the messages in flight.
  std::vector<int64_t> send_times_;
  size_t send_head_ = 0;
  size_t send_tail_ = 0;
  int64_t in_flight_ = 0;
  LatencyHistogram* rtt_;
  // Shared by the two sides.
  alignas(64) std::atomic<int64_t> sent_{0};
  alignas(64) std::atomic<int64_t> received_{0};
  std::atomic<bool> close_sent_{false};
  std::atomic<bool> close_received_{false};
  std::atomic<bool> control_pending_{false};
  std::mutex control_mutex_;
  std::vector<std::string> pongs_;  // guarded by control_mutex_
  uint16_t close_reply_ = 0;        // guarded by control_mutex_; 0: none asked for
};

}  // namespace

std::string MakeWebSocketPayload(size_t size) {
  std::string payload;
  payload.reserve(size);
  while (payload.size() < size) payload.append(kHello.data(), kHello.size());
  payload.resize(size);
  return payload;
}

std::unique_ptr<ClientSession> MakeWebSocketClientSession(const WebSocketRun& run,
                                                          const SessionContext& context) {
  return std::make_unique<WebSocketClientSession>(run, context);
}

}  // namespace netbench::websocket
