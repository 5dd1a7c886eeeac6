// The close frame's payload (RFC 6455 section 5.5.1): an optional 2-byte status code and a UTF-8
// reason.
//
//   ClosePayload close;
//   CloseCode error;
//   if (!ParseClosePayload(payload, &close, &error)) return Fail(error);   // 1002 or 1007
//   char reply[kMaxControlPayload];
//   size_t n = WriteClosePayload(kCloseNormal, "bye", reply);
#ifndef NETBENCH_WEBSOCKET_CLOSE_FRAME_H_
#define NETBENCH_WEBSOCKET_CLOSE_FRAME_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "websocket/frame.h"

namespace netbench::websocket {

// Whether `code` may appear in a close frame: 1000-1003 and 1007-1014 (RFC 6455 and the IANA
// registry), and 3000-4999 (libraries, frameworks, applications). 1004, 1005, 1006, 1015, other
// codes below 3000 and codes from 5000 up are protocol errors.
bool IsValidWireCloseCode(uint32_t code);

struct ClosePayload {
  uint16_t code = kCloseNoStatus;  // kCloseNoStatus (1005) when the frame had no payload
  absl::string_view reason;        // points into the parsed payload
};

// Parses and checks a received close payload. On failure *error is 1002 (one byte, or a code that
// may not be sent) or 1007 (a reason that is not UTF-8).
bool ParseClosePayload(absl::string_view payload, ClosePayload* close, CloseCode* error);

// Writes a close payload into `out` (room for kMaxControlPayload bytes): the code, then as much of
// `reason` as fits (cut at a character boundary). kCloseNoStatus writes an empty payload. Returns
// the size.
size_t WriteClosePayload(uint16_t code, absl::string_view reason, char* out);

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_CLOSE_FRAME_H_
