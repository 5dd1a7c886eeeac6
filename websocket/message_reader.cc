#include "websocket/message_reader.h"

#include <algorithm>
#include <cstring>

#include "websocket/close_frame.h"
#include "websocket/mask.h"

namespace netbench::websocket {
namespace {
// A buffer that grew for a big message is given back when the next message starts.
constexpr size_t kMessageBufferKeep = 1 << 20;
constexpr size_t kMessageBufferShrunk = 64 << 10;
}  // namespace

MessageReader::MessageReader(MessageReaderOptions options)
    : options_(options),
      parse_options_{.role = options.role, .max_payload = options.max_message_size} {}

size_t MessageReader::Fail(CloseCode code, absl::string_view why, size_t consumed,
                           WebSocketEvent* event) {
  state_ = State::kClosed;
  event->type = EventType::kError;
  event->close_code = code;
  event->payload = why;
  event->size = 0;
  return consumed;
}

bool MessageReader::TakeData(const char* src, size_t n) {
  const bool text = message_opcode_ == Opcode::kText;
  if (options_.assemble) {
    char* dst = message_.WritableSpace(n);
    if (header_.masked) {
      MaskCopy(dst, src, n, key_);
    } else if (n > 0) {
      std::memcpy(dst, src, n);
    }
    message_.CommitWrite(n);
    return !text || utf8_.Feed(dst, n);
  }
  if (!text) return true;
  if (!header_.masked) return utf8_.Feed(src, n);
  uint32_t key = key_;
  for (size_t done = 0; done < n;) {
    const size_t chunk = std::min(n - done, sizeof scratch_);
    MaskCopy(scratch_, src + done, chunk, key);
    if (!utf8_.Feed(scratch_, chunk)) return false;
    key = RotateMaskKey(key, chunk);
    done += chunk;
  }
  return true;
}

size_t MessageReader::Read(absl::string_view input, WebSocketEvent* event) {
  event->type = EventType::kNone;
  size_t pos = 0;
  while (true) {
    if (state_ == State::kClosed) return input.size();
    if (state_ == State::kHeader) {
      CloseCode error;
      const int n = ParseFrameHeader(input.data() + pos, input.size() - pos, parse_options_,
                                     &header_, &error);
      if (n == kFrameNeedMore) return pos;
      if (n == kFrameError) {
        return Fail(error,
                    error == kCloseMessageTooBig ? "message too big" : "invalid frame header", pos,
                    event);
      }
      pos += n;
      const uint64_t length = header_.payload_length;
      if (!IsControl(header_.opcode)) {
        if (header_.opcode == Opcode::kContinuation) {
          if (!in_message_)
            return Fail(kCloseProtocolError, "continuation without a message", pos, event);
        } else {
          if (in_message_)
            return Fail(kCloseProtocolError, "new message inside a fragmented one", pos, event);
          // The common case of a whole, unfragmented, unmasked frame already in the buffer needs no
          // copy.
          if (header_.fin && !header_.masked && options_.assemble && input.size() - pos >= length) {
            absl::string_view payload = input.substr(pos, length);
            if (header_.opcode == Opcode::kText && !IsValidUtf8(payload)) {
              return Fail(kCloseInvalidPayload, "invalid UTF-8", pos, event);
            }
            event->type = EventType::kMessage;
            event->opcode = header_.opcode;
            event->payload = payload;
            event->size = length;
            return pos + length;
          }
          in_message_ = true;
          message_opcode_ = header_.opcode;
          message_size_ = 0;
          utf8_.Reset();
          if (message_.capacity() > kMessageBufferKeep) message_.ShrinkTo(kMessageBufferShrunk);
          message_.Clear();
        }
        if (length > options_.max_message_size - message_size_) {
          return Fail(kCloseMessageTooBig, "message too big", pos, event);
        }
        message_size_ += length;
      }
      remaining_ = length;
      key_ = header_.mask_key;
      control_size_ = 0;
      state_ = State::kPayload;
    }

    // State::kPayload: take what has arrived of the current frame's payload.
    const size_t take = static_cast<size_t>(std::min<uint64_t>(remaining_, input.size() - pos));
    const char* src = input.data() + pos;
    if (IsControl(header_.opcode)) {
      if (header_.masked) {
        MaskCopy(control_ + control_size_, src, take, key_);
      } else if (take > 0) {
        std::memcpy(control_ + control_size_, src, take);
      }
      control_size_ += take;
    } else if (!TakeData(src, take)) {
      return Fail(kCloseInvalidPayload, "invalid UTF-8", pos + take, event);
    }
    key_ = RotateMaskKey(key_, take);
    remaining_ -= take;
    pos += take;
    if (remaining_ > 0) return pos;
    state_ = State::kHeader;

    switch (header_.opcode) {
      case Opcode::kPing:
      case Opcode::kPong:
        event->type = header_.opcode == Opcode::kPing ? EventType::kPing : EventType::kPong;
        event->opcode = header_.opcode;
        event->payload = absl::string_view(control_, control_size_);
        event->size = control_size_;
        return pos;
      case Opcode::kClose: {
        ClosePayload close;
        CloseCode error;
        if (!ParseClosePayload(absl::string_view(control_, control_size_), &close, &error)) {
          return Fail(error,
                      error == kCloseInvalidPayload ? "invalid UTF-8 in close reason"
                                                    : "invalid close code",
                      pos, event);
        }
        state_ = State::kClosed;
        event->type = EventType::kClose;
        event->opcode = Opcode::kClose;
        event->close_code = close.code;
        event->payload = close.reason;
        event->size = control_size_;
        return pos;
      }
      default:
        break;
    }
    if (!header_.fin) continue;  // more fragments follow
    if (message_opcode_ == Opcode::kText && !utf8_.complete()) {
      return Fail(kCloseInvalidPayload, "invalid UTF-8", pos, event);
    }
    in_message_ = false;
    event->type = EventType::kMessage;
    event->opcode = message_opcode_;
    event->payload = options_.assemble ? message_.view() : absl::string_view();
    event->size = message_size_;
    return pos;
  }
}

}  // namespace netbench::websocket
