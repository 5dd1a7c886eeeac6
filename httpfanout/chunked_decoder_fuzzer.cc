// Fuzzes the chunked-body decoder (chunked_decoder.h): the input is decoded at once and again in
// pieces (the first byte picks the piece size), each piece an exact-size copy.
//
// Checked: Decode() consumes no more than it is given and makes progress until the body ends or it
// fails; the data it hands back lies inside what it consumed; body_bytes() counts that data; and
// both ways give the same body, the same end and the same error.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "common/fuzz_check.h"
#include "httpfanout/chunked_decoder.h"
#include "httpfanout/http_error.h"

namespace {

using netbench::ChunkedDecoder;

struct Outcome {
  std::string body;
  size_t consumed = 0;  // up to the end of the body, or everything
  bool done = false;
  bool failed = false;
  netbench::HttpError error = netbench::HttpError::kNone;
};

Outcome Decode(absl::string_view input, size_t piece) {
  ChunkedDecoder decoder;
  Outcome outcome;
  size_t offset = 0;
  while (offset < input.size() && !decoder.done() && !outcome.failed) {
    const size_t n = std::min(piece, input.size() - offset);
    auto copy = std::make_unique<char[]>(n);
    std::memcpy(copy.get(), input.data() + offset, n);
    size_t used = 0;
    while (used < n && !decoder.done()) {
      absl::string_view data;
      const ptrdiff_t m = decoder.Decode(copy.get() + used, n - used, &data);
      if (m < 0) {
        FUZZ_CHECK(m == netbench::kHttpParseError);
        FUZZ_CHECK(decoder.error() != netbench::HttpError::kNone);
        outcome.failed = true;
        outcome.error = decoder.error();
        break;
      }
      FUZZ_CHECK(m > 0);  // progress, or Decode would spin
      FUZZ_CHECK(static_cast<size_t>(m) <= n - used);
      FUZZ_CHECK(netbench::Within(data, absl::string_view(copy.get() + used, m)));
      outcome.body.append(data.data(), data.size());
      used += m;
    }
    offset += used;
  }
  // On an error the call's data is dropped (the caller fails the body), though counted.
  if (!outcome.failed) FUZZ_CHECK(decoder.body_bytes() == outcome.body.size());
  outcome.done = decoder.done();
  outcome.consumed = offset;
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t piece = 1 + data[0] % 16;
  const absl::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = Decode(input, input.size() + 1);
  const Outcome pieces = Decode(input, piece);
  FUZZ_CHECK(whole.failed == pieces.failed);
  FUZZ_CHECK(whole.error == pieces.error);
  if (!whole.failed) {
    FUZZ_CHECK(whole.body == pieces.body);
    FUZZ_CHECK(whole.done == pieces.done);
    FUZZ_CHECK(whole.consumed == pieces.consumed);
  }
  return 0;
}
