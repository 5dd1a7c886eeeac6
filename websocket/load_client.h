// The WebSocket load generator behind //websocket:client: N connections each send M messages,
// either as fast as they can without waiting (sink mode, the write-up's "websocket_client CLIENTS
// REQUESTS") or one (or --pipeline) at a time waiting for each echo (echo mode, with round-trip
// latency).
//
//   LoadClientOptions options;
//   options.url = "ws://127.0.0.1:8080/echo";
//   options.clients = 4;
//   options.messages = 100000;
//   absl::StatusOr<LoadClientResult> result = RunLoadClient(options);
//   // result->messages_sent / NanosToSeconds(result->send_nanos): the write-up's rate
//
// Connections are opened and upgraded first; the clock starts when all are ready and stops when the
// last write of the last message returns, as the write-up timed it. Each message is one frame in
// one write by default (--pipeline=K puts K frames in one write in sink mode, K messages in flight
// in echo mode), masked with a fresh key from a buffered RAND_bytes source; the send path allocates
// nothing per message. Echoes are compared with what was sent. Every loop is bounded by the message
// count and by `timeout`.
#ifndef NETBENCH_WEBSOCKET_LOAD_CLIENT_H_
#define NETBENCH_WEBSOCKET_LOAD_CLIENT_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "common/histogram.h"

namespace netbench::websocket {

struct WebSocketUrl {
  bool tls = false;
  std::string host;  // without brackets
  int port = 0;
  std::string path = "/";
  std::string HostHeader() const;  // "host:port", IPv6 bracketed
};
// ws://host[:port][/path] or wss://...; default ports 80 and 443.
absl::StatusOr<WebSocketUrl> ParseWebSocketUrl(absl::string_view url);

enum class ClientMode { kSink, kEcho };
enum class ClientModel { kThreads, kLoop };

struct LoadClientOptions {
  std::string url = "ws://127.0.0.1:8080/echo";
  int clients = 1;
  int64_t messages = 100000;  // per connection
  size_t size = 13;           // payload bytes: "hello, world!" repeated or cut to this size
  bool binary = false;        // text frames by default, as the write-up sent
  ClientMode mode = ClientMode::kSink;
  int pipeline = 1;
  ClientModel model = ClientModel::kThreads;
  int threads = 1;  // event loops for kLoop
  int64_t timeout_nanos = 60 * kNanosPerSecond;
  bool progress = false;  // a line on stderr every second
  // wss: trust this CA file (PEM) instead of the system bundle, or verify nothing.
  std::string ca_file;
  bool insecure = false;
};

struct LoadClientResult {
  int64_t messages_sent = 0;
  int64_t messages_received = 0;  // echoes (or anything the server sent as messages)
  int64_t mismatches = 0;         // echoes that differ from what was sent
  int connections_ok = 0;         // finished with a clean close handshake
  int connections_failed = 0;
  int64_t send_nanos = 0;   // from the start to the last write of the last message
  int64_t total_nanos = 0;  // from the start until every connection finished
  bool timed_out = false;
  LatencyHistogram latency;               // echo mode: round trips, ns
  std::map<std::string, int64_t> errors;  // by cause
  std::string first_error;
};

absl::StatusOr<LoadClientResult> RunLoadClient(const LoadClientOptions& options);

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_LOAD_CLIENT_H_
