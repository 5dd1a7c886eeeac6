// Serializes WebSocket frames: the header goes into a small buffer and the payload stays where it
// is, so a sender can hand both to one writev(2) (scatter/gather) without copying the payload.
//
//   char header[kMaxFrameHeaderSize];
//   size_t n =
//       WriteFrameHeader({.fin = true, .opcode = Opcode::kBinary, .payload_length = len}, header);
//   iovec iov[2] = {{header, n}, {payload, len}};
//   writev(fd, iov, 2);
//
// A client sets .masked and .mask_key and masks the payload itself (mask.h), usually while copying
// it into its send buffer. AppendFrame() is the convenience for senders that build their output in
// a ByteBuffer.
#ifndef NETBENCH_WEBSOCKET_FRAME_WRITER_H_
#define NETBENCH_WEBSOCKET_FRAME_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/strings/string_view.h"
#include "common/byte_buffer.h"
#include "websocket/frame.h"

namespace netbench::websocket {

// Writes the header for `header` into `out`, which has room for kMaxFrameHeaderSize bytes, and
// returns its size. The length uses the minimal encoding RFC 6455 requires.
inline size_t WriteFrameHeader(const FrameHeader& header, char* out) {
  auto* p = reinterpret_cast<unsigned char*>(out);
  p[0] = static_cast<unsigned char>((header.fin ? 0x80 : 0) | ((header.rsv & 0x7) << 4) |
                                    static_cast<unsigned>(header.opcode));
  const unsigned char mask_bit = header.masked ? 0x80 : 0;
  const uint64_t length = header.payload_length;
  size_t n;
  if (length < 126) {
    p[1] = mask_bit | static_cast<unsigned char>(length);
    n = 2;
  } else if (length <= 0xFFFF) {
    p[1] = mask_bit | 126;
    p[2] = static_cast<unsigned char>(length >> 8);
    p[3] = static_cast<unsigned char>(length);
    n = 4;
  } else {
    p[1] = mask_bit | 127;
    const uint64_t big_endian = __builtin_bswap64(length);
    std::memcpy(p + 2, &big_endian, 8);
    n = 10;
  }
  if (header.masked) {
    std::memcpy(p + n, &header.mask_key, 4);
    n += 4;
  }
  return n;
}

// Appends one whole frame to `out`: unmasked (a server's frame) unless `masked`, in which case the
// payload is masked with `mask_key` while it is copied.
void AppendFrame(ByteBuffer& out, Opcode opcode, absl::string_view payload, bool fin = true,
                 bool masked = false, uint32_t mask_key = 0);

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_FRAME_WRITER_H_
