// Masking bandwidth at the sizes the issue names (13 B, 125 B, 1 KiB, 64 KiB, 1 MiB), for every
// implementation this CPU supports, next to memcpy of the same sizes in the same binary: compare
// the GB/s of BM_MaskCopy/<impl> with BM_Memcpy at each size (the target is >= 50% of memcpy at >=
// 1 KiB).
//
//   bazel run //websocket:mask_benchmark
#include <cstring>
#include <vector>

#include "benchmark/benchmark.h"
#include "websocket/mask.h"

namespace netbench::websocket {
namespace {

void Sizes(benchmark::internal::Benchmark* b) {
  for (int size : {13, 125, 1024, 64 << 10, 1 << 20}) b->Arg(size);
}

void BM_Memcpy(benchmark::State& state) {
  const size_t size = state.range(0);
  std::vector<char> src(size, 'a'), dst(size);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), size);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * size);
}
BENCHMARK(BM_Memcpy)->Apply(Sizes);

// MaskCopy through the run-time dispatch (what the reader and the client use).
void BM_MaskCopy(benchmark::State& state) {
  const size_t size = state.range(0);
  std::vector<char> src(size, 'a'), dst(size);
  for (auto _ : state) {
    MaskCopy(dst.data(), src.data(), size, 0x37fa213d);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * size);
  state.SetLabel(MaskImplName(ActiveMaskImpl()));
}
BENCHMARK(BM_MaskCopy)->Apply(Sizes);

// In place, as a receiver unmasks a payload inside its read buffer.
void BM_MaskInPlace(benchmark::State& state) {
  const size_t size = state.range(0);
  std::vector<char> data(size, 'a');
  for (auto _ : state) {
    Mask(data.data(), size, 0x37fa213d);
    benchmark::DoNotOptimize(data.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * size);
}
BENCHMARK(BM_MaskInPlace)->Apply(Sizes);

void BM_MaskCopyWith(benchmark::State& state, MaskImpl impl) {
  if (!MaskImplSupported(impl)) {
    state.SkipWithError("not supported on this CPU");
    return;
  }
  const size_t size = state.range(0);
  std::vector<char> src(size, 'a'), dst(size);
  for (auto _ : state) {
    MaskCopyWith(impl, dst.data(), src.data(), size, 0x37fa213d);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * size);
}
BENCHMARK_CAPTURE(BM_MaskCopyWith, bytewise, MaskImpl::kBytewise)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_MaskCopyWith, word, MaskImpl::kWord)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_MaskCopyWith, sse2, MaskImpl::kSse2)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_MaskCopyWith, avx2, MaskImpl::kAvx2)->Apply(Sizes);
BENCHMARK_CAPTURE(BM_MaskCopyWith, avx512, MaskImpl::kAvx512)->Apply(Sizes);

}  // namespace
}  // namespace netbench::websocket
