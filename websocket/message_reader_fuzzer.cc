// Fuzzes the frame header parser (frame_parser.h) and message reassembly (message_reader.h) on a
// byte stream as a peer would send it, delivered in pieces.
//
// The first byte picks the reader's options and how the stream is cut: bit 0 the role, bit 1
// whether messages are assembled, bit 2 a small message limit (to reach 1009), bits 3..7 the piece
// size (0: the whole stream at once). Checked: Read() consumes no more than it is given, at most a
// partial frame header stays unconsumed when it asks for more, events are consistent (a message's
// size is within the limit, assembled payloads have that size, text is valid UTF-8, close codes
// are wire codes or 1005), and every header the parser accepts has a size within 2..14.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "common/fuzz_check.h"
#include "websocket/close_frame.h"
#include "websocket/frame.h"
#include "websocket/frame_parser.h"
#include "websocket/message_reader.h"
#include "websocket/utf8.h"

namespace netbench::websocket {
namespace {

void CheckHeaderParser(absl::string_view stream, Role role) {
  FrameHeader header;
  CloseCode error;
  const int n = ParseFrameHeader(stream.data(), stream.size(), {.role = role}, &header, &error);
  if (n == kFrameNeedMore) {
    FUZZ_CHECK(stream.size() < kMaxFrameHeaderSize);
  } else if (n == kFrameError) {
    FUZZ_CHECK(error == kCloseProtocolError || error == kCloseMessageTooBig);
  } else {
    FUZZ_CHECK(n >= 2 && static_cast<size_t>(n) <= kMaxFrameHeaderSize);
    FUZZ_CHECK(static_cast<size_t>(n) <= stream.size());
    FUZZ_CHECK(header.masked == (role == Role::kServer));
    // The parser is stateless: a header cut short asks for more.
    FrameHeader again;
    FUZZ_CHECK(ParseFrameHeader(stream.data(), n - 1, {.role = role}, &again, &error) ==
               kFrameNeedMore);
  }
}

void CheckEvent(const WebSocketEvent& event, const MessageReaderOptions& options) {
  switch (event.type) {
    case EventType::kMessage:
      FUZZ_CHECK(event.opcode == Opcode::kText || event.opcode == Opcode::kBinary);
      FUZZ_CHECK(event.size <= options.max_message_size);
      if (options.assemble) {
        FUZZ_CHECK(event.payload.size() == event.size);
        if (event.opcode == Opcode::kText) FUZZ_CHECK(IsValidUtf8(event.payload));
      } else {
        FUZZ_CHECK(event.payload.empty());
      }
      break;
    case EventType::kPing:
    case EventType::kPong:
      FUZZ_CHECK(event.payload.size() <= kMaxControlPayload);
      break;
    case EventType::kClose:
      FUZZ_CHECK(event.close_code == kCloseNoStatus || IsValidWireCloseCode(event.close_code));
      FUZZ_CHECK(event.payload.size() <= kMaxControlPayload - 2);
      FUZZ_CHECK(IsValidUtf8(event.payload));
      break;
    case EventType::kError:
      FUZZ_CHECK(event.close_code == kCloseProtocolError ||
                 event.close_code == kCloseInvalidPayload ||
                 event.close_code == kCloseMessageTooBig);
      break;
    case EventType::kNone:
      break;
  }
}

}  // namespace
}  // namespace netbench::websocket

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace netbench::websocket;
  if (size < 1) return 0;
  const uint8_t control = data[0];
  const absl::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  MessageReaderOptions options;
  options.role = (control & 1) != 0 ? Role::kClient : Role::kServer;
  options.assemble = (control & 2) == 0;
  if ((control & 4) != 0) options.max_message_size = 64;
  const size_t piece = (control >> 3) == 0 ? stream.size() : (control >> 3);

  CheckHeaderParser(stream, options.role);

  MessageReader reader(options);
  std::string pending;  // the connection's input buffer: what Read() has not consumed yet
  size_t offset = 0;
  while (offset < stream.size() && !reader.closed()) {
    const size_t n = std::min(piece, stream.size() - offset);
    pending.append(stream.data() + offset, n);
    offset += n;
    size_t pos = 0;
    // Each event consumes input or ends the stream: at most one per byte, plus one.
    for (size_t events = 0;; ++events) {
      FUZZ_CHECK(events <= pending.size() + 1);
      WebSocketEvent event;
      const absl::string_view input = absl::string_view(pending).substr(pos);
      const size_t used = reader.Read(input, &event);
      FUZZ_CHECK(used <= input.size());
      pos += used;
      CheckEvent(event, options);
      if (event.type == EventType::kNone) {
        // What is left is part of a frame header, never payload the caller has to keep.
        if (!reader.closed()) FUZZ_CHECK(pending.size() - pos < kMaxFrameHeaderSize);
        break;
      }
      if (event.type == EventType::kClose || event.type == EventType::kError) {
        FUZZ_CHECK(reader.closed());
        break;
      }
    }
    pending.erase(0, pos);
  }
  return 0;
}
