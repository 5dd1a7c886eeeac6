// Frame header parse and serialize (ns per header), and the full, validating read of a stream of
// small client frames ("hello, world!", as the write-up sent): header checks only
// (BM_ParseSmallFrameStream, the < 3 ns/frame target) and the whole MessageReader path with
// unmasking and UTF-8 validation.
//
//   bazel run //websocket:frame_benchmark
#include <cstring>
#include <string>

#include "benchmark/benchmark.h"
#include "common/byte_buffer.h"
#include "websocket/frame_parser.h"
#include "websocket/frame_writer.h"
#include "websocket/mask.h"
#include "websocket/mask_key_source.h"
#include "websocket/message_reader.h"

namespace netbench::websocket {
namespace {

constexpr absl::string_view kHello = "hello, world!";

std::string SmallFrameStream(int frames) {
  ByteBuffer out;
  MaskKeySource keys;
  for (int i = 0; i < frames; ++i) AppendFrame(out, Opcode::kText, kHello, true, true, keys.Next());
  return std::string(out.view());
}

void BM_ParseFrameHeader(benchmark::State& state) {
  const std::string frame = SmallFrameStream(1);
  FrameHeader header;
  CloseCode error;
  const FrameParseOptions options{.role = Role::kServer};
  for (auto _ : state) {
    const char* data = frame.data();
    benchmark::DoNotOptimize(data);
    int n = ParseFrameHeader(data, frame.size(), options, &header, &error);
    benchmark::DoNotOptimize(n);
    benchmark::DoNotOptimize(header);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseFrameHeader);

void BM_WriteFrameHeader(benchmark::State& state) {
  const uint64_t length = state.range(0);
  char out[kMaxFrameHeaderSize];
  FrameHeader header{.fin = true, .masked = true, .opcode = Opcode::kText, .mask_key = 0x12345678};
  for (auto _ : state) {
    header.payload_length = length;
    benchmark::DoNotOptimize(header);
    size_t n = WriteFrameHeader(header, out);
    benchmark::DoNotOptimize(n);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WriteFrameHeader)->Arg(13)->Arg(1000)->Arg(100000);

// Every header fully validated, payloads skipped: the per-frame cost of framing itself.
void BM_ParseSmallFrameStream(benchmark::State& state) {
  constexpr int kFrames = 1000;
  const std::string stream = SmallFrameStream(kFrames);
  const FrameParseOptions options{.role = Role::kServer};
  for (auto _ : state) {
    size_t pos = 0;
    uint64_t total = 0;
    FrameHeader header;
    CloseCode error;
    while (pos < stream.size()) {
      const int n =
          ParseFrameHeader(stream.data() + pos, stream.size() - pos, options, &header, &error);
      if (n < 0) {
        state.SkipWithError("parse failed");
        return;
      }
      pos += n + header.payload_length;
      total += header.payload_length;
    }
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(state.iterations() * kFrames);
  state.SetBytesProcessed(state.iterations() * stream.size());
}
BENCHMARK(BM_ParseSmallFrameStream);

// The server's whole receive path per message: header checks, unmasking, UTF-8, message
// bookkeeping.
void BM_MessageReaderSmallFrames(benchmark::State& state) {
  constexpr int kFrames = 1000;
  const std::string stream = SmallFrameStream(kFrames);
  MessageReader reader({.role = Role::kServer, .assemble = state.range(0) != 0});
  for (auto _ : state) {
    size_t pos = 0;
    int messages = 0;
    WebSocketEvent event;
    while (true) {
      pos += reader.Read(absl::string_view(stream).substr(pos), &event);
      if (event.type != EventType::kMessage) break;
      ++messages;
    }
    if (messages != kFrames) {
      state.SkipWithError("wrong message count");
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * kFrames);
  state.SetLabel(state.range(0) ? "assembled" : "sink (not kept)");
}
BENCHMARK(BM_MessageReaderSmallFrames)->Arg(1)->Arg(0);

// A client's send path per message: a fresh key, the header, the payload masked into the send
// buffer.
void BM_BuildMaskedSmallFrame(benchmark::State& state) {
  MaskKeySource keys;
  char out[kMaxFrameHeaderSize + 64];
  for (auto _ : state) {
    const uint32_t key = keys.Next();
    const size_t n = WriteFrameHeader({.fin = true,
                                       .masked = true,
                                       .opcode = Opcode::kText,
                                       .mask_key = key,
                                       .payload_length = kHello.size()},
                                      out);
    MaskCopy(out + n, kHello.data(), kHello.size(), key);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BuildMaskedSmallFrame);

}  // namespace
}  // namespace netbench::websocket
