// The server's opening-handshake cost (ns): parsing a browser-sized Upgrade request, then computing
// the accept key and writing the 101 answer.
//
//   bazel run //websocket:handshake_benchmark
#include <string>

#include "benchmark/benchmark.h"
#include "common/byte_buffer.h"
#include "websocket/handshake.h"

namespace netbench::websocket {
namespace {

const std::string kRequest =
    "GET /echo HTTP/1.1\r\n"
    "Host: 127.0.0.1:8080\r\n"
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0\r\n"
    "Accept: */*\r\n"
    "Accept-Language: en-US,en;q=0.5\r\n"
    "Sec-WebSocket-Version: 13\r\n"
    "Origin: http://127.0.0.1:8080\r\n"
    "Sec-WebSocket-Extensions: permessage-deflate\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Connection: keep-alive, Upgrade\r\n"
    "Pragma: no-cache\r\n"
    "Cache-Control: no-cache\r\n"
    "Upgrade: websocket\r\n"
    "\r\n";

void BM_ParseHandshakeRequest(benchmark::State& state) {
  for (auto _ : state) {
    HandshakeRequest request;
    int status;
    int n = ParseHandshakeRequest(kRequest, &request, &status);
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseHandshakeRequest);

void BM_ComputeAcceptKey(benchmark::State& state) {
  char out[kAcceptKeySize];
  for (auto _ : state) {
    ComputeAcceptKey("dGhlIHNhbXBsZSBub25jZQ==", out);
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ComputeAcceptKey);

void BM_HandshakeParseAndAnswer(benchmark::State& state) {
  ByteBuffer out;
  for (auto _ : state) {
    HandshakeRequest request;
    int status;
    if (ParseHandshakeRequest(kRequest, &request, &status) <= 0) {
      state.SkipWithError("parse failed");
      return;
    }
    out.Clear();
    AppendHandshakeResponse(request.key, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HandshakeParseAndAnswer);

}  // namespace
}  // namespace netbench::websocket
