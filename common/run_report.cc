#include "common/run_report.h"

#include <errno.h>

#include <cmath>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/environment.h"
#include "common/errno_status.h"
#include "common/json_writer.h"
#include "common/sample_summary.h"

namespace netbench {
namespace {

constexpr double kReportedPercentiles[] = {50, 90, 99, 99.9, 99.99};

template <typename T>
void Upsert(std::vector<T>& items, T item) {
  for (T& existing : items) {
    if (existing.key == item.key) {
      existing = std::move(item);
      return;
    }
  }
  items.push_back(std::move(item));
}

std::string PercentileKey(double percentile) { return absl::StrFormat("%g", percentile); }

}  // namespace

std::string FormatNanos(double nanos) {
  double magnitude = std::fabs(nanos);
  if (magnitude < 1e3) return absl::StrFormat("%.0f ns", nanos);
  if (magnitude < 1e6) return absl::StrFormat("%.3g us", nanos / 1e3);
  if (magnitude < 1e9) return absl::StrFormat("%.3g ms", nanos / 1e6);
  return absl::StrFormat("%.4g s", nanos / 1e9);
}

std::string FormatCount(int64_t value) {
  std::string digits = absl::StrCat(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return value < 0 ? "-" + out : out;
}

RunReport::RunReport(std::string program, std::string variant)
    : program_(std::move(program)), variant_(std::move(variant)) {}

void RunReport::SetParam(const std::string& key, std::string value) {
  Upsert(params_, Param{key, JsonWriter::Escape(value), value});
}

void RunReport::SetParam(const std::string& key, int64_t value) {
  Upsert(params_, Param{key, absl::StrCat(value), absl::StrCat(value)});
}

void RunReport::SetParam(const std::string& key, double value) {
  std::string json = JsonWriter().Number(value).Take();
  Upsert(params_, Param{key, json, absl::StrFormat("%g", value)});
}

void RunReport::SetParam(const std::string& key, bool value) {
  Upsert(params_, Param{key, value ? "true" : "false", value ? "true" : "false"});
}

void RunReport::SetMetric(const std::string& key, double value, const std::string& unit) {
  Upsert(metrics_, Metric{key, value, unit});
}

void RunReport::SetCount(const std::string& key, int64_t value) {
  for (auto& [existing, count] : counts_) {
    if (existing == key) {
      count = value;
      return;
    }
  }
  counts_.emplace_back(key, value);
}

void RunReport::AddHistogram(const std::string& name, const LatencyHistogram& histogram) {
  histograms_.emplace_back(name, histogram);
}

void RunReport::AddSamples(const std::string& name, const std::vector<double>& samples,
                           const std::string& unit) {
  samples_.push_back(Samples{name, samples, unit});
}

void RunReport::AddSeries(const std::string& name, double interval_s, double last_s,
                          std::vector<uint64_t> values) {
  series_.push_back(Series{name, interval_s, last_s, std::move(values)});
}

void RunReport::AddLibraryVersion(const std::string& name, const std::string& version) {
  extra_libraries_.emplace_back(name, version);
}

std::string RunReport::ToJson() const {
  JsonWriter json;
  json.BeginObject();
  json.Key("schema").String(kRunReportSchema);
  json.Key("program").String(program_);
  json.Key("variant").String(variant_);

  json.Key("params").BeginObject();
  for (const Param& param : params_) json.Key(param.key).Raw(param.json);
  json.EndObject();

  json.Key("metrics").BeginObject();
  for (const Metric& metric : metrics_) {
    json.Key(metric.key).BeginObject();
    json.Key("value").Number(metric.value);
    json.Key("unit").String(metric.unit);
    json.EndObject();
  }
  json.EndObject();

  json.Key("counts").BeginObject();
  for (const auto& [key, value] : counts_) json.Key(key).Int(value);
  json.EndObject();

  json.Key("histograms").BeginObject();
  for (const auto& [name, h] : histograms_) {
    json.Key(name).BeginObject();
    json.Key("unit").String("ns");
    json.Key("count").Int(h.count());
    json.Key("min").Int(h.min());
    json.Key("max").Int(h.max());
    json.Key("mean").Number(h.mean());
    json.Key("stddev").Number(h.stddev());
    json.Key("percentiles").BeginObject();
    for (double p : kReportedPercentiles) json.Key(PercentileKey(p)).Int(h.ValueAtPercentile(p));
    json.EndObject();
    json.Key("overflow_count").Int(h.overflow_count());
    json.Key("highest_trackable").Int(h.highest_trackable());
    json.Key("significant_digits").Int(LatencyHistogram::kSignificantDigits);
    // [lowest value of the bucket, count] for every non-empty bucket.
    json.Key("buckets").BeginArray();
    h.ForEachBucket([&json](int64_t value, int64_t count) {
      json.Raw(absl::StrCat("[", value, ", ", count, "]"));
    });
    json.EndArray();
    json.EndObject();
  }
  json.EndObject();

  json.Key("samples").BeginObject();
  for (const Samples& samples : samples_) {
    SampleSummary s = Summarize(samples.values);
    json.Key(samples.name).BeginObject();
    json.Key("unit").String(samples.unit);
    json.Key("values").BeginArray();
    for (double v : samples.values) json.Number(v);
    json.EndArray();
    json.Key("count").Int(static_cast<int64_t>(s.count));
    json.Key("min").Number(s.min);
    json.Key("median").Number(s.median);
    json.Key("mean").Number(s.mean);
    json.Key("stddev").Number(s.stddev);
    json.Key("max").Number(s.max);
    json.Key("ci95").BeginArray().Number(s.ci95_low).Number(s.ci95_high).EndArray();
    json.EndObject();
  }
  json.EndObject();

  json.Key("series").BeginObject();
  for (const Series& series : series_) {
    json.Key(series.name).BeginObject();
    json.Key("interval_s").Number(series.interval_s);
    json.Key("last_s").Number(series.last_s);
    // On one line: a long run has thousands of intervals.
    json.Key("values").Raw(absl::StrCat("[", absl::StrJoin(series.values, ", "), "]"));
    json.EndObject();
  }
  json.EndObject();

  Environment env = CollectEnvironment();
  json.Key("environment").BeginObject();
  json.Key("os").String(env.os);
  json.Key("os_release").String(env.os_release);
  json.Key("kernel").String(env.kernel);
  json.Key("machine").String(env.machine);
  json.Key("hostname").String(env.hostname);
  json.Key("cpu_model").String(env.cpu_model);
  json.Key("cores").Int(env.cores);
  json.Key("cores_available").Int(env.cores_available);
  json.Key("compiler").String(env.compiler);
  json.Key("build_mode").String(env.build_mode);
  json.Key("libraries").BeginObject();
  for (const auto& [name, version] : env.libraries) json.Key(name).String(version);
  for (const auto& [name, version] : extra_libraries_) json.Key(name).String(version);
  json.EndObject();
  if (env.git_commit.empty()) {
    json.Key("git_commit").Null();
  } else {
    json.Key("git_commit").String(env.git_commit);
  }
  json.Key("timestamp_utc").String(env.timestamp_utc);
  json.EndObject();

  json.EndObject();
  std::string text = json.Take();
  text.push_back('\n');
  return text;
}

absl::Status RunReport::WriteJson(const std::string& path) const {
  std::string text = ToJson();
  std::ofstream file(path, std::ios::out | std::ios::trunc);
  if (!file) return ErrnoStatus(errno, absl::StrCat("open ", path));
  file << text;
  file.close();
  if (!file) return ErrnoStatus(errno, absl::StrCat("write ", path));
  return absl::OkStatus();
}

std::string RunReport::ToTable() const {
  std::string out =
      absl::StrCat(program_, variant_.empty() ? "" : absl::StrCat(" (", variant_, ")"), "\n");
  if (!params_.empty()) {
    absl::StrAppend(&out, "  params:");
    for (const Param& param : params_) absl::StrAppend(&out, " ", param.key, "=", param.text);
    absl::StrAppend(&out, "\n");
  }
  for (const Metric& metric : metrics_) {
    absl::StrAppend(&out,
                    absl::StrFormat("  %-28s %16.6g %s\n", metric.key, metric.value, metric.unit));
  }
  for (const auto& [key, value] : counts_) {
    absl::StrAppend(&out, absl::StrFormat("  %-28s %16s\n", key, FormatCount(value)));
  }
  for (const auto& [name, h] : histograms_) {
    absl::StrAppend(&out, absl::StrFormat("  %s latency (%s samples): mean %s, stddev %s\n", name,
                                          FormatCount(h.count()), FormatNanos(h.mean()),
                                          FormatNanos(h.stddev())));
    absl::StrAppend(&out, "   ");
    for (double p : kReportedPercentiles) {
      absl::StrAppend(&out, " p", PercentileKey(p), " ", FormatNanos(h.ValueAtPercentile(p)));
    }
    absl::StrAppend(&out, " max ", FormatNanos(h.max()));
    if (h.overflow_count() > 0) absl::StrAppend(&out, " (", h.overflow_count(), " over range)");
    absl::StrAppend(&out, "\n");
  }
  for (const Samples& samples : samples_) {
    SampleSummary s = Summarize(samples.values);
    absl::StrAppend(
        &out, absl::StrFormat("  %s over %d samples: median %.4g %s, min %.4g, max %.4g, mean %.4g "
                              "+- %.3g (95%% CI %.4g..%.4g)\n",
                              samples.name, s.count, s.median, samples.unit, s.min, s.max, s.mean,
                              s.stddev, s.ci95_low, s.ci95_high));
  }
  for (const Series& series : series_) {
    uint64_t total = 0;
    for (uint64_t value : series.values) total += value;
    absl::StrAppend(
        &out, absl::StrFormat("  %s over %d intervals of %g s (the last %g s): %s in all\n",
                              series.name, series.values.size(), series.interval_s, series.last_s,
                              FormatCount(static_cast<int64_t>(total))));
  }
  return out;
}

}  // namespace netbench
