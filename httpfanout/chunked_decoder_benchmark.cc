// Microbenchmarks of chunked decoding: a 25,600-byte body (the default page size) in chunks of
// various sizes. Zero-copy decoding (views into the input, as the fan-out client uses it) and
// decoding into one contiguous buffer (what picohttpparser's in-place phr_decode_chunked amounts
// to).
//
//   bazel run -c opt //httpfanout:chunked_decoder_benchmark
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "httpfanout/chunked_decoder.h"

namespace netbench {
namespace {

constexpr size_t kBodyBytes = 25600;

// The body split into chunks of `chunk_size`, each with a short extension on every fourth, and a
// trailer.
std::string EncodeChunked(size_t chunk_size) {
  std::string out;
  size_t offset = 0;
  int index = 0;
  while (offset < kBodyBytes) {
    size_t n = std::min(chunk_size, kBodyBytes - offset);
    out += absl::StrFormat("%x%s\r\n", n, index++ % 4 == 3 ? ";ext=1" : "");
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>('a' + (offset + i) % 26));
    out += "\r\n";
    offset += n;
  }
  out += "0\r\nX-Trailer: done\r\n\r\n";
  return out;
}

void BM_DecodeChunked_25KB_ZeroCopy(benchmark::State& state) {
  const std::string encoded = EncodeChunked(static_cast<size_t>(state.range(0)));
  ChunkedDecoder decoder;
  for (auto _ : state) {
    decoder.Reset();
    size_t bytes = 0;
    ptrdiff_t n = decoder.DecodeAll(encoded, [&](absl::string_view data) {
      benchmark::DoNotOptimize(data.data());
      bytes += data.size();
    });
    benchmark::DoNotOptimize(n);
    if (bytes != kBodyBytes || !decoder.done()) state.SkipWithError("decoding failed");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kBodyBytes);
}
BENCHMARK(BM_DecodeChunked_25KB_ZeroCopy)->Arg(512)->Arg(1024)->Arg(4096)->Arg(8192)->Arg(25600);

void BM_DecodeChunked_25KB_Contiguous(benchmark::State& state) {
  const std::string encoded = EncodeChunked(static_cast<size_t>(state.range(0)));
  std::vector<char> body(kBodyBytes);
  ChunkedDecoder decoder;
  for (auto _ : state) {
    decoder.Reset();
    char* out = body.data();
    decoder.DecodeAll(encoded, [&](absl::string_view data) {
      std::memcpy(out, data.data(), data.size());
      out += data.size();
    });
    benchmark::DoNotOptimize(body.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kBodyBytes);
}
BENCHMARK(BM_DecodeChunked_25KB_Contiguous)->Arg(1024)->Arg(8192)->Arg(25600);

}  // namespace
}  // namespace netbench
