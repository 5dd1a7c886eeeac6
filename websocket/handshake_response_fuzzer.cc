// Fuzzes the client's parse of the server's answer (ParseHandshakeResponse, handshake.h), for the
// request key of RFC 6455's example ("dGhlIHNhbXBsZSBub25jZQ==", accepted by
// "s3pPLMBiTxaQ9kYGJRzPOoo="), so that the corpus can hold answers that succeed.
//
// Checked: the size it returns is within the input and the limit, an error says what was wrong,
// and an accepted answer cut one byte short asks for more.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/fuzz_check.h"
#include "websocket/handshake.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace netbench::websocket;
  constexpr absl::string_view kKey = "dGhlIHNhbXBsZSBub25jZQ==";
  const absl::string_view input(reinterpret_cast<const char*>(data), size);

  absl::Status error;
  const int n = ParseHandshakeResponse(input, kKey, &error);
  if (n == kHandshakeNeedMore) {
    FUZZ_CHECK(size < kMaxHandshakeSize);
    return 0;
  }
  if (n == kHandshakeError) {
    FUZZ_CHECK(!error.ok());
    return 0;
  }
  FUZZ_CHECK(n > 0 && static_cast<size_t>(n) <= size &&
             static_cast<size_t>(n) <= kMaxHandshakeSize);
  auto shorter = std::make_unique<char[]>(n);
  std::memcpy(shorter.get(), data, n - 1);
  absl::Status partial_error;
  FUZZ_CHECK(ParseHandshakeResponse(absl::string_view(shorter.get(), n - 1), kKey,
                                    &partial_error) == kHandshakeNeedMore);
  return 0;
}
