// The WebSocket load generator behind //websocket:client: N connections each send M messages,
// either as fast as they can without waiting (sink mode, the write-up's "websocket_client CLIENTS
// REQUESTS") or one (or --pipeline) at a time waiting for each echo (echo mode, with round-trip
// latency). The protocol is client_session.h; the driver (common/client_driver.h) runs it on the
// threads, poll or epoll model.
//
//   LoadClientOptions options;
//   options.url = "ws://127.0.0.1:8080/echo";
//   options.clients = 4;
//   options.messages = 100000;
//   absl::StatusOr<LoadClientResult> result = RunLoadClient(options);
//   // result->messages_sent / NanosToSeconds(result->send_nanos): the write-up's rate
//
// Connections are opened and upgraded first, within `timeout`; the clock starts when all are open
// and the send phase ends when every connection has written its last frame, close frame included
// (sink) or had its last echo back (echo), as the write-up timed it.
#ifndef NETBENCH_WEBSOCKET_LOAD_CLIENT_H_
#define NETBENCH_WEBSOCKET_LOAD_CLIENT_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "common/client_driver.h"
#include "common/clock.h"
#include "common/histogram.h"
#include "websocket/client_session.h"

namespace netbench::websocket {

struct LoadClientOptions {
  std::string url = "ws://127.0.0.1:8080/echo";
  int clients = 1;
  int64_t messages = 100000;  // per connection
  size_t size = 13;           // payload bytes: "hello, world!" repeated or cut to this size
  bool binary = false;        // text frames by default, as the write-up sent
  ClientMode mode = ClientMode::kSink;
  int pipeline = 1;
  ClientModel model = ClientModel::kThreads;
  int threads = 1;  // event loops for poll and epoll
  // The whole run, connecting, TLS and the upgrade included.
  int64_t timeout_nanos = 60 * kNanosPerSecond;
  bool progress = false;  // a line on stderr every second
  // wss: trust this CA file (PEM) instead of the system bundle, or verify nothing.
  std::string ca_file;
  bool insecure = false;
  // Messages sent and received per interval of this length over the send phase
  // (LoadClientResult::series); 0: none, else at least kMinSeriesIntervalNanos.
  int64_t series_interval_nanos = 100 * kNanosPerMilli;
};

struct LoadClientResult {
  int64_t messages_sent = 0;
  int64_t messages_received = 0;  // echoes (or anything the server sent as messages)
  int64_t mismatches = 0;         // echoes that differ from what was sent
  int connections_ok = 0;         // finished with a clean close handshake
  int connections_failed = 0;
  int64_t send_nanos = 0;   // the send phase (see above)
  int64_t total_nanos = 0;  // from the start until every connection finished
  bool timed_out = false;
  std::string failure;                    // why the run failed, in one line
  LatencyHistogram latency;               // echo mode: round trips, ns
  std::map<std::string, int64_t> errors;  // by cause
  std::string first_error;
  // System calls the client driver made over the whole run, handshakes included (ClientStats).
  uint64_t system_calls = 0;
  // Messages sent and received per interval of the send phase (client_series.h); they add up to
  // what the send phase sent and received: every message sent, and the echoes back by its end.
  ClientSeries series;

  // system_calls over messages_sent.
  double system_calls_per_message() const {
    return messages_sent > 0 ? static_cast<double>(system_calls) / messages_sent : 0.0;
  }
};

// An error status when the options are wrong (kInvalidArgument) or no load could start: a
// connection that could not be opened, or the deadline passed while opening (the message says in
// which phase and how far each connection got).
absl::StatusOr<LoadClientResult> RunLoadClient(const LoadClientOptions& options);

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_LOAD_CLIENT_H_
