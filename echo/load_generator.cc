#include "echo/load_generator.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "common/client_driver.h"
#include "common/socket.h"
#include "echo/echo_session.h"

namespace netbench {
namespace echo {

absl::StatusOr<LoadMode> ParseLoadMode(absl::string_view name) {
  if (name == "stream") return LoadMode::kStream;
  if (name == "pingpong" || name == "pipeline") return LoadMode::kPipeline;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown mode \"", name, "\" (want stream, pingpong or pipeline)"));
}

const char* LoadModeName(LoadMode mode) {
  return mode == LoadMode::kStream ? "stream" : "pipeline";
}

int ReadCoalesceBytes(const LoadOptions& options) {
  return options.mode == LoadMode::kStream && options.rate <= 0 ? options.read_coalesce_bytes : 0;
}

absl::Status ValidateLoadOptions(const LoadOptions& o) {
  if (o.port < 1 || o.port > 65535) return absl::InvalidArgumentError("--port must be in 1..65535");
  if (o.clients < 1 || o.clients > 100000)
    return absl::InvalidArgumentError("--clients must be in 1..100000");
  if (o.messages < 0) return absl::InvalidArgumentError("--messages must be >= 0");
  if (o.messages == 0 && o.duration_nanos <= 0) {
    return absl::InvalidArgumentError("--duration must be positive (or give --messages)");
  }
  if (o.warmup_nanos < 0) return absl::InvalidArgumentError("--warmup must be >= 0");
  if (o.messages > 0 && o.warmup_nanos > 0) {
    return absl::InvalidArgumentError(
        "--warmup applies to --duration runs, not to --messages runs");
  }
  if (o.size < 1 || o.size > (16 << 20))
    return absl::InvalidArgumentError("--size must be in 1..16777216");
  if (o.batch < 1 || o.batch > 65536)
    return absl::InvalidArgumentError("--batch must be in 1..65536");
  if (o.pipeline < 1 || o.pipeline > 65536)
    return absl::InvalidArgumentError("--pipeline must be in 1..65536");
  if (static_cast<int64_t>(std::max(o.batch, o.pipeline)) * o.size > (64 << 20)) {
    return absl::InvalidArgumentError(
        "--size times --batch (or --pipeline) must stay within 64 MiB");
  }
  if (o.mode == LoadMode::kPipeline && o.batch != 1) {
    return absl::InvalidArgumentError(
        "--batch applies to --mode=stream; pipeline mode writes what is due");
  }
  if (o.rate < 0) return absl::InvalidArgumentError("--rate must be >= 0");
  if (o.rate > 0 && o.mode != LoadMode::kStream) {
    return absl::InvalidArgumentError("--rate is open loop: use it with --mode=stream");
  }
  if (o.read_coalesce_bytes < 0 || o.read_coalesce_bytes > (1 << 20)) {
    return absl::InvalidArgumentError("--read_coalesce must be in 0..1048576 bytes");
  }
  if (o.threads < 1 || o.threads > 1024)
    return absl::InvalidArgumentError("--threads must be in 1..1024");
  if (o.drain_timeout_nanos < 0 || o.timeout_nanos < 0) {
    return absl::InvalidArgumentError("--drain_timeout and --timeout must be >= 0");
  }
  if (o.series_interval_nanos != 0 && o.series_interval_nanos < kMinSeriesIntervalNanos) {
    return absl::InvalidArgumentError("--series_interval must be 0 (no series) or at least 10ms");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> AgreeRunTimeout(FlagSetting timeout, FlagSetting duration,
                                            LoadOptions& options) {
  if (options.timeout_nanos <= 0 || options.messages > 0) return std::string();
  timeout.value = options.timeout_nanos;
  duration.value = options.duration_nanos;
  const int64_t around = options.warmup_nanos + options.drain_timeout_nanos;
  const auto seconds = [](int64_t nanos) { return absl::FormatDuration(absl::Nanoseconds(nanos)); };
  absl::StatusOr<BoundAgreement> agreed = AgreeBound(
      timeout, duration,
      {.needed = around + options.duration_nanos,
       .held = options.timeout_nanos - around,
       .why = absl::StrCat("a run lasts --warmup + --duration + --drain_timeout, ",
                           seconds(options.warmup_nanos), " + ", seconds(options.duration_nanos),
                           " + ", seconds(options.drain_timeout_nanos))});
  if (!agreed.ok()) return agreed.status();
  options.duration_nanos = agreed->bounded;
  return agreed->note;
}

uint64_t LoadResult::error_count() const {
  uint64_t total = 0;
  for (const auto& [cause, count] : errors) total += static_cast<uint64_t>(count);
  return total;
}

double LoadResult::written_per_second() const {
  return elapsed_nanos > 0 ? static_cast<double>(messages_written) * 1e9 / elapsed_nanos : 0.0;
}

double LoadResult::echoed_per_second() const {
  return elapsed_nanos > 0 ? static_cast<double>(messages_echoed) * 1e9 / elapsed_nanos : 0.0;
}

double LoadResult::system_calls_per_message() const {
  return total_written > 0 ? static_cast<double>(system_calls) / total_written : 0.0;
}

double LoadResult::cpu_nanos_per_message() const {
  return messages_written > 0 ? static_cast<double>(cpu.total_nanos()) / messages_written : 0.0;
}

namespace {

int64_t RunTimeout(const LoadOptions& options) {
  if (options.timeout_nanos > 0) return options.timeout_nanos;
  if (options.messages > 0) return 120 * kNanosPerSecond;
  return options.warmup_nanos + options.duration_nanos + options.drain_timeout_nanos +
         10 * kNanosPerSecond;
}

}  // namespace

LoadResult RunLoad(const LoadOptions& options) {
  LoadResult result;
  if (absl::Status valid = ValidateLoadOptions(options); !valid.ok()) {
    result.failure = std::string(valid.message());
    return result;
  }
  absl::StatusOr<std::vector<SocketAddress>> addresses = Resolve(options.host, options.port);
  if (!addresses.ok() || addresses->empty()) {
    ++result.errors["resolve"];
    result.failure = absl::StrCat("cannot resolve ", options.host, ": ",
                                  addresses.ok() ? "no address" : addresses.status().message());
    return result;
  }

  ClientDriverOptions driver;
  driver.address = addresses->front();
  driver.connections = options.clients;
  driver.model = options.model;
  driver.threads = options.threads;
  driver.no_delay = options.no_delay;
  driver.tls = options.tls;
  driver.server_name = options.host;
  driver.warmup_nanos = options.warmup_nanos;
  driver.duration_nanos = options.messages > 0 ? 0 : options.duration_nanos;
  driver.drain_timeout_nanos = options.drain_timeout_nanos;
  driver.timeout_nanos = RunTimeout(options);
  driver.series_interval_nanos = options.series_interval_nanos;
  if (options.progress) {
    driver.progress = [&options](const ClientProgress& p) {
      options.progress({.elapsed_nanos = p.elapsed_nanos,
                        .written_per_second = p.sent_per_second,
                        .echoed_per_second = p.received_per_second,
                        .written_total = p.sent_total,
                        .echoed_total = p.received_total});
    };
  }
  const EchoRun run(options, options.clients);
  ClientDriverResult run_result = RunClientDriver(
      driver, [&run](const SessionContext& context) { return MakeEchoSession(run, context); });

  result.connections = run_result.reached[static_cast<int>(ConnectionPhase::kOpen)];
  result.elapsed_nanos = run_result.elapsed_nanos;
  result.messages_written = run_result.sent;
  result.messages_echoed = run_result.received;
  result.total_written = run_result.total_sent;
  result.total_echoed = run_result.total_received;
  result.cpu = run_result.cpu;
  result.series = std::move(run_result.series);
  result.write_stalls = run_result.stats.write_stalls;
  result.system_calls = run_result.stats.system_calls;
  result.latency = std::move(run_result.stats.latency);
  if (result.latency.empty()) {
    ClientStats histograms;
    AddLatencyHistograms(options, histograms);
    result.latency = std::move(histograms.latency);
  }
  result.errors = std::move(run_result.stats.errors);
  // Connections the drain timeout ended are not errors of their own: their missing echoes are.
  if (auto it = result.errors.find("drain_timeout"); it != result.errors.end()) {
    result.aborted_connections = static_cast<int>(it->second);
    result.errors.erase(it);
  }
  // The deadline is one event for the run, however many connections it cut short.
  if (auto it = result.errors.find("timeout"); it != result.errors.end()) {
    result.aborted_connections += static_cast<int>(it->second);
    it->second = 1;
  }
  if (!run_result.ok() && result.connections < options.clients) {
    result.failure = run_result.failure;  // what stopped the connections opening, and where
  } else if (result.error_count() > 0) {
    result.failure = absl::StrCat("the server misbehaved or the run was cut short: ",
                                  DescribeErrorCounts(result.errors));
    if (run_result.timed_out) absl::StrAppend(&result.failure, " (", run_result.failure, ")");
  }
  return result;
}

}  // namespace echo
}  // namespace netbench
