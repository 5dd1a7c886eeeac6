// The WebSocket load generator: `bazel run //websocket:client -- --clients=4 --messages=100000`.
// See --help.
//
// It prints the write-up's line ("Sent N in T for a rate of R/second"), a summary, and last, before
// "rate: R msgs/s", the send phase's messages per --series_interval as one JSON object: the run's
// rate over time (a warm-up, a slowdown, the steady state).
//
//   series: {"interval_s": 0.1, "last_s": 0.043, "sent": [1234, 1200], "received": [0, 0]}
//
// `sent` counts messages sent and `received` messages received (echoes, in echo mode) in each
// interval; every interval is interval_s long but the last, which is last_s.
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/client_series.h"
#include "common/clock.h"
#include "common/cpu_time.h"
#include "common/run_report.h"
#include "websocket/load_client.h"

ABSL_FLAG(std::string, url, "ws://127.0.0.1:8080/echo", "server URL (ws:// or wss://)");
ABSL_FLAG(int, clients, 1, "connections");
ABSL_FLAG(int64_t, messages, 100000, "messages per connection");
ABSL_FLAG(int, size, 13, "payload bytes (13: \"hello, world!\", the write-up's message)");
ABSL_FLAG(bool, binary, false, "send binary frames instead of text");
ABSL_FLAG(std::string, mode, "sink",
          "sink: write as fast as possible, never wait (the write-up); echo: wait for each echo "
          "(latency)");
ABSL_FLAG(int, pipeline, 1, "sink: frames per write; echo: messages in flight per connection");
ABSL_FLAG(std::string, model, "threads",
          "threads: a thread per connection, like the Go client's goroutines (sink mode adds a "
          "writer thread beside each); poll, epoll or uring: --threads event loops over all "
          "connections");
ABSL_FLAG(int, threads, 1, "event loops for --model=poll, --model=epoll and --model=uring");
ABSL_FLAG(absl::Duration, timeout, absl::Seconds(60),
          "bound on the whole run, connecting, TLS and the upgrade included: a run cut short "
          "exits 3, one that could not open its connections in time exits 1");
ABSL_FLAG(std::string, cacert, "", "wss: trust this CA/certificate file (PEM)");
ABSL_FLAG(bool, insecure, false, "wss: do not verify the server's certificate");
ABSL_FLAG(bool, progress, true, "print a progress line to stderr every second");
ABSL_FLAG(std::string, json, "", "write the run report as JSON to this path");
ABSL_FLAG(absl::Duration, series_interval, absl::Milliseconds(100),
          "print the send phase's messages sent and received per interval of this length (the "
          "'series:' line, and \"series\" in --json): the run's rate over time, to tell its "
          "warm-up and slowdowns from its steady state. At least 10ms; 0 prints none");

namespace netbench::websocket {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "websocket client: %s\n", message.c_str());
  return 2;
}

