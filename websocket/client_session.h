// The WebSocket load generator's protocol part (common/client_session.h): the opening handshake,
// then `messages` masked frames and the close handshake, on any model the driver
// (common/client_driver.h) runs.
//
//   sink  frames go out without waiting (a duplex session), `pipeline` per write; the write-up's
//         "websocket_client CLIENTS REQUESTS"
//   echo  `pipeline` messages in flight, each echo compared with what was sent and its round trip
//         timed into the "rtt" histogram
//
// Each frame is masked with a fresh key from a buffered RAND_bytes source while it is copied into
// the send buffer; the send path allocates nothing per message. Pings are answered and a close from
// the server is answered; both replies go out on the sending side, so a duplex session's two
// threads never write at once.
#ifndef NETBENCH_WEBSOCKET_CLIENT_SESSION_H_
#define NETBENCH_WEBSOCKET_CLIENT_SESSION_H_

#include <memory>
#include <string>

#include "common/client_driver.h"
#include "common/client_session.h"
#include "common/url.h"

namespace netbench::websocket {

enum class ClientMode { kSink, kEcho };

// What every session of a run shares, read-only.
struct WebSocketRun {
  Url url;
  ClientMode mode = ClientMode::kSink;
  int64_t messages = 0;  // per connection
  int pipeline = 1;
  bool binary = false;
  std::string payload;
};

// "hello, world!" repeated or cut to `size` bytes, the write-up's message.
std::string MakeWebSocketPayload(size_t size);

std::unique_ptr<ClientSession> MakeWebSocketClientSession(const WebSocketRun& run,
                                                          const SessionContext& context);

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_CLIENT_SESSION_H_
