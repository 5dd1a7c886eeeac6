#include "websocket/load_client.h"

#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/socket.h"
#include "common/tls.h"
#include "common/url.h"

namespace netbench::websocket {

absl::StatusOr<LoadClientResult> RunLoadClient(const LoadClientOptions& options) {
  if (options.clients < 1) return absl::InvalidArgumentError("--clients must be >= 1");
  if (options.messages < 1) return absl::InvalidArgumentError("--messages must be >= 1");
  if (options.pipeline < 1) return absl::InvalidArgumentError("--pipeline must be >= 1");
  if (options.threads < 1) return absl::InvalidArgumentError("--threads must be >= 1");
  if (options.timeout_nanos <= 0) return absl::InvalidArgumentError("--timeout must be > 0");
  if (options.size > (64u << 20)) return absl::InvalidArgumentError("--size must be <= 64 MiB");
  if (options.series_interval_nanos != 0 &&
      options.series_interval_nanos < kMinSeriesIntervalNanos) {
    return absl::InvalidArgumentError("--series_interval must be 0 (no series) or at least 10ms");
  }
  WebSocketRun run;
  absl::StatusOr<Url> url = ParseUrl(options.url, UrlFamily::kWebSocket);
  if (!url.ok()) return url.status();
  run.url = *std::move(url);
  run.mode = options.mode;
  run.messages = options.messages;
  run.pipeline = options.pipeline;
  run.binary = options.binary;
  run.payload = MakeWebSocketPayload(options.size);

  absl::StatusOr<std::vector<SocketAddress>> addresses = Resolve(run.url.host, run.url.port);
  if (!addresses.ok()) return addresses.status();
  if (addresses->empty()) {
    return absl::NotFoundError(absl::StrCat("no address for ", run.url.host));
  }
  std::unique_ptr<TlsClientContext> tls;
  if (run.url.tls()) {
    TlsClientContext::Options tls_options;
    tls_options.ca_file = options.ca_file;
    tls_options.insecure = options.insecure;
    absl::StatusOr<std::unique_ptr<TlsClientContext>> context =
        TlsClientContext::Create(tls_options);
    if (!context.ok()) return context.status();
    tls = *std::move(context);
  }

  ClientDriverOptions driver;
  driver.address = addresses->front();
  driver.tls = tls.get();
  driver.server_name = run.url.host;
  driver.connections = options.clients;
  driver.model = options.model;
  driver.threads = options.threads;
  driver.timeout_nanos = options.timeout_nanos;
  // A connection whose close handshake is not done when its sending side is has until the deadline.
  driver.drain_timeout_nanos = options.timeout_nanos;
  driver.series_interval_nanos = options.series_interval_nanos;
  if (options.progress) {
    driver.progress = [](const ClientProgress& p) {
      std::fprintf(stderr, "progress: %.1f s sent %llu (%.0f msgs/s now) received %llu\n",
                   NanosToSeconds(p.elapsed_nanos), static_cast<unsigned long long>(p.sent_total),
                   p.sent_per_second, static_cast<unsigned long long>(p.received_total));
    };
  }
  ClientDriverResult r = RunClientDriver(driver, [&run](const SessionContext& context) {
    return MakeWebSocketClientSession(run, context);
  });
  if (r.reached[static_cast<int>(ConnectionPhase::kOpen)] < options.clients) {
    return r.timed_out ? absl::DeadlineExceededError(r.failure) : absl::UnavailableError(r.failure);
  }

  LoadClientResult result;
  result.messages_sent = static_cast<int64_t>(r.total_sent);
  result.messages_received = static_cast<int64_t>(r.total_received);
  result.connections_ok = r.finished;
  result.connections_failed = options.clients - r.finished;
  result.send_nanos = r.elapsed_nanos;
  result.total_nanos = r.total_nanos;
  result.timed_out = r.timed_out;
  result.failure = r.failure;
  result.first_error = r.first_error;
  result.system_calls = r.stats.system_calls;
  result.series = std::move(r.series);
  if (auto it = r.stats.latency.find("rtt"); it != r.stats.latency.end()) {
    result.latency = it->second;
  }
  result.errors = std::move(r.stats.errors);
  if (auto it = result.errors.find("mismatched_echo"); it != result.errors.end()) {
    result.mismatches = it->second;
  }
  return result;
}

}  // namespace netbench::websocket
