#include "httpfanout/fanout_client.h"

#include <errno.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "httpfanout/fanout_session.h"

namespace netbench {
namespace {

// A run of the driver ends by its own deadline only if a request outlived its own: a safety net,
// never reached while every request keeps its timeout. Saturates rather than overflows.
int64_t RunBound(int requests, int in_flight, int64_t request_timeout_nanos) {
  const int64_t rounds = (requests + in_flight - 1) / in_flight;
  const int64_t per_round = request_timeout_nanos + kNanosPerSecond;
  const int64_t limit = INT64_MAX / 4;
  if (per_round > (limit - 10 * kNanosPerSecond) / rounds) return limit;
  return rounds * per_round + 10 * kNanosPerSecond;
}

}  // namespace

FanoutClient::FanoutClient(const FanoutOptions& options, SocketAddress address,
                           int64_t resolve_nanos)
    : options_(options), address_(address), resolve_nanos_(resolve_nanos) {
  // Without keep-alive the request asks the server to close: the server then holds TIME_WAIT, not
  // the client, whose ephemeral ports are the scarcer budget over repeated runs.
  request_ =
      absl::StrCat("GET ", options_.url.target, " HTTP/1.1\r\nHost: ", options_.url.HostHeader(),
                   "\r\nUser-Agent: ", options_.user_agent, "\r\nAccept: */*\r\n",
                   options_.keepalive ? "" : "Connection: close\r\n", "\r\n");
}

absl::StatusOr<std::string> AgreeFanoutTimeouts(const FlagSetting& connect_timeout,
                                                const FlagSetting& timeout,
                                                FanoutOptions& options) {
  absl::StatusOr<BoundAgreement> agreed =
      AgreeBound(timeout, connect_timeout,
                 {.needed = connect_timeout.value,
                  .held = timeout.value,
                  .why = "--timeout bounds a whole request, its connect included"});
  if (!agreed.ok()) return agreed.status();
  options.timeout_nanos = agreed->bound;
  options.connect_timeout_nanos = agreed->bounded;
  return agreed->note;
}

absl::StatusOr<std::unique_ptr<FanoutClient>> FanoutClient::Create(const FanoutOptions& options) {
  if (options.requests < 1) return absl::InvalidArgumentError("requests must be >= 1");
  if (options.concurrency < 0) return absl::InvalidArgumentError("concurrency must be >= 0");
  if (options.connect_timeout_nanos <= 0 || options.timeout_nanos <= 0) {
    return absl::InvalidArgumentError("timeouts must be positive");
  }
  if (options.url.tls() && options.tls == nullptr) {
    return absl::InvalidArgumentError("an https URL needs a TLS client context");
  }
  Stopwatch watch;
  absl::StatusOr<std::vector<SocketAddress>> addresses =
      Resolve(options.url.host, options.url.port);
  if (!addresses.ok()) return addresses.status();
  return std::unique_ptr<FanoutClient>(
      new FanoutClient(options, addresses->front(), watch.ElapsedNanos()));
}

ClientDriverOptions FanoutClient::DriverOptions() {
  ClientDriverOptions driver;
  driver.address = address_;
  driver.tls = options_.url.tls() ? options_.tls : nullptr;
  driver.server_name = options_.url.host;
  driver.connections = in_flight();
  driver.model = options_.model;
  driver.threads = 1;  // poll and epoll: one loop, as one thread of Go's or Node's event loop
  // Each request's connect and handshake are its own time, as Go's net/http times them.
  driver.open_before_start = false;
  driver.replace_sessions = true;  // a slot per request in flight, a session per request
  driver.pool = options_.keepalive ? &pool_ : nullptr;
  driver.session_timeout_nanos = options_.timeout_nanos;
  // A connect timeout no shorter than the request's would never be the one that fires.
  driver.connect_timeout_nanos =
      options_.connect_timeout_nanos < options_.timeout_nanos ? options_.connect_timeout_nanos : 0;
  driver.timeout_nanos = RunBound(options_.requests, in_flight(), options_.timeout_nanos);
  return driver;
}

RepetitionResult FanoutClient::RunRepetition() {
  RepetitionResult result;
  result.outcomes.resize(options_.requests);
  FanoutRequests requests;
  requests.request = &request_;
  requests.outcomes = &result.outcomes;
  requests.timeout_nanos = options_.timeout_nanos;
  requests.verify_checksum = options_.verify_checksum;
  if (options_.url.tls()) requests.on_handshake = [this](const Transport& t) { NoteTls(t); };

  const int64_t count = options_.requests;
  const ClientDriverOptions driver = DriverOptions();
  ClientDriverResult run =
      RunClientDriver(driver, [&](const SessionContext& context) -> std::unique_ptr<ClientSession> {
        if (context.sequence >= count) return nullptr;  // every request has been sent
        return MakeFanoutSession(requests, context);
      });

  result.wall_nanos = run.elapsed_nanos;
  result.cpu_nanos = run.cpu.total_nanos();
  result.connections_opened = run.connections_opened;
  result.system_calls = run.stats.system_calls;
  for (RequestOutcome& o : result.outcomes) {
    if (!o.ok && o.error.cause.empty()) {
      // Never ended: the driver could not run, or its safety-net deadline cut the run short.
      o.error = {run.timed_out ? "timeout" : "not_run", run.timed_out ? ETIMEDOUT : 0,
                 run.failure.empty() ? "the run ended before this request" : run.failure, true};
    }
    result.bytes_read += o.bytes_read;
    const RequestPhases& p = o.phases;
    if (p.connect >= 0) result.connect.Record(p.connect);
    if (p.tls >= 0) result.tls.Record(p.tls);
    if (p.write >= 0) result.write.Record(p.write);
    if (p.ttfb >= 0) result.ttfb.Record(p.ttfb);
    if (p.body >= 0) result.body.Record(p.body);
    if (p.total >= 0) result.total.Record(p.total);
    if (o.ok) {
      ++result.ok;
      ++result.status_counts[o.status];
      result.body_bytes += o.body_bytes;
    } else {
      ++result.failed;
      ++result.errors[o.error.cause];
    }
  }
  return result;
}

std::string FanoutClient::tls_description() const {
  std::lock_guard<std::mutex> lock(tls_mutex_);
  return tls_description_;
}

void FanoutClient::NoteTls(const Transport& transport) {
  if (tls_noted_.load(std::memory_order_relaxed)) return;
  const TlsTransport* tls = AsTls(transport);
  if (tls == nullptr) return;
  std::lock_guard<std::mutex> lock(tls_mutex_);
  if (tls_noted_.load(std::memory_order_relaxed)) return;
  tls_description_ = absl::StrCat(tls->version(), " ", tls->cipher());
  tls_noted_.store(true, std::memory_order_relaxed);
}

}  // namespace netbench
