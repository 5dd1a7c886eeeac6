#include "websocket/server_handler.h"

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "websocket/close_frame.h"
#include "websocket/frame_writer.h"
#include "websocket/handshake.h"

namespace netbench::websocket {

absl::StatusOr<WebSocketServerMode> ParseWebSocketServerMode(absl::string_view name) {
  if (name == "echo") return WebSocketServerMode::kEcho;
  if (name == "sink") return WebSocketServerMode::kSink;
  return absl::InvalidArgumentError(absl::StrCat("unknown mode '", name, "' (use echo or sink)"));
}

const char* WebSocketServerModeName(WebSocketServerMode mode) {
  return mode == WebSocketServerMode::kEcho ? "echo" : "sink";
}

WebSocketHandler::WebSocketHandler(const WebSocketServerOptions& options,
                                   WebSocketServerCounters* counters)
    : options_(options),
      counters_(counters),
      reader_({.role = Role::kServer,
               .max_message_size = options.max_message_size,
               .assemble = options.mode == WebSocketServerMode::kEcho}) {}

WebSocketHandler::~WebSocketHandler() { FlushCounts(); }

void WebSocketHandler::FlushCounts() {
  if (counters_ == nullptr) return;
  if (messages_ > 0) {
    counters_->messages.fetch_add(messages_, std::memory_order_relaxed);
    counters_->payload_bytes.fetch_add(payload_bytes_, std::memory_order_relaxed);
  }
  if (pings_ > 0) counters_->pings.fetch_add(pings_, std::memory_order_relaxed);
  messages_ = payload_bytes_ = pings_ = 0;
}

size_t WebSocketHandler::Handshake(absl::string_view input, ByteBuffer& output) {
  HandshakeRequest request;
  int status = 0;
  const int n = ParseHandshakeRequest(input, &request, &status);
  if (n == kHandshakeNeedMore) return 0;
  if (n == kHandshakeError || request.path != options_.path) {
    if (n != kHandshakeError) status = 404;
    AppendHandshakeRejection(status,
                             status == 426 ? "this server speaks WebSocket version 13"
                             : status == 404
                                 ? absl::StrCat("no WebSocket endpoint here; try ", options_.path)
                                 : "not a valid WebSocket upgrade request",
                             output);
    if (counters_ != nullptr)
      counters_->rejected_handshakes.fetch_add(1, std::memory_order_relaxed);
    state_ = State::kClosed;
    return input.size();
  }
  AppendHandshakeResponse(request.key, output);
  // An echoed message is reassembled in full before it goes back: that is input the connection
  // holds, within the server's input bound (a sink keeps no message bytes).
  if (options_.mode == WebSocketServerMode::kEcho && input_bound() < options_.max_message_size) {
    reader_.set_max_message_size(input_bound());
  }
  if (counters_ != nullptr) counters_->handshakes.fetch_add(1, std::memory_order_relaxed);
  state_ = State::kOpen;
  return static_cast<size_t>(n);
}

void WebSocketHandler::SendClose(uint16_t code, absl::string_view reason, ByteBuffer& output) {
  char payload[kMaxControlPayload];
  const size_t n = WriteClosePayload(code, reason, payload);
  AppendFrame(output, Opcode::kClose, absl::string_view(payload, n));
  state_ = State::kClosed;
}

HandlerResult WebSocketHandler::OnData(absl::string_view input, ByteBuffer& output) {
  size_t pos = 0;
  if (state_ == State::kHandshake) {
    handshake_begun_ = handshake_begun_ || !input.empty();
    pos = Handshake(input, output);
    if (state_ == State::kHandshake) return {.consumed = 0};
    if (state_ == State::kClosed) return {.consumed = input.size(), .close = true};
  }
  if (state_ == State::kClosed) return {.consumed = input.size(), .close = true};

  const bool echo = options_.mode == WebSocketServerMode::kEcho;
  bool close = false;
  while (!close) {
    WebSocketEvent event;
    pos += reader_.Read(input.substr(pos), &event);
    switch (event.type) {
      case EventType::kNone:
        break;
      case EventType::kMessage:
        ++messages_;
        payload_bytes_ += event.size;
        if (echo) AppendFrame(output, event.opcode, event.payload);
        continue;
      case EventType::kPing:
        ++pings_;
        AppendFrame(output, Opcode::kPong, event.payload);
        continue;
      case EventType::kPong:
        continue;
      case EventType::kClose:
        // Echo the peer's code (none when it sent none), then close: the server closes TCP first.
        SendClose(event.close_code, "", output);
        if (counters_ != nullptr) counters_->closes.fetch_add(1, std::memory_order_relaxed);
        close = true;
        continue;
      case EventType::kError:
        SendClose(event.close_code, event.payload, output);
        if (counters_ != nullptr)
          counters_->protocol_errors.fetch_add(1, std::memory_order_relaxed);
        close = true;
        continue;
    }
    break;
  }
  // Counts reach the totals before the close reply goes out, so a peer that saw the reply sees
  // them.
  if (close || messages_ >= 4096) FlushCounts();
  if (close) return {.consumed = input.size(), .close = true};
  return {.consumed = pos};
}

void WebSocketHandler::OnPeerClosed(ByteBuffer& /*output*/) {
  // EOF without a close frame (1006 on our side): nothing can be sent that the peer would read.
  state_ = State::kClosed;
}

HandlerFactory WebSocketHandlerFactory(const WebSocketServerOptions& options,
                                       WebSocketServerCounters* counters) {
  auto shared = std::make_shared<const WebSocketServerOptions>(options);
  return [shared, counters]() -> std::unique_ptr<ConnectionHandler> {
    return std::make_unique<WebSocketHandler>(*shared, counters);
  };
}

}  // namespace netbench::websocket
