#include "common/sample_summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace netbench {

double StudentT95(size_t degrees_of_freedom) {
  // Two-sided 95% quantiles, t(0.975, df), for df = 1..30; beyond that the next table rows, then the normal.
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (degrees_of_freedom == 0) return INFINITY;
  if (degrees_of_freedom <= 30) return kTable[degrees_of_freedom - 1];
  if (degrees_of_freedom <= 40) return 2.021;
  if (degrees_of_freedom <= 60) return 2.000;
  if (degrees_of_freedom <= 120) return 1.980;
  return 1.960;
}

SampleSummary Summarize(std::vector<double> samples) {
  SampleSummary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  size_t mid = samples.size() / 2;
  s.median = samples.size() % 2 == 1 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
  if (samples.size() >= 2) {
    double squares = 0;
    for (double x : samples) squares += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(squares / (samples.size() - 1));
    double half_width = StudentT95(samples.size() - 1) * s.stddev / std::sqrt(samples.size());
    s.ci95_low = s.mean - half_width;
    s.ci95_high = s.mean + half_width;
  } else {
    s.ci95_low = s.ci95_high = s.mean;
  }
  return s;
}

}  // namespace netbench