int Run() {
  LoadClientOptions options;
  options.url = absl::GetFlag(FLAGS_url);
  options.clients = absl::GetFlag(FLAGS_clients);
  options.messages = absl::GetFlag(FLAGS_messages);
  const int size = absl::GetFlag(FLAGS_size);
  if (size < 0) return Fail("--size must be >= 0");
  options.size = static_cast<size_t>(size);
  options.binary = absl::GetFlag(FLAGS_binary);
  const std::string mode = absl::GetFlag(FLAGS_mode);
  if (mode == "sink") {
    options.mode = ClientMode::kSink;
  } else if (mode == "echo") {
    options.mode = ClientMode::kEcho;
  } else {
    return Fail(absl::StrCat("unknown --mode '", mode, "' (use sink or echo)"));
  }
  options.pipeline = absl::GetFlag(FLAGS_pipeline);
  const std::string model = absl::GetFlag(FLAGS_model);
  absl::StatusOr<ClientModel> parsed_model = ParseClientModel(model);
  if (!parsed_model.ok()) return Fail(absl::StrCat("--model: ", parsed_model.status().message()));
  options.model = *parsed_model;
  options.threads = absl::GetFlag(FLAGS_threads);
  const absl::Duration timeout = absl::GetFlag(FLAGS_timeout);
  if (timeout <= absl::ZeroDuration()) return Fail("--timeout must be > 0");
  options.timeout_nanos = absl::ToInt64Nanoseconds(timeout);
  options.ca_file = absl::GetFlag(FLAGS_cacert);
  options.insecure = absl::GetFlag(FLAGS_insecure);
  options.progress = absl::GetFlag(FLAGS_progress);
  options.series_interval_nanos = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_series_interval));

  const CpuTimes cpu_before = SelfCpuTimes();
  absl::StatusOr<LoadClientResult> result = RunLoadClient(options);
  const CpuTimes cpu = SelfCpuTimes() - cpu_before;
  if (!result.ok()) {
    std::fprintf(stderr, "websocket client: %s\n", std::string(result.status().message()).c_str());
    return absl::IsInvalidArgument(result.status()) ? 2 : 1;
  }
  const LoadClientResult& r = *result;
  const double send_seconds = NanosToSeconds(r.send_nanos);
  const double rate = send_seconds > 0 ? r.messages_sent / send_seconds : 0.0;
  const int64_t expected = options.messages * options.clients;
  if (r.timed_out) {
    std::printf("STALLED: %lld of %lld messages written after %.3fs\n",
                static_cast<long long>(r.messages_sent), static_cast<long long>(expected),
                NanosToSeconds(r.total_nanos));
    std::fprintf(stderr, "websocket client: %s\n", r.failure.c_str());
  }
  // The write-up's line.
  std::printf("Sent %lld in %.6fs for a rate of %.0f/second\n",
              static_cast<long long>(r.messages_sent), send_seconds, rate);

  RunReport report("websocket-client", mode);
  report.SetParam("url", options.url);
  report.SetParam("clients", options.clients);
  report.SetParam("messages_per_client", options.messages);
  report.SetParam("size", size);
  report.SetParam("binary", options.binary);
  report.SetParam("pipeline", options.pipeline);
  report.SetParam("model", model);
  report.SetParam("threads", options.threads);
  report.SetMetric("msgs_per_s", rate, "1/s");
  report.SetMetric("send_seconds", send_seconds, "s");
  report.SetMetric("total_seconds", NanosToSeconds(r.total_nanos), "s");
  report.SetMetric("mb_per_s", rate * options.size / 1e6, "MB/s");
  report.SetMetric("client_cpu_us_per_msg",
                   r.messages_sent > 0 ? cpu.total_nanos() / 1e3 / r.messages_sent : 0.0, "us");
  report.SetMetric("system_calls_per_message", r.system_calls_per_message(), "1/msg");
  report.SetCount("messages_sent", r.messages_sent);
  report.SetCount("system_calls", static_cast<int64_t>(r.system_calls));
  report.SetCount("messages_received", r.messages_received);
  report.SetCount("connections_ok", r.connections_ok);
  report.SetCount("connections_failed", r.connections_failed);
  for (const auto& [cause, count] : r.errors) report.SetCount("errors." + cause, count);
  if (options.mode == ClientMode::kEcho) report.AddHistogram("latency", r.latency);
  if (!r.series.empty()) {
    report.AddSeries("messages_sent", NanosToSeconds(r.series.interval_nanos),
                     NanosToSeconds(r.series.last_nanos), r.series.sent);
    report.AddSeries("messages_received", NanosToSeconds(r.series.interval_nanos),
                     NanosToSeconds(r.series.last_nanos), r.series.received);
  }
  std::printf("%s", report.ToTable().c_str());
  if (!r.first_error.empty()) std::printf("first error: %s\n", r.first_error.c_str());
  const std::string json = absl::GetFlag(FLAGS_json);
  if (!json.empty()) {
    absl::Status written = report.WriteJson(json);
    if (!written.ok()) return Fail(std::string(written.message()));
  }
  std::printf("system calls: %llu, %.2f per message sent\n",
              static_cast<unsigned long long>(r.system_calls), r.system_calls_per_message());
  if (!r.series.empty()) std::printf("series: %s\n", ClientSeriesJson(r.series).c_str());
  std::printf("rate: %.0f msgs/s\n", rate);
  std::fflush(stdout);
  if (r.timed_out) return 3;
  if (!r.errors.empty() || r.messages_sent != expected ||
      (options.mode == ClientMode::kEcho && r.messages_received != expected)) {
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace netbench::websocket

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "WebSocket load generator: CLIENTS connections each send MESSAGES frames, then close. "
      "Prints 'Sent N in T for a rate of R/second' and a summary.\n"
      "  client --url=ws://127.0.0.1:8080/echo --clients=4 --messages=100000 [--mode=echo]");
  absl::ParseCommandLine(argc, argv);
  return netbench::websocket::Run();
}
