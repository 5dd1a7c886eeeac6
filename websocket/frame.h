// RFC 6455 framing vocabulary shared by the parser, the writer and the message reader: opcodes,
// close codes, size limits and the decoded frame header.
//
//   FrameHeader header;
//   CloseCode error;
//   int n = ParseFrameHeader(bytes, size, {.role = Role::kServer}, &header, &error);
//   if (n > 0 && header.opcode == Opcode::kText) ...  // ParseFrameHeader: frame_parser.h
#ifndef NETBENCH_WEBSOCKET_FRAME_H_
#define NETBENCH_WEBSOCKET_FRAME_H_

#include <cstddef>
#include <cstdint>

namespace netbench::websocket {

enum class Opcode : uint8_t {
  kContinuation = 0x0,
  kText = 0x1,
  kBinary = 0x2,
  kClose = 0x8,
  kPing = 0x9,
  kPong = 0xA,
};

// Close codes this library sends (RFC 6455 section 7.4.1). 1005 and 1006 are never put on the wire.
enum CloseCode : uint16_t {
  kCloseNormal = 1000,
  kCloseGoingAway = 1001,
  kCloseProtocolError = 1002,
  kCloseUnsupportedData = 1003,
  kCloseNoStatus = 1005,  // reported when a close frame carries no code; never sent
  kCloseAbnormal = 1006,  // reported when the connection dropped without a close frame; never sent
  kCloseInvalidPayload = 1007,
  kClosePolicyViolation = 1008,
  kCloseMessageTooBig = 1009,
  kCloseInternalError = 1011,
};

// Which side of the connection parses: a server requires masked frames, a client requires unmasked
// ones.
enum class Role : uint8_t { kServer, kClient };

inline constexpr size_t kMaxFrameHeaderSize = 14;  // 2 + 8-byte length + 4-byte mask key
inline constexpr size_t kMaxControlPayload = 125;
inline constexpr uint64_t kDefaultMaxMessageSize = 16 << 20;

inline constexpr bool IsControl(Opcode opcode) { return (static_cast<uint8_t>(opcode) & 0x8) != 0; }

struct FrameHeader {
  bool fin = false;
  bool masked = false;
  uint8_t rsv = 0;  // the three RSV bits, as bits 2..0
  Opcode opcode = Opcode::kContinuation;
  // The masking key's four bytes as they appear on the wire, loaded with memcpy (see mask.h).
  uint32_t mask_key = 0;
  uint64_t payload_length = 0;
};

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_FRAME_H_
