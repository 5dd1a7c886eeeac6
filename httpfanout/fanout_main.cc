// The fan-out client: `bazel run //httpfanout:fanout -- --url=http://127.0.0.1:9080/
// --requests=500`. See --help.
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/flag_agreement.h"
#include "common/server.h"
#include "common/tls.h"
#include "common/url.h"
#include "httpfanout/fanout_client.h"
#include "httpfanout/fanout_preflight.h"
#include "httpfanout/fanout_report.h"

ABSL_FLAG(std::string, url, "", "http:// or https:// URL to GET (required)");
ABSL_FLAG(int, requests, 500, "GETs per repetition");
ABSL_FLAG(netbench::ClientModel, model, netbench::DefaultServerModel(),
          "threads (a thread per request in flight, blocking sockets), poll or epoll (one thread, "
          "non-blocking; epoll is Linux only)");
ABSL_FLAG(int, concurrency, 0, "requests in flight at once; 0: all of them");
ABSL_FLAG(
    bool, keepalive, false,
    "reuse connections for later requests and repetitions (otherwise every request opens its own "
    "and asks the server to close it)");
ABSL_FLAG(absl::Duration, connect_timeout, absl::Seconds(10),
          "give up a connect after this long; given longer than a default --timeout, it wins and "
          "raises --timeout to match (a line on stderr says so)");
ABSL_FLAG(absl::Duration, timeout, absl::Seconds(60),
          "give up a request (connect included) after this long; given shorter than a default "
          "--connect_timeout, it wins and lowers that; both given, --connect_timeout above "
          "--timeout refuses to start (exit 2)");
ABSL_FLAG(int, repetitions, 10, "measured repetitions");
ABSL_FLAG(int, warmup, 0, "repetitions run first and not counted");
ABSL_FLAG(std::string, json, "", "write the run as JSON (common/run_report.h schema) to this path");
ABSL_FLAG(std::string, cacert, "",
          "PEM file of CA certificates to trust instead of the system bundle");
ABSL_FLAG(bool, insecure, false, "https: skip certificate and host-name verification");
ABSL_FLAG(bool, tls_resumption, false,
          "https: resume TLS sessions across connections (off by default, as Go's fresh transport "
          "and curl "
          "do not resume across runs)");
ABSL_FLAG(bool, quiet, false, "print only the summary");

namespace netbench {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "fanout: %s\n", message.c_str());
  return 2;
}

