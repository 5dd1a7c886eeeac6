// The result of one run of a netbench program: what ran (program, variant, parameters), what it
// measured (metrics, counts, latency histograms, repeated samples, counts over time) and where (the
// environment), printed as a human table and written as one JSON document. The schema is described
// in common/README.md.
//
//   RunReport report("echo-client", "stream");
//   report.SetParam("clients", int64_t{3});
//   report.SetMetric("msgs_per_s", 1.23e5, "1/s");
//   report.SetCount("errors.ECONNRESET", 0);
//   report.AddHistogram("rtt", histogram);
//   std::cout << report.ToTable();
//   if (!flag_json.empty()) CHECK_OK(report.WriteJson(flag_json));
#ifndef NETBENCH_COMMON_RUN_REPORT_H_
#define NETBENCH_COMMON_RUN_REPORT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/histogram.h"

namespace netbench {

inline constexpr char kRunReportSchema[] = "netbench.run/1";

class RunReport {
 public:
  RunReport(std::string program, std::string variant);

  void SetParam(const std::string& key, std::string value);
  void SetParam(const std::string& key, const char* value) { SetParam(key, std::string(value)); }
  void SetParam(const std::string& key, int64_t value);
  void SetParam(const std::string& key, int value) { SetParam(key, int64_t{value}); }
  void SetParam(const std::string& key, double value);
  void SetParam(const std::string& key, bool value);

  // A measured figure with its unit ("1/s", "s", "us", "B/s", "ns"). Setting a key again replaces
  // it.
  void SetMetric(const std::string& key, double value, const std::string& unit);
  // An event count: messages, bytes, errors by cause ("errors.ECONNREFUSED").
  void SetCount(const std::string& key, int64_t value);
  // Latency in nanoseconds: percentiles, mean, stddev and every bucket (so runs can be merged
  // exactly).
  void AddHistogram(const std::string& name, const LatencyHistogram& histogram);
  // Repeated measurements (one per repetition): the values and their SampleSummary.
  void AddSamples(const std::string& name, const std::vector<double>& samples,
                  const std::string& unit);
  // Events per interval over the run (messages sent in each 0.1 s): every interval `interval_s`
  // long but the last, which is `last_s`. A run's rate over time, to find its warm-up and its
  // steady state.
  void AddSeries(const std::string& name, double interval_s, double last_s,
                 std::vector<uint64_t> values);
  // A library version beside the ones CollectEnvironment finds (BoringSSL's, say).
  void AddLibraryVersion(const std::string& name, const std::string& version);

  std::string ToJson() const;
  absl::Status WriteJson(const std::string& path) const;
  std::string ToTable() const;

 private:
  struct Param {
    std::string key;
    std::string json;  // the value as a JSON literal
    std::string text;  // the value as a person reads it
  };
  struct Metric {
    std::string key;
    double value;
    std::string unit;
  };
  struct Samples {
    std::string name;
    std::vector<double> values;
    std::string unit;
  };
  struct Series {
    std::string name;
    double interval_s;
    double last_s;
    std::vector<uint64_t> values;
  };

  std::string program_;
  std::string variant_;
  std::vector<Param> params_;
  std::vector<Metric> metrics_;
  std::vector<std::pair<std::string, int64_t>> counts_;
  std::vector<std::pair<std::string, LatencyHistogram>> histograms_;
  std::vector<Samples> samples_;
  std::vector<Series> series_;
  std::vector<std::pair<std::string, std::string>> extra_libraries_;
};

// "850 ns", "12.3 us", "4.56 ms", "1.234 s".
std::string FormatNanos(double nanos);
// "1,234,567".
std::string FormatCount(int64_t value);

}  // namespace netbench

#endif  // NETBENCH_COMMON_RUN_REPORT_H_
