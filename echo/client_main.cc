// echo client: the echo benchmark's load generator. See load_generator.h for the modes.
//
//   bazel run //echo:client -- --port=7000 --clients=3 --duration=10s     # the write-up's load
//   bazel run //echo:client -- --port=7000 --mode=pingpong --clients=1 --messages=100000
//   bazel run //echo:client -- --port=7000 --rate=50000 --duration=10s --json=/tmp/echo.json
//   bazel run //echo:client -- --port=7000 --tls --insecure --clients=3 --duration=10s
//
// Progress goes to stderr once a second; the summary goes to stdout and ends with the Go spammer's
// line "rate: N msgs/s" (messages written per second), so one script reads both programs. Before
// it, one line gives the measured phase's messages per --series_interval, the run's rate over time
// (a warm-up, a slowdown, the steady state), as one JSON object:
//
//   series: {"interval_s": 0.1, "last_s": 0.043, "sent": [1234, 1200], "received": [1200, 1234]}
//
// `sent` counts messages written and `received` messages echoed in each interval; every interval is
// interval_s long but the last, which is last_s, and the lists add up to the summary's counts. Exit
// status: 0 for a clean run, 1 when the run failed or the server misbehaved, 2 for bad flags.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "common/client_series.h"
#include "common/clock.h"
#include "common/flag_agreement.h"
#include "common/run_report.h"
#include "common/tls.h"
#include "echo/load_generator.h"

ABSL_FLAG(std::string, host, "127.0.0.1",
          "the echo server's address (IPv4, IPv6) or name, e.g. a test host of bench/running/testnet.sh");
ABSL_FLAG(int, port, 7000, "echo server port");
ABSL_FLAG(int, clients, 3, "connections");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(10),
          "how long to send (measured phase, after --warmup)");
ABSL_FLAG(int64_t, messages, 0,
          "send exactly this many messages in all, then stop (instead of --duration)");
ABSL_FLAG(int, size, 22, "message size in bytes (22: 8-byte header + \"hello, friend\\n\")");
ABSL_FLAG(
    std::string, mode, "",
    "stream (write without waiting, the Go spammer's load; default), pingpong (one message in "
    "flight per connection) or pipeline (--pipeline in flight)");
ABSL_FLAG(int, pipeline, 1, "messages in flight per connection; > 1 implies --mode=pipeline");
ABSL_FLAG(int, batch, 1, "messages per write() in stream mode");
ABSL_FLAG(std::string, model, "threads",
          "threads (a thread per connection, and a writer thread beside it in stream mode, like "
          "the Go spammer's goroutines), poll, epoll or uring (--threads event loops over all "
          "connections)");
ABSL_FLAG(int, threads, 1, "event loops for --model=poll, --model=epoll and --model=uring");
ABSL_FLAG(absl::Duration, warmup, absl::ZeroDuration(), "load before measuring (not counted)");
ABSL_FLAG(
    double, rate, 0,
    "open-loop offered load in msgs/s over all connections (stream mode); latency then counts from "
    "each message's intended send time (coordinated omission corrected, as wrk2 does)");
ABSL_FLAG(bool, nodelay, true, "set TCP_NODELAY (Go's default)");
ABSL_FLAG(int, read_coalesce, 16 * 1024,
          "stream mode without --rate: wake the reader once this many echoed bytes wait "
          "(SO_RCVLOWAT) rather than on every echo; saves client and server CPU, adds up to that "
          "much delay to rtt_sampled; 0 wakes on every echo");
ABSL_FLAG(absl::Duration, drain_timeout, absl::Seconds(5),
          "after sending stops, how long to wait for a write still blocked and for echoes still in "
          "flight; echoes missing then are errors");
ABSL_FLAG(
    absl::Duration, timeout, absl::ZeroDuration(),
    "hard bound on the whole run (0: warmup + duration + drain + 10s, or 120s with --messages). "
    "Given, it must hold --warmup + --duration + --drain_timeout: over a default --duration it "
    "wins and the duration is lowered to fit (a line on stderr says so); with --duration given "
    "too, a --timeout too short refuses to start (exit 2)");
ABSL_FLAG(bool, tls, false,
          "TLS to the server (echo/server --tls): the handshakes are done before the load starts");
ABSL_FLAG(std::string, cacert, "",
          "--tls: trust this CA/certificate file (PEM; default: the system CA bundle)");
ABSL_FLAG(bool, insecure, false, "--tls: do not verify the server's certificate");
ABSL_FLAG(bool, progress, true, "print a progress line to stderr every second");
ABSL_FLAG(std::string, json, "", "write the run report as JSON to this path");
ABSL_FLAG(absl::Duration, series_interval, absl::Milliseconds(100),
          "print the measured phase's messages written and echoed per interval of this length "
          "(the 'series:' line, and \"series\" in --json): the run's rate over time, to tell its "
          "warm-up and slowdowns from its steady state. At least 10ms; 0 prints none");