int Run() {
  std::string url_text = absl::GetFlag(FLAGS_url);
  if (url_text.empty()) return Fail("--url is required, e.g. --url=http://127.0.0.1:9080/");
  absl::StatusOr<Url> url = ParseUrl(url_text, UrlFamily::kHttp);
  if (!url.ok()) return Fail(std::string(url.status().message()));
  FanoutOptions options;
  options.url = *url;
  options.model = absl::GetFlag(FLAGS_model);
  if (options.model == ClientModel::kUring) {
    // Where this process cannot use io_uring, the probe's cause.
    if (absl::StatusOr<ClientModel> uring = ParseClientModel("uring"); !uring.ok()) {
      return Fail(std::string(uring.status().message()));
    }
  }
  options.requests = absl::GetFlag(FLAGS_requests);
  options.concurrency = absl::GetFlag(FLAGS_concurrency);
  options.keepalive = absl::GetFlag(FLAGS_keepalive);
  options.connect_timeout_nanos = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_connect_timeout));
  options.timeout_nanos = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_timeout));
  const int repetitions = absl::GetFlag(FLAGS_repetitions);
  const int warmup = absl::GetFlag(FLAGS_warmup);
  if (options.requests < 1 || options.requests > 1000000)
    return Fail("--requests must be in 1..1000000");
  if (options.concurrency < 0) return Fail("--concurrency must be >= 0");
  if (options.connect_timeout_nanos <= 0) return Fail("--connect_timeout must be positive");
  if (options.timeout_nanos <= 0) return Fail("--timeout must be positive");
  if (repetitions < 1 || repetitions > 100000) return Fail("--repetitions must be in 1..100000");
  if (warmup < 0) return Fail("--warmup must be >= 0");
  absl::StatusOr<std::string> agreed =
      AgreeFanoutTimeouts(SettingOf(FLAGS_connect_timeout), SettingOf(FLAGS_timeout), options);
  if (!agreed.ok()) return Fail(std::string(agreed.status().message()));
  if (!agreed->empty()) std::fprintf(stderr, "fanout: %s\n", agreed->c_str());

  std::unique_ptr<TlsClientContext> tls;
  if (options.url.tls()) {
    TlsClientContext::Options tls_options;
    tls_options.ca_file = absl::GetFlag(FLAGS_cacert);
    tls_options.insecure = absl::GetFlag(FLAGS_insecure);
    tls_options.session_resumption = absl::GetFlag(FLAGS_tls_resumption);
    absl::StatusOr<std::unique_ptr<TlsClientContext>> context =
        TlsClientContext::Create(tls_options);
    if (!context.ok()) return Fail(std::string(context.status().message()));
    tls = *std::move(context);
    options.tls = tls.get();
  } else if (!absl::GetFlag(FLAGS_cacert).empty() || absl::GetFlag(FLAGS_insecure)) {
    std::fprintf(stderr, "fanout: note: --cacert/--insecure have no effect on an http URL\n");
  }

  const int in_flight =
      options.concurrency <= 0 ? options.requests : std::min(options.concurrency, options.requests);
  const int64_t connections = options.keepalive
                                  ? in_flight
                                  : static_cast<int64_t>(options.requests) * (repetitions + warmup);
  for (const std::string& line : PrepareForFanout(in_flight, connections)) {
    std::fprintf(stderr, "fanout: %s\n", line.c_str());
  }

  absl::StatusOr<std::unique_ptr<FanoutClient>> client = FanoutClient::Create(options);
  if (!client.ok()) return Fail(std::string(client.status().message()));
  const bool quiet = absl::GetFlag(FLAGS_quiet);
  if (!quiet) {
    std::printf("GET %s (%s) x%d, %d in flight, model %s, %d repetitions after %d warm-up\n",
                options.url.ToString().c_str(), (*client)->address().ToString().c_str(),
                options.requests, in_flight, ServerModelName(options.model), repetitions, warmup);
    std::fflush(stdout);
  }
  for (int i = 0; i < warmup; ++i) {
    RepetitionResult rep = (*client)->RunRepetition();
    if (!quiet) {
      std::printf("warm-up %d: %d ok, %d failed, wall %.3f s\n", i + 1, rep.ok, rep.failed,
                  NanosToSeconds(rep.wall_nanos));
      std::fflush(stdout);
    }
  }
  FanoutReport report(options, (*client)->resolve_nanos());
  for (int i = 0; i < repetitions; ++i) {
    std::string line = report.Add((*client)->RunRepetition());
    if (!quiet) {
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);  // a progress line per repetition
    }
  }
  report.SetTlsDescription((*client)->tls_description());
  std::printf("%s", report.Summary().c_str());
  std::string json = absl::GetFlag(FLAGS_json);
  if (!json.empty()) {
    absl::Status written = report.ToRunReport().WriteJson(json);
    if (!written.ok()) return Fail(std::string(written.message()));
  }
  if (report.failed() > 0) {
    std::fprintf(stderr, "fanout: %lld requests failed:\n%s",
                 static_cast<long long>(report.failed()), report.Failures().c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace netbench

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "HTTP fan-out client: GETs one URL --requests times, all in flight at once, reads every "
      "body, and "
      "reports each repetition's wall time, a summary, per-phase latency percentiles, status codes "
      "and "
      "errors. Exits 1 when any request failed.\n"
      "  fanout --url=http://127.0.0.1:9080/ --requests=500 --model=epoll --repetitions=10\n"
      "  fanout --url=https://127.0.0.1:9443/ --cacert=/tmp/origin.pem --model=threads");
  absl::ParseCommandLine(argc, argv);
  return netbench::Run();
}
