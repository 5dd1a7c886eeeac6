// Turns a received byte stream into WebSocket messages and control frames: reassembles fragmented
// messages, lets control frames interleave inside them, unmasks, validates text as UTF-8 across
// fragments (failing fast), checks close payloads, and enforces a maximum message size before
// buffering anything.
//
// Like the frame parser it is pull-style and allocation-free in steady state: Read() consumes a
// prefix of the input and reports at most one event; call it again with the rest while it reports
// something. Payloads are consumed as they arrive, so the caller never holds more than a partial
// header (13 bytes) of unconsumed input, whatever the frame size.
//
//   MessageReader reader({.role = Role::kServer});
//   WebSocketEvent event;
//   absl::string_view input = in.view();  // `in`: the connection's ByteBuffer
//   size_t pos = 0;
//   while (true) {
//     pos += reader.Read(input.substr(pos), &event);
//     if (event.type == EventType::kNone) break;           // need more input
//     if (event.type == EventType::kMessage) Use(event.opcode, event.payload);
//     if (event.type == EventType::kError) return SendClose(event.close_code, event.payload);
//     ...
//   }
//   in.Consume(pos);
//
// After a close frame or an error the reader ignores further input.
#ifndef NETBENCH_WEBSOCKET_MESSAGE_READER_H_
#define NETBENCH_WEBSOCKET_MESSAGE_READER_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "common/byte_buffer.h"
#include "websocket/frame.h"
#include "websocket/frame_parser.h"
#include "websocket/utf8.h"

namespace netbench::websocket {

struct MessageReaderOptions {
  Role role = Role::kServer;
  // A message (all fragments together) larger than this fails with 1009, as soon as a frame header
  // announces it.
  uint64_t max_message_size = kDefaultMaxMessageSize;
  // false: data messages are checked (text is still validated) but their bytes are not kept; the
  // event reports the size and an empty payload. A sink needs no message buffer at all.
  bool assemble = true;
};

enum class EventType {
  kNone,     // nothing complete yet: feed more input
  kMessage,  // a whole text or binary message
  kPing,
  kPong,
  kClose,  // the peer's close frame; close_code is 1005 when it had no code
  kError,  // a protocol error: close the connection with close_code; payload says why
};

struct WebSocketEvent {
  EventType type = EventType::kNone;
  Opcode opcode = Opcode::kContinuation;  // kText or kBinary for kMessage
  // The message, the ping/pong payload, the close reason, or an error's description. Valid until
  // the next Read(); it may point into Read()'s input.
  absl::string_view payload;
  uint64_t size = 0;  // the message size (also when not assembled)
  uint16_t close_code = 0;
};

class MessageReader {
 public:
  explicit MessageReader(MessageReaderOptions options = {});

  // Consumes a prefix of `input`, and fills `event` when a message, control frame or error
  // completes.
  size_t Read(absl::string_view input, WebSocketEvent* event);

  // Changes the limit of MessageReaderOptions; for a message that has not begun.
  void set_max_message_size(uint64_t bytes) {
    options_.max_message_size = bytes;
    parse_options_.max_payload = bytes;
  }

  // True once a close frame or an error was read.
  bool closed() const { return state_ == State::kClosed; }
  // True inside a fragmented message.
  bool in_message() const { return in_message_; }

 private:
  enum class State { kHeader, kPayload, kClosed };

  size_t Fail(CloseCode code, absl::string_view why, size_t consumed, WebSocketEvent* event);
  // Handles a data frame's payload bytes; false (with the event filled) on invalid UTF-8.
  bool TakeData(const char* src, size_t n);

  MessageReaderOptions options_;
  FrameParseOptions parse_options_;
  State state_ = State::kHeader;
  FrameHeader header_;
  uint64_t remaining_ = 0;  // payload bytes of the current frame not yet consumed
  uint32_t key_ = 0;        // the mask key rotated to the next payload byte
  bool in_message_ = false;
  Opcode message_opcode_ = Opcode::kText;
  uint64_t message_size_ = 0;
  Utf8Validator utf8_;
  ByteBuffer message_;
  size_t control_size_ = 0;
  char control_[kMaxControlPayload];
  char scratch_[4096];  // unmasked text when not assembling
};

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_MESSAGE_READER_H_
