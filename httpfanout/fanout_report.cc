#include "httpfanout/fanout_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/sample_summary.h"

namespace netbench {

FanoutReport::FanoutReport(const FanoutOptions& options, int64_t resolve_nanos)
    : options_(options), resolve_nanos_(resolve_nanos) {}

std::string FanoutReport::Add(const RepetitionResult& rep) {
  const int rep_number = static_cast<int>(walls_.size()) + 1;
  walls_.push_back(NanosToSeconds(rep.wall_nanos));
  const int requests = rep.ok + rep.failed;
  const double cpu_us = requests > 0 ? rep.cpu_nanos / 1e3 / requests : 0;
  cpu_per_request_.push_back(cpu_us);
  ok_ += rep.ok;
  failed_ += rep.failed;
  body_bytes_ += rep.body_bytes;
  bytes_read_ += rep.bytes_read;
  connections_ += rep.connections_opened;
  system_calls_ += rep.system_calls;
  for (const auto& [status, count] : rep.status_counts) status_counts_[status] += count;
  for (const auto& [cause, count] : rep.errors) errors_[cause] += count;
  for (size_t i = 0; i < rep.outcomes.size(); ++i) {
    const RequestOutcome& outcome = rep.outcomes[i];
    if (outcome.ok) continue;
    error_examples_.emplace(outcome.error.cause, outcome.error.message);
    if (failures_.size() < 1000) {
      failures_.push_back(absl::StrFormat("rep %d request %d: %s: %s", rep_number, i,
                                          outcome.error.cause, outcome.error.message));
    }
  }
  total_.Merge(rep.total);
  connect_.Merge(rep.connect);
  tls_.Merge(rep.tls);
  write_.Merge(rep.write);
  ttfb_.Merge(rep.ttfb);
  body_.Merge(rep.body);
  return absl::StrFormat(
      "rep %d: %d ok, %d failed, %s body bytes, %d connections, wall %.3f s, cpu %.1f us/request, "
      "%.1f system calls/request",
      rep_number, rep.ok, rep.failed, FormatCount(rep.body_bytes), rep.connections_opened,
      NanosToSeconds(rep.wall_nanos), cpu_us,
      requests > 0 ? static_cast<double>(rep.system_calls) / requests : 0.0);
}

double FanoutReport::system_calls_per_message() const {
  const int64_t requests = ok_ + failed_;
  return requests > 0 ? static_cast<double>(system_calls_) / requests : 0.0;
}

std::string FanoutReport::Summary() const {
  std::string out;
  SampleSummary wall = Summarize(walls_);
  SampleSummary cpu = Summarize(cpu_per_request_);
  absl::StrAppendFormat(
      &out,
      "%s %s x%d (%s, %d in flight%s): wall min %.3f s, median %.3f s, mean %.3f s, "
      "std-dev %.3f s, 95%% CI %.3f..%.3f s over %d repetitions\n",
      ServerModelName(options_.model), options_.url.ToString(), options_.requests,
      options_.url.scheme_name(),
      options_.concurrency <= 0 ? options_.requests
                                : std::min(options_.concurrency, options_.requests),
      options_.keepalive ? ", keep-alive" : "", wall.min, wall.median, wall.mean, wall.stddev,
      wall.ci95_low, wall.ci95_high, static_cast<int>(wall.count));
  absl::StrAppendFormat(&out, "client cpu per request: median %.1f us (min %.1f, max %.1f)\n",
                        cpu.median, cpu.min, cpu.max);
  absl::StrAppendFormat(&out, "name resolution: %s once for all requests\n",
                        FormatNanos(resolve_nanos_));
  if (!tls_description_.empty()) absl::StrAppendFormat(&out, "tls: %s\n", tls_description_);
  absl::StrAppendFormat(&out,
                        "%s requests ok, %s failed, %s body bytes, %s bytes read, %s connections, "
                        "%s system calls (%.2f per request)\n",
                        FormatCount(ok_), FormatCount(failed_), FormatCount(body_bytes_),
                        FormatCount(bytes_read_), FormatCount(connections_),
                        FormatCount(system_calls_), system_calls_per_message());
  absl::StrAppendFormat(&out, "latency per request   %10s %10s %10s %10s %10s %10s\n", "p50", "p90",
                        "p99", "max", "mean", "count");
  auto row = [&](const char* name, const LatencyHistogram& h) {
    if (h.count() == 0) return;
    absl::StrAppendFormat(
        &out, "  %-19s %10s %10s %10s %10s %10s %10s\n", name, FormatNanos(h.ValueAtPercentile(50)),
        FormatNanos(h.ValueAtPercentile(90)), FormatNanos(h.ValueAtPercentile(99)),
        FormatNanos(h.max()), FormatNanos(h.mean()), FormatCount(h.count()));
  };
  row("total", total_);
  row("connect", connect_);
  row("tls handshake", tls_);
  row("request write", write_);
  row("wait (ttfb)", ttfb_);
  row("body read", body_);
  out += "status codes:";
  if (status_counts_.empty()) out += " none";
  for (const auto& [status, count] : status_counts_)
    absl::StrAppendFormat(&out, " [%d] %s", status, FormatCount(count));
  out += "\n";
  if (!errors_.empty()) {
    out += "errors by cause:\n";
    for (const auto& [cause, count] : errors_) {
      auto example = error_examples_.find(cause);
      absl::StrAppendFormat(&out, "  %-24s %8s  e.g. %s\n", cause, FormatCount(count),
                            example == error_examples_.end() ? "" : example->second);
    }
  }
  return out;
}

std::string FanoutReport::Failures(size_t limit) const {
  std::string out;
  for (size_t i = 0; i < failures_.size() && i < limit; ++i)
    absl::StrAppend(&out, failures_[i], "\n");
  if (failures_.size() > limit)
    absl::StrAppend(&out, "... and ", failed_ - static_cast<int64_t>(limit), " more\n");
  return out;
}

RunReport FanoutReport::ToRunReport() const {
  RunReport report("httpfanout-fanout", ServerModelName(options_.model));
  report.SetParam("url", options_.url.ToString());
  report.SetParam("requests", int64_t{options_.requests});
  report.SetParam("concurrency", int64_t{options_.concurrency});
  report.SetParam("keepalive", options_.keepalive);
  report.SetParam("https", options_.url.tls());
  if (!tls_description_.empty()) report.SetParam("tls", tls_description_);
  report.SetParam("timeout_s", NanosToSeconds(options_.timeout_nanos));
  report.SetParam("connect_timeout_s", NanosToSeconds(options_.connect_timeout_nanos));
  report.AddSamples("wall", walls_, "s");
  report.AddSamples("cpu_per_request", cpu_per_request_, "us");
  SampleSummary wall = Summarize(walls_);
  SampleSummary cpu = Summarize(cpu_per_request_);
  report.SetMetric("wall_median", wall.median, "s");
  report.SetMetric("wall_min", wall.min, "s");
  report.SetMetric("cpu_per_request_median", cpu.median, "us");
  report.SetMetric("resolve", resolve_nanos_ / 1e3, "us");
  report.SetMetric("system_calls_per_message", system_calls_per_message(), "1/msg");
  report.SetCount("requests_ok", ok_);
  report.SetCount("requests_failed", failed_);
  report.SetCount("body_bytes", static_cast<int64_t>(body_bytes_));
  report.SetCount("bytes_read", static_cast<int64_t>(bytes_read_));
  report.SetCount("connections", connections_);
  report.SetCount("system_calls", static_cast<int64_t>(system_calls_));
  for (const auto& [status, count] : status_counts_)
    report.SetCount(absl::StrCat("status.", status), count);
  for (const auto& [cause, count] : errors_) report.SetCount(absl::StrCat("errors.", cause), count);
  report.AddHistogram("total", total_);
  report.AddHistogram("connect", connect_);
  report.AddHistogram("tls_handshake", tls_);
  report.AddHistogram("request_write", write_);
  report.AddHistogram("ttfb", ttfb_);
  report.AddHistogram("body", body_);
  return report;
}

}  // namespace netbench
