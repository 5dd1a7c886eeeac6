// UTF-8 validation bandwidth (GB/s): ASCII (the fast path), and mixed text with multi-byte
// characters.
//
//   bazel run //websocket:utf8_benchmark
#include <string>

#include "benchmark/benchmark.h"
#include "websocket/utf8.h"

namespace netbench::websocket {
namespace {

void Run(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    Utf8Validator v;
    bool ok = v.Feed(text.data(), text.size()) && v.complete();
    benchmark::DoNotOptimize(ok);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
}

void BM_Utf8Ascii(benchmark::State& state) {
  std::string text;
  while (text.size() < static_cast<size_t>(state.range(0))) text += "hello, world! ";
  text.resize(state.range(0));
  Run(state, text);
}
BENCHMARK(BM_Utf8Ascii)->Arg(13)->Arg(1024)->Arg(64 << 10)->Arg(1 << 20);

// Greek, CJK and emoji between ASCII words: most bytes take the DFA path.
void BM_Utf8Mixed(benchmark::State& state) {
  std::string text;
  while (text.size() < static_cast<size_t>(state.range(0))) {
    text +=
        "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5 \xe4\xb8\x96\xe7\x95\x8c \xf0\x9f\x98\x80 "
        "ok ";
  }
  Run(state, text);
}
BENCHMARK(BM_Utf8Mixed)->Arg(1024)->Arg(64 << 10);

}  // namespace
}  // namespace netbench::websocket
