// The protocol side of a server connection, independent of the concurrency model that drives it.
//
// A server model (threads, poll, epoll: see server.h) owns the socket, reads bytes, and hands everything
// received but not yet consumed to the handler; the handler consumes a prefix and appends its replies to
// `output`. The model writes `output` out, finishing partial writes, and stops reading from the connection
// while `output` holds more than ServerOptions::max_pending_output bytes: a peer that does not read cannot
// make the server buffer without limit.
//
//   class EchoHandler : public ConnectionHandler {
//     HandlerResult OnData(absl::string_view input, ByteBuffer& output) override {
//       output.Append(input);
//       return {.consumed = input.size()};
//     }
//   };
//
// One handler per connection, called from one thread at a time; it needs no locking of its own.
#ifndef NETBENCH_COMMON_CONNECTION_HANDLER_H_
#define NETBENCH_COMMON_CONNECTION_HANDLER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "absl/strings/string_view.h"
#include "common/byte_buffer.h"

namespace netbench {

struct HandlerResult {
  // Bytes of `input` used; the rest is offered again, with more, on the next call.
  size_t consumed = 0;
  // Close the connection once `output` has been written (a protocol error reply, a close handshake).
  bool close = false;
  // Hold `output` back until this MonotonicNanos() time: emulates a remote peer's latency without blocking
  // the event loop. 0 sends at once.
  int64_t send_not_before_nanos = 0;
};

class ConnectionHandler {
 public:
  virtual ~ConnectionHandler() = default;

  // Called when bytes arrive. `input` holds every received byte not yet consumed.
  virtual HandlerResult OnData(absl::string_view input, ByteBuffer& output) = 0;

  // The peer half-closed its side (EOF). The handler may append final bytes; the connection is closed once
  // they are written.
  virtual void OnPeerClosed(ByteBuffer& /*output*/) {}
};

using HandlerFactory = std::function<std::unique_ptr<ConnectionHandler>()>;

}  // namespace netbench

#endif  // NETBENCH_COMMON_CONNECTION_HANDLER_H_
