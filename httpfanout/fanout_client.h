// The fan-out client: N GETs of one URL, all in flight at once (or --concurrency at a time), every
// body read whole, timed per repetition and per request phase. It runs on the common client driver
// (common/client_driver.h) in any of its models, a session per request (fanout_session.h):
//
//   threads  a thread per request in flight, blocking sockets (the goroutine-per-request analogue)
//   poll     one thread, non-blocking sockets, a poll(2) event loop
//   epoll    the same on epoll
//
// Connecting and the TLS handshake are part of each request's time (no start latch), each request
// has its own deadline, and with keep-alive a pool keeps connections across requests and
// repetitions; a request on a kept connection the server had closed is sent once more on a fresh
// one.
//
//   FanoutOptions options;
//   options.url = *ParseUrl("http://127.0.0.1:9080/", UrlFamily::kHttp);
//   options.requests = 500;
//   absl::StatusOr<std::unique_ptr<FanoutClient>> client = FanoutClient::Create(options);
//   RepetitionResult rep = (*client)->RunRepetition();  // resolved once, at Create
//   absl::PrintF("%d ok in %.3f s\n", rep.ok, rep.wall_nanos / 1e9);
#ifndef NETBENCH_HTTPFANOUT_FANOUT_CLIENT_H_
#define NETBENCH_HTTPFANOUT_FANOUT_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/client_driver.h"
#include "common/clock.h"
#include "common/connection_pool.h"
#include "common/flag_agreement.h"
#include "common/histogram.h"
#include "common/socket.h"
#include "common/tls.h"
#include "common/url.h"
#include "httpfanout/request_outcome.h"

namespace netbench {

struct FanoutOptions {
  Url url;
  ClientModel model = DefaultServerModel();  // epoll on Linux, poll elsewhere
  int requests = 500;
  int concurrency = 0;  // requests in flight at once; 0: all of them
  // Reuse connections (per host) for later requests and repetitions; otherwise each request opens
  // its own and asks the server to close it.
  bool keepalive = false;
  int64_t connect_timeout_nanos = 10 * kNanosPerSecond;
  int64_t timeout_nanos = 60 * kNanosPerSecond;  // whole request, connect included
  // TLS for https URLs; not owned; required for https.
  TlsClientContext* tls = nullptr;
  // Hash every body (FNV-1a) into RequestOutcome::checksum; tests use it to check the bytes.
  bool verify_checksum = false;
  // Sent as User-Agent.
  std::string user_agent = "netbench-fanout/1";
};

struct RepetitionResult {
  int64_t wall_nanos = 0;
  int64_t cpu_nanos = 0;  // this process's CPU time during the repetition (all threads)
  int ok = 0;
  int failed = 0;
  uint64_t body_bytes = 0;
  uint64_t bytes_read = 0;  // including heads and framing (TLS: decrypted)
  int connections_opened = 0;
  // System calls the client driver made for the repetition (ClientStats::system_calls).
  uint64_t system_calls = 0;
  std::map<int, int> status_counts;
  // By cause: "ECONNREFUSED", "timeout", "connect_timeout", "http.bad_status_line", ...
  std::map<std::string, int> errors;
  std::vector<RequestOutcome> outcomes;  // one per request, in request order
  // Per-phase latencies (ns), as hey reports them: connect (TCP), tls (handshake), write (request),
  // ttfb (request written to first response byte), body (first byte to last), total (start to last
  // byte).
  LatencyHistogram total, connect, tls, write, ttfb, body;
};

// --connect_timeout against --timeout, which bounds a whole request, connect included
// (common/flag_agreement.h): a given --connect_timeout longer than a default --timeout raises the
// timeout to it; a given --timeout shorter than the default --connect_timeout lowers that to it;
// both given, a connect timeout longer than the request's is an InvalidArgument error naming both.
// Returns the note to print ("" when the flags agreed as given); `options` holds the flags' values
// and gets the agreed ones.
absl::StatusOr<std::string> AgreeFanoutTimeouts(const FlagSetting& connect_timeout,
                                                const FlagSetting& timeout, FanoutOptions& options);

class FanoutClient {
 public:
  // Validates the options and resolves the URL's host (once, for all requests and repetitions).
  static absl::StatusOr<std::unique_ptr<FanoutClient>> Create(const FanoutOptions& options);

  // Runs `requests` GETs and returns when every one has finished (or failed, or timed out).
  RepetitionResult RunRepetition();

  const FanoutOptions& options() const { return options_; }
  const SocketAddress& address() const { return address_; }
  int64_t resolve_nanos() const { return resolve_nanos_; }
  const std::string& request() const { return request_; }
  // "TLSv1.3 TLS_AES_128_GCM_SHA256" from the first completed handshake; "" before one (or for
  // http).
  std::string tls_description() const;

 private:
  FanoutClient(const FanoutOptions& options, SocketAddress address, int64_t resolve_nanos);

  int in_flight() const {
    return options_.concurrency <= 0 ? options_.requests
                                     : std::min(options_.concurrency, options_.requests);
  }
  ClientDriverOptions DriverOptions();
  // Notes the protocol version and cipher of a finished handshake (the first one only).
  // Thread-safe.
  void NoteTls(const Transport& transport);

  FanoutOptions options_;
  SocketAddress address_;
  int64_t resolve_nanos_ = 0;
  std::string request_;  // the request head, built once
  ConnectionPool pool_;  // --keepalive: connections to the one host, kept across repetitions
  mutable std::mutex tls_mutex_;
  std::string tls_description_;
  std::atomic<bool> tls_noted_{false};
};

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_FANOUT_CLIENT_H_
