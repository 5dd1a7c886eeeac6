// The WebSocket server's protocol side, one handler per connection on any of the shared server
// models (common/server.h): the opening handshake, then messages echoed back (--mode=echo) or read
// and dropped (--mode=sink, as the write-up's server did), pings answered, the close handshake
// completed.
//
//   WebSocketServerCounters counters;
//   absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(
//       {.port = 0, .model = ServerModel::kEpoll},
//       WebSocketHandlerFactory({.mode = WebSocketServerMode::kSink}, &counters));
//
// A misbehaving peer gets its own connection closed with the right status and nothing else: an HTTP
// 400, 404 or 426 for a bad handshake, a close frame with 1002, 1007 or 1009 for a bad frame or
// message. Memory per connection is bounded: the handshake by kMaxHandshakeSize, messages by
// max_message_size and, in echo mode, by the server model's input bound (a message that would be
// reassembled past either is refused with 1009 "message too big"; sink mode keeps no message bytes
// at all), and replies by the server model's backpressure.
#ifndef NETBENCH_WEBSOCKET_SERVER_HANDLER_H_
#define NETBENCH_WEBSOCKET_SERVER_HANDLER_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/connection_handler.h"
#include "websocket/frame.h"
#include "websocket/message_reader.h"

namespace netbench::websocket {

enum class WebSocketServerMode { kEcho, kSink };

absl::StatusOr<WebSocketServerMode> ParseWebSocketServerMode(absl::string_view name);
const char* WebSocketServerModeName(WebSocketServerMode mode);

struct WebSocketServerOptions {
  std::string path = "/echo";
  WebSocketServerMode mode = WebSocketServerMode::kEcho;
  uint64_t max_message_size = kDefaultMaxMessageSize;
};

// Totals over all connections, added once per OnData call (not per message) to keep the hot path
// free of shared writes.
struct WebSocketServerCounters {
  std::atomic<uint64_t> handshakes{0};
  std::atomic<uint64_t> rejected_handshakes{0};
  std::atomic<uint64_t> messages{0};
  std::atomic<uint64_t> payload_bytes{0};
  std::atomic<uint64_t> pings{0};
  std::atomic<uint64_t> closes{0};           // close frames received from peers
  std::atomic<uint64_t> protocol_errors{0};  // connections closed with 1002/1007/1009
};

class WebSocketHandler : public ConnectionHandler {
 public:
  // `counters` may be null; when set it must outlive the handler.
  WebSocketHandler(const WebSocketServerOptions& options, WebSocketServerCounters* counters);
  ~WebSocketHandler() override;

  HandlerResult OnData(absl::string_view input, ByteBuffer& output) override;
  bool AwaitingHead() const override { return state_ == State::kHandshake && handshake_begun_; }
  void OnPeerClosed(ByteBuffer& output) override;

 private:
  enum class State { kHandshake, kOpen, kClosed };

  size_t Handshake(absl::string_view input, ByteBuffer& output);
  void SendClose(uint16_t code, absl::string_view reason, ByteBuffer& output);
  void FlushCounts();

  const WebSocketServerOptions options_;
  WebSocketServerCounters* counters_;
  State state_ = State::kHandshake;
  bool handshake_begun_ = false;  // some of the handshake has arrived
  MessageReader reader_;
  uint64_t messages_ = 0;  // not yet added to counters_
  uint64_t payload_bytes_ = 0;
  uint64_t pings_ = 0;
};

// The factory for Server::Start. `options` is copied; `counters` may be null.
HandlerFactory WebSocketHandlerFactory(const WebSocketServerOptions& options,
                                       WebSocketServerCounters* counters);

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_SERVER_HANDLER_H_
