// The echo protocol: every byte a client sends comes back to it, in order, unchanged. Run on any of
// the server models of common/server.h:
//
//   ServerOptions options;
//   options.port = 0;
//   absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(options, EchoHandlerFactory());
#ifndef NETBENCH_ECHO_ECHO_HANDLER_H_
#define NETBENCH_ECHO_ECHO_HANDLER_H_

#include "absl/strings/string_view.h"
#include "common/byte_buffer.h"
#include "common/connection_handler.h"

namespace netbench {

class EchoHandler final : public ConnectionHandler {
 public:
  // Hands back everything received so far. The copy into `output` is the only one: the model reads
  // straight into its input buffer and writes straight from `output`, whose storage is reused, so
  // the steady state allocates nothing. Backpressure (a peer that stops reading) is the model's.
  HandlerResult OnData(absl::string_view input, ByteBuffer& output) override;
};

HandlerFactory EchoHandlerFactory();

}  // namespace netbench

#endif  // NETBENCH_ECHO_ECHO_HANDLER_H_
