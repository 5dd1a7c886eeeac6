// A server's connection handler that sends every byte back, for tests of the server and client
// models in common/ (echo/'s EchoHandler is the echo program's, which common/ cannot depend on).
//
//   Server::Start({.port = 0, .model = ServerModel::kEpoll},
//                 [] { return std::make_unique<EchoBack>(); });
#ifndef NETBENCH_TESTING_ECHO_BACK_H_
#define NETBENCH_TESTING_ECHO_BACK_H_

#include "absl/strings/string_view.h"
#include "common/byte_buffer.h"
#include "common/connection_handler.h"

namespace netbench {

class EchoBack final : public ConnectionHandler {
 public:
  HandlerResult OnData(absl::string_view input, ByteBuffer& output) override {
    output.Append(input);
    return {.consumed = input.size()};
  }
};

}  // namespace netbench

#endif  // NETBENCH_TESTING_ECHO_BACK_H_
