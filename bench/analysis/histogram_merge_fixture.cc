// Writes one run document (common/README.md) with three latency histograms, "a", "b" and their merge by
// LatencyHistogram::Merge as "merged", so that bench/analysis/histogram_merge_test.py can check that the Python
// merge of a and b's stored buckets gives what the C++ gives: the same buckets, counts and percentiles.
//
//   histogram_merge_fixture /tmp/histograms.json
#include <cstdint>
#include <iostream>

#include "common/histogram.h"
#include "common/run_report.h"

namespace {

// A fixed pseudo-random sequence (Knuth's MMIX LCG), so the test needs no seed and every run is the same.
class Sequence {
 public:
  explicit Sequence(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return state_ >> 11;
  }

 private:
  uint64_t state_;
};

// Latencies over many octaves (1 ns to about 17 s) with a cluster, as a real run has, so that the
// percentiles fall into buckets of several widths.
void Fill(netbench::LatencyHistogram& histogram, uint64_t seed, int values) {
  Sequence sequence(seed);
  for (int i = 0; i < values; ++i) {
    uint64_t r = sequence.Next();
    int octave = static_cast<int>(r % 35);
    int64_t value = static_cast<int64_t>((r >> 8) & ((uint64_t{1} << octave) - 1)) + (int64_t{1} << octave) - 1;
    if (i % 3 == 0) value = 20000 + static_cast<int64_t>((r >> 20) % 5000);  // the cluster: 20-25 us
    histogram.RecordN(value, 1 + static_cast<int64_t>(r % 3));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: histogram_merge_fixture OUTPUT.json\n";
    return 2;
  }
  netbench::LatencyHistogram a, b;
  Fill(a, 1, 20000);
  Fill(b, 2, 7000);
  b.Record(int64_t{5} * 3600 * 1000000000);  // beyond the range: counted in overflow_count
  netbench::LatencyHistogram merged = a;
  merged.Merge(b);

  netbench::RunReport report("histogram-merge-fixture", "two histograms and their merge");
  report.AddHistogram("a", a);
  report.AddHistogram("b", b);
  report.AddHistogram("merged", merged);
  if (absl::Status status = report.WriteJson(argv[1]); !status.ok()) {
    std::cerr << status << "\n";
    return 1;
  }
  return 0;
}
