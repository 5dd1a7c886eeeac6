#include "websocket/close_frame.h"

#include <algorithm>
#include <cstring>

#include "websocket/utf8.h"

namespace netbench::websocket {

bool IsValidWireCloseCode(uint32_t code) {
  if (code >= 3000 && code <= 4999) return true;
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014);
}

bool ParseClosePayload(absl::string_view payload, ClosePayload* close, CloseCode* error) {
  if (payload.empty()) {
    *close = ClosePayload{};
    return true;
  }
  if (payload.size() == 1) {
    *error = kCloseProtocolError;
    return false;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(payload.data());
  const uint16_t code = static_cast<uint16_t>((p[0] << 8) | p[1]);
  if (!IsValidWireCloseCode(code)) {
    *error = kCloseProtocolError;
    return false;
  }
  absl::string_view reason = payload.substr(2);
  if (!IsValidUtf8(reason)) {
    *error = kCloseInvalidPayload;
    return false;
  }
  close->code = code;
  close->reason = reason;
  return true;
}

size_t WriteClosePayload(uint16_t code, absl::string_view reason, char* out) {
  if (code == kCloseNoStatus) return 0;
  out[0] = static_cast<char>(code >> 8);
  out[1] = static_cast<char>(code & 0xFF);
  size_t n = std::min(reason.size(), kMaxControlPayload - 2);
  // Never cut a multi-byte character: back up over continuation bytes.
  if (n < reason.size()) {
    while (n > 0 && (static_cast<unsigned char>(reason[n]) & 0xC0) == 0x80) --n;
  }
  if (n > 0) std::memcpy(out + 2, reason.data(), n);
  return 2 + n;
}

}  // namespace netbench::websocket
