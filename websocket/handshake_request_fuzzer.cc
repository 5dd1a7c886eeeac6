// Fuzzes the server's parse of a client's opening handshake (ParseHandshakeRequest, handshake.h).
//
// Checked: the size it returns is within the input and the limit; errors are 400 or 426; the views
// it hands back lie inside the request; a request it accepts, cut one byte short, asks for more;
// and the 101 answer made from an accepted key is accepted by the client's parser
// (ParseHandshakeResponse), whole.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/byte_buffer.h"
#include "common/fuzz_check.h"
#include "websocket/handshake.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace netbench::websocket;
  using netbench::Within;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);

  HandshakeRequest request;
  int status = 0;
  const int n = ParseHandshakeRequest(input, &request, &status);
  if (n == kHandshakeNeedMore) {
    FUZZ_CHECK(size < kMaxHandshakeSize);
    return 0;
  }
  if (n == kHandshakeError) {
    FUZZ_CHECK(status == 400 || status == 426);
    return 0;
  }
  FUZZ_CHECK(n > 0 && static_cast<size_t>(n) <= size &&
             static_cast<size_t>(n) <= kMaxHandshakeSize);
  const absl::string_view head = input.substr(0, n);
  FUZZ_CHECK(Within(request.path, head) && Within(request.host, head) &&
             Within(request.key, head) && Within(request.origin, head) &&
             Within(request.protocols, head));
  FUZZ_CHECK(!request.key.empty() && !request.path.empty());

  // One byte short, in an exact-size copy: more is needed, nothing read past the end.
  auto shorter = std::make_unique<char[]>(n);
  std::memcpy(shorter.get(), data, n - 1);
  HandshakeRequest partial;
  FUZZ_CHECK(ParseHandshakeRequest(absl::string_view(shorter.get(), n - 1), &partial, &status) ==
             kHandshakeNeedMore);

  netbench::ByteBuffer out;
  AppendHandshakeResponse(request.key, out);
  absl::Status error;
  const std::string key(request.key);
  FUZZ_CHECK(ParseHandshakeResponse(out.view(), key, &error) == static_cast<int>(out.size()));
  return 0;
}
