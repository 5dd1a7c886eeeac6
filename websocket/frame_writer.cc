#include "websocket/frame_writer.h"

#include "websocket/mask.h"

namespace netbench::websocket {

void AppendFrame(ByteBuffer& out, Opcode opcode, absl::string_view payload, bool fin, bool masked,
                 uint32_t mask_key) {
  char* p = out.WritableSpace(kMaxFrameHeaderSize + payload.size());
  const size_t n = WriteFrameHeader({.fin = fin,
                                     .masked = masked,
                                     .opcode = opcode,
                                     .mask_key = mask_key,
                                     .payload_length = payload.size()},
                                    p);
  if (masked) {
    MaskCopy(p + n, payload.data(), payload.size(), mask_key);
  } else if (!payload.empty()) {
    std::memcpy(p + n, payload.data(), payload.size());
  }
  out.CommitWrite(n + payload.size());
}

}  // namespace netbench::websocket
