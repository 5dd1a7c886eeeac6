// Fuzzes close-frame payloads (close_frame.h): ParseClosePayload either accepts a wire code and a
// UTF-8 reason that lies inside the payload, or fails with 1002 or 1007; what it accepts writes
// back (WriteClosePayload) to the same bytes; and WriteClosePayload, given any code and reason,
// writes at most 125 bytes that parse again when the code may be sent and the reason is UTF-8.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/strings/string_view.h"
#include "common/fuzz_check.h"
#include "websocket/close_frame.h"
#include "websocket/frame.h"
#include "websocket/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace netbench::websocket;
  using netbench::Within;
  const absl::string_view payload(reinterpret_cast<const char*>(data), size);

  ClosePayload close;
  CloseCode error = kCloseNormal;
  if (ParseClosePayload(payload, &close, &error)) {
    FUZZ_CHECK(size != 1);
    FUZZ_CHECK(Within(close.reason, payload));
    FUZZ_CHECK(IsValidUtf8(close.reason));
    if (size == 0) {
      FUZZ_CHECK(close.code == kCloseNoStatus && close.reason.empty());
    } else {
      FUZZ_CHECK(IsValidWireCloseCode(close.code));
      FUZZ_CHECK(close.reason.size() == size - 2);
      if (size <= kMaxControlPayload) {
        char out[kMaxControlPayload];
        const size_t n = WriteClosePayload(close.code, close.reason, out);
        FUZZ_CHECK(absl::string_view(out, n) == payload);
      }
    }
  } else {
    FUZZ_CHECK(error == kCloseProtocolError || error == kCloseInvalidPayload);
  }

  // Writing: the first two bytes are the code, the rest the reason, of any length.
  if (size >= 2) {
    const uint16_t code = static_cast<uint16_t>((data[0] << 8) | data[1]);
    const absl::string_view reason = payload.substr(2);
    char out[kMaxControlPayload + 1];
    std::memset(out, 0, sizeof out);
    const size_t n = WriteClosePayload(code, reason, out);
    FUZZ_CHECK(n <= kMaxControlPayload);
    if (code == kCloseNoStatus) {
      FUZZ_CHECK(n == 0);
    } else if (IsValidWireCloseCode(code) && IsValidUtf8(reason)) {
      FUZZ_CHECK(n >= 2);
      ClosePayload back;
      FUZZ_CHECK(ParseClosePayload(absl::string_view(out, n), &back, &error));
      FUZZ_CHECK(back.code == code);
      // The reason is kept whole when it fits, else cut at a character boundary.
      FUZZ_CHECK(reason.substr(0, back.reason.size()) == back.reason);
      if (reason.size() <= kMaxControlPayload - 2)
        FUZZ_CHECK(back.reason == reason);
      else
        FUZZ_CHECK(back.reason.size() + 3 >= kMaxControlPayload - 2);
    }
  }
  return 0;
}
