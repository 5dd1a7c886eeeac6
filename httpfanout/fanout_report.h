// Text and JSON output of a fan-out run: a line per repetition, then a summary of the wall times
// (min, median, mean, std-dev, 95% CI), latency percentiles per phase as hey prints them, status
// codes, and errors by cause with an example of each.
//
//   FanoutReport report(client->options());
//   RepetitionResult rep = client->RunRepetition();
//   std::printf("%s\n", report.Add(rep).c_str());   // "rep 1: 500 ok, 0 failed, ... wall 0.123 s"
//   std::printf("%s", report.Summary().c_str());
//   report.ToRunReport().WriteJson("out.json");
#ifndef NETBENCH_HTTPFANOUT_FANOUT_REPORT_H_
#define NETBENCH_HTTPFANOUT_FANOUT_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/histogram.h"
#include "common/run_report.h"
#include "common/server.h"
#include "httpfanout/fanout_client.h"

namespace netbench {

class FanoutReport {
 public:
  explicit FanoutReport(const FanoutOptions& options, int64_t resolve_nanos = 0);

  // Adds a measured repetition and returns its one-line description.
  std::string Add(const RepetitionResult& rep);

  std::string Summary() const;
  // The requests that failed, one line each (at most `limit`), with the reason.
  std::string Failures(size_t limit = 10) const;
  RunReport ToRunReport() const;

  // The TLS version and cipher, for the summary and the JSON ("" for http).
  void SetTlsDescription(std::string description) { tls_description_ = std::move(description); }

  int64_t failed() const { return failed_; }
  int repetitions() const { return static_cast<int>(walls_.size()); }
  // System calls over requests (ok or failed), every repetition.
  double system_calls_per_message() const;

 private:
  FanoutOptions options_;
  int64_t resolve_nanos_;
  std::string tls_description_;
  std::vector<double> walls_;            // seconds
  std::vector<double> cpu_per_request_;  // microseconds
  int64_t ok_ = 0;
  int64_t failed_ = 0;
  uint64_t body_bytes_ = 0;
  uint64_t bytes_read_ = 0;
  int64_t connections_ = 0;
  uint64_t system_calls_ = 0;
  std::map<int, int64_t> status_counts_;
  std::map<std::string, int64_t> errors_;
  std::map<std::string, std::string> error_examples_;  // cause -> first message
  std::vector<std::string> failures_;                  // "rep R request I: cause: message"
  LatencyHistogram total_, connect_, tls_, write_, ttfb_, body_;
};

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_FANOUT_REPORT_H_
