// How long LatencyHistogram::Record takes: the cost every measured message pays.
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/histogram.h"

namespace netbench {
namespace {

// Records realistic round-trip times (log-normal around 50 us) cycling through a pre-generated array, so
// that the random number generator is not what is measured.
void BM_HistogramRecord(benchmark::State& state) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(std::log(50e3), 1.5);
  std::vector<int64_t> values(4096);
  for (int64_t& v : values) v = static_cast<int64_t>(dist(rng));
  LatencyHistogram histogram;
  size_t i = 0;
  for (auto _ : state) {
    histogram.Record(values[i++ & 4095]);
  }
  benchmark::DoNotOptimize(histogram.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

void BM_HistogramPercentile(benchmark::State& state) {
  LatencyHistogram histogram;
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(std::log(50e3), 1.5);
  for (int i = 0; i < 1000000; ++i) histogram.Record(static_cast<int64_t>(dist(rng)));
  for (auto _ : state) benchmark::DoNotOptimize(histogram.ValueAtPercentile(99.9));
}
BENCHMARK(BM_HistogramPercentile);

void BM_HistogramMerge(benchmark::State& state) {
  LatencyHistogram a, b;
  for (int i = 1; i < 100000; ++i) b.Record(i * 37);
  for (auto _ : state) a.Merge(b);
  benchmark::DoNotOptimize(a.count());
}
BENCHMARK(BM_HistogramMerge);

}  // namespace
}  // namespace netbench
