// The protocol side of a server connection, independent of the concurrency model that drives it.
//
// A server model (threads, poll, epoll: see server.h) owns the socket, reads bytes, and hands
// everything received but not yet consumed to the handler; the handler consumes a prefix and
// appends its replies to `output`. The model writes `output` out, finishing partial writes, and
// stops reading from the connection while `output` holds more than
// ServerOptions::max_pending_output bytes or its unconsumed input reaches max_pending_input: a peer
// that does not read cannot make the server buffer without limit.
//
// A reply can be far larger than its request (a 40-byte GET, a 25 KB page), so a handler that
// answers several requests per call stops once OutputFull(output) and leaves the rest unconsumed:
// the model offers that input again, without reading, once the output has drained (pipelined
// requests wait as input, which is bounded, instead of as output, which would not be).
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
  // Close the connection once `output` has been written (a protocol error reply, a close
  // handshake).
  bool close = false;
  // Hold `output` back until this MonotonicNanos() time: emulates a remote peer's latency without
  // blocking the event loop. 0 sends at once.
  int64_t send_not_before_nanos = 0;
};

class ConnectionHandler {
 public:
  virtual ~ConnectionHandler() = default;

  // Called when bytes arrive. `input` holds every received byte not yet consumed.
  virtual HandlerResult OnData(absl::string_view input, ByteBuffer& output) = 0;

  // The peer half-closed its side (EOF). The handler may append final bytes; the connection is
  // closed once they are written.
  virtual void OnPeerClosed(ByteBuffer& /*output*/) {}

  // True while a request head or handshake has begun to arrive and is not whole: the server closes
  // a connection that stays so for ServerOptions::head_timeout_nanos. Asked after each OnData.
  virtual bool AwaitingHead() const { return false; }

  // Set by the server model before the first OnData (ServerOptions::max_pending_output and
  // max_pending_input); unbounded for a handler driven by hand.
  void set_output_bound(size_t bytes) { output_bound_ = bytes; }
  void set_input_bound(size_t bytes) { input_bound_ = bytes; }

 protected:
  // True once `output` is over the bound: answer no more requests in this call.
  bool OutputFull(const ByteBuffer& output) const { return output.size() > output_bound_; }
  // What the connection may hold of its peer's input. A handler that keeps input it consumed (a
  // message being reassembled) keeps it within this bound.
  size_t input_bound() const { return input_bound_; }

 private:
  size_t output_bound_ = SIZE_MAX;
  size_t input_bound_ = SIZE_MAX;
};

using HandlerFactory = std::function<std::unique_ptr<ConnectionHandler>()>;

}  // namespace netbench

#endif  // NETBENCH_COMMON_CONNECTION_HANDLER_H_