namespace netbench {
namespace echo {
namespace {

int Fail(absl::string_view message) {
  std::cerr << "echo-client: " << message << "\n";
  return 1;
}

int UsageError(absl::string_view message) {
  std::cerr << "echo-client: " << message << "\n";
  return 2;
}

int Main() {
  LoadOptions options;
  options.host = absl::GetFlag(FLAGS_host);
  options.port = absl::GetFlag(FLAGS_port);
  options.clients = absl::GetFlag(FLAGS_clients);
  options.duration_nanos = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_duration));
  options.messages = absl::GetFlag(FLAGS_messages);
  options.size = absl::GetFlag(FLAGS_size);
  options.pipeline = absl::GetFlag(FLAGS_pipeline);
  options.batch = absl::GetFlag(FLAGS_batch);
  options.threads = absl::GetFlag(FLAGS_threads);
  options.warmup_nanos = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_warmup));
  options.rate = absl::GetFlag(FLAGS_rate);
  options.no_delay = absl::GetFlag(FLAGS_nodelay);
  options.read_coalesce_bytes = absl::GetFlag(FLAGS_read_coalesce);
  options.drain_timeout_nanos = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_drain_timeout));
  options.timeout_nanos = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_timeout));
  options.series_interval_nanos = absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_series_interval));

  std::string mode_name = absl::GetFlag(FLAGS_mode);
  if (mode_name.empty()) mode_name = options.pipeline > 1 ? "pipeline" : "stream";
  absl::StatusOr<LoadMode> mode = ParseLoadMode(mode_name);
  if (!mode.ok()) return UsageError(absl::StrCat("--mode: ", mode.status().message()));
  options.mode = *mode;
  if (mode_name == "pingpong" && options.pipeline != 1) {
    return UsageError(
        "--mode=pingpong has one message in flight; use --mode=pipeline with --pipeline");
  }
  if (mode_name == "stream" && options.pipeline != 1) {
    return UsageError("--pipeline applies to --mode=pipeline, not to --mode=stream");
  }
  absl::StatusOr<ClientModel> model = ParseClientModel(absl::GetFlag(FLAGS_model));
  if (!model.ok()) return UsageError(absl::StrCat("--model: ", model.status().message()));
  options.model = *model;
  if (absl::Status valid = ValidateLoadOptions(options); !valid.ok()) {
    return UsageError(valid.message());
  }
  absl::StatusOr<std::string> agreed =
      AgreeRunTimeout(SettingOf(FLAGS_timeout), SettingOf(FLAGS_duration), options);
  if (!agreed.ok()) return UsageError(agreed.status().message());
  if (!agreed->empty()) std::cerr << "echo-client: " << *agreed << "\n";

  const bool tls_flags_given =
      !absl::GetFlag(FLAGS_cacert).empty() || absl::GetFlag(FLAGS_insecure);
  if (tls_flags_given && !absl::GetFlag(FLAGS_tls)) {
    return UsageError("--cacert and --insecure need --tls");
  }
  std::unique_ptr<TlsClientContext> tls;
  if (absl::GetFlag(FLAGS_tls)) {
    absl::StatusOr<std::unique_ptr<TlsClientContext>> context = TlsClientContext::Create(
        {.ca_file = absl::GetFlag(FLAGS_cacert), .insecure = absl::GetFlag(FLAGS_insecure)});
    if (!context.ok()) return UsageError(context.status().message());
    tls = *std::move(context);
    options.tls = tls.get();
  }

  if (absl::GetFlag(FLAGS_progress)) {
    options.progress = [](const LoadProgress& p) {
      std::fprintf(stderr, "[%6.1f s] %12s msgs/s now (echoed %s/s), %s written%s\n",
                   static_cast<double>(p.elapsed_nanos) / 1e9,
                   FormatCount(static_cast<int64_t>(p.written_per_second)).c_str(),
                   FormatCount(static_cast<int64_t>(p.echoed_per_second)).c_str(),
                   FormatCount(static_cast<int64_t>(p.written_total)).c_str(),
                   p.elapsed_nanos < 0 ? " (warming up)" : "");
    };
  }

  LoadResult result = RunLoad(options);
  if (result.connections < options.clients) return Fail(result.failure);

  RunReport report("echo-client", mode_name);
  report.SetParam("host", options.host);
  report.SetParam("port", options.port);
  report.SetParam("clients", options.clients);
  report.SetParam("mode", mode_name);
  report.SetParam("model", ServerModelName(options.model));
  if (options.model != ClientModel::kThreads) report.SetParam("threads", options.threads);
  report.SetParam("size", options.size);
  report.SetParam("batch", options.batch);
  report.SetParam("pipeline", options.pipeline);
  report.SetParam("rate", options.rate);
  report.SetParam("messages", static_cast<int64_t>(options.messages));
  report.SetParam("duration_s", options.messages > 0 ? 0.0 : options.duration_nanos / 1e9);
  report.SetParam("warmup_s", options.warmup_nanos / 1e9);
  report.SetParam("nodelay", options.no_delay);
  report.SetParam("tls", options.tls != nullptr);
  report.SetParam("read_coalesce_bytes", ReadCoalesceBytes(options));

  const double rate = result.written_per_second();
  report.SetMetric("msgs_per_s", rate, "1/s");
  report.SetMetric("echoed_msgs_per_s", result.echoed_per_second(), "1/s");
  report.SetMetric("mb_per_s", rate * options.size / 1e6, "MB/s");
  report.SetMetric("elapsed_s", result.elapsed_nanos / 1e9, "s");
  report.SetMetric("client_cpu_us_per_msg", result.cpu_nanos_per_message() / 1e3, "us");
  report.SetMetric("client_cpu_user_s", result.cpu.user_nanos / 1e9, "s");
  report.SetMetric("client_cpu_system_s", result.cpu.system_nanos / 1e9, "s");
  report.SetMetric("system_calls_per_message", result.system_calls_per_message(), "1/msg");
  report.SetCount("connections", result.connections);
  report.SetCount("messages_written", static_cast<int64_t>(result.messages_written));
  report.SetCount("messages_echoed", static_cast<int64_t>(result.messages_echoed));
  report.SetCount("total_written", static_cast<int64_t>(result.total_written));
  report.SetCount("total_echoed", static_cast<int64_t>(result.total_echoed));
  report.SetCount("write_stalls", static_cast<int64_t>(result.write_stalls));
  report.SetCount("system_calls", static_cast<int64_t>(result.system_calls));
  report.SetCount("aborted_connections", result.aborted_connections);
  report.SetCount("errors", static_cast<int64_t>(result.error_count()));
  for (const auto& [cause, count] : result.errors)
    report.SetCount(absl::StrCat("errors.", cause), count);
  for (const auto& [name, histogram] : result.latency) {
    if (histogram.count() > 0) report.AddHistogram(name, histogram);
  }
  const ClientSeries& series = result.series;
  if (!series.empty()) {
    report.AddSeries("messages_written", NanosToSeconds(series.interval_nanos),
                     NanosToSeconds(series.last_nanos), series.sent);
    report.AddSeries("messages_echoed", NanosToSeconds(series.interval_nanos),
                     NanosToSeconds(series.last_nanos), series.received);
  }

  std::cout << report.ToTable();
  if (result.latency.count("rtt_sampled")) {
    std::cout << "  (stream mode: rtt_sampled times 1 message in 1024, queueing and "
                 "--read_coalesce included)\n";
  }
  if (result.latency.count("rtt_corrected")) {
    std::cout << "  (rtt_corrected: from each message's intended send time, coordinated omission "
                 "corrected; rtt_raw: from its actual send time)\n";
  }
  if (!absl::GetFlag(FLAGS_json).empty()) {
    if (absl::Status written = report.WriteJson(absl::GetFlag(FLAGS_json)); !written.ok()) {
      std::cerr << "echo-client: " << written.message() << "\n";
      result.failure = std::string(written.message());
    }
  }
  std::cout << absl::StrFormat(
      "written: %s msgs in %.3f s, %s msgs/s, %.2f MB/s; echoed %s msgs/s\n",
      FormatCount(static_cast<int64_t>(result.messages_written)), result.elapsed_nanos / 1e9,
      FormatCount(static_cast<int64_t>(rate)), rate * options.size / 1e6,
      FormatCount(static_cast<int64_t>(result.echoed_per_second())));
  std::cout << absl::StrFormat(
      "client CPU: %.3f us/msg (user %.2f s, system %.2f s); %s system calls, %.2f per msg\n",
      result.cpu_nanos_per_message() / 1e3, result.cpu.user_nanos / 1e9,
      result.cpu.system_nanos / 1e9, FormatCount(static_cast<int64_t>(result.system_calls)),
      result.system_calls_per_message());
  if (!result.failure.empty()) std::cerr << "echo-client: " << result.failure << "\n";
  if (!series.empty()) std::cout << "series: " << ClientSeriesJson(series) << "\n";
  std::cout << absl::StrFormat("rate: %.0f msgs/s\n", rate) << std::flush;
  return result.failure.empty() ? 0 : 1;
}

}  // namespace
}  // namespace echo
}  // namespace netbench

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Echo load generator: N connections send the 22-byte write-up message and check every echoed "
      "byte.\n"
      "  echo client --port=7000 --clients=3 --duration=10s [--mode=stream|pingpong|pipeline] "
      "[--rate=N]");
  absl::ParseCommandLine(argc, argv);
  return netbench::echo::Main();
}
