#include "echo/echo_handler.h"

#include <memory>

namespace netbench {

HandlerResult EchoHandler::OnData(absl::string_view input, ByteBuffer& output) {
  output.Append(input);
  HandlerResult result;
  result.consumed = input.size();
  return result;
}

HandlerFactory EchoHandlerFactory() {
  return [] { return std::make_unique<EchoHandler>(); };
}

}  // namespace netbench
