// Statistics of repeated samples (one wall time per repetition, one msgs/s per run), as criterium and
// `go test -bench` report them: min, median, mean, standard deviation, max and a 95% confidence interval of
// the mean from Student's t distribution (right for the 3 to 30 samples benchmarks take).
//
//   SampleSummary s = Summarize({0.181, 0.176, 0.190});
//   absl::PrintF("%.3f s (95%% CI %.3f..%.3f)\n", s.median, s.ci95_low, s.ci95_high);
#ifndef NETBENCH_COMMON_SAMPLE_SUMMARY_H_
#define NETBENCH_COMMON_SAMPLE_SUMMARY_H_

#include <cstddef>
#include <vector>

namespace netbench {

struct SampleSummary {
  size_t count = 0;
  double min = 0;
  double median = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 for fewer than two samples
  double max = 0;
  double ci95_low = 0;  // mean -/+ t(0.975, n - 1) * stddev / sqrt(n); equal to the mean for n < 2
  double ci95_high = 0;
};

SampleSummary Summarize(std::vector<double> samples);

// The two-sided 95% critical value of Student's t with `degrees_of_freedom` (>= 1).
double StudentT95(size_t degrees_of_freedom);

}  // namespace netbench

#endif  // NETBENCH_COMMON_SAMPLE_SUMMARY_H_
