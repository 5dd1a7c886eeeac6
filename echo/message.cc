#include "echo/message.h"

#include <algorithm>
#include <cstring>

namespace netbench {
namespace echo {
namespace {

void PutUint32LittleEndian(uint32_t value, char* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

}  // namespace

std::string BuildEchoMessage(int size) {
  constexpr size_t kTextLength = sizeof(kMessageText) - 1;
  std::string message(static_cast<size_t>(size), '\0');
  if (size < kMessageHeaderSize) {
    for (int i = 0; i < size; ++i) message[i] = kMessageText[i % kTextLength];
    return message;
  }
  PutUint32LittleEndian(static_cast<uint32_t>(size - kMessageHeaderSize), &message[0]);
  PutUint32LittleEndian(1, &message[4]);  // op-code 1, as the write-up's client sends
  for (int i = kMessageHeaderSize; i < size; ++i) {
    message[i] = kMessageText[(i - kMessageHeaderSize) % kTextLength];
  }
  return message;
}

std::string RepeatMessage(absl::string_view message, int count) {
  std::string out;
  out.reserve(message.size() * count);
  for (int i = 0; i < count; ++i) out.append(message.data(), message.size());
  return out;
}

EchoPattern::EchoPattern(absl::string_view message, size_t max_chunk)
    : message_size_(message.size()), max_chunk_(max_chunk) {
  const size_t length = max_chunk + message.size();
  repeated_.reserve(length + message.size());
  while (repeated_.size() < length) repeated_.append(message.data(), message.size());
}

bool EchoPattern::Matches(const char* data, size_t length, uint64_t stream_offset) const {
  const size_t start = static_cast<size_t>(stream_offset % message_size_);
  return std::memcmp(data, repeated_.data() + start, length) == 0;
}

uint64_t EchoPattern::CountMismatchedMessages(const char* data, size_t length,
                                              uint64_t stream_offset) const {
  uint64_t mismatched = 0;
  size_t i = 0;
  while (i < length) {
    const size_t in_message = static_cast<size_t>((stream_offset + i) % message_size_);
    const size_t span = std::min(length - i, message_size_ - in_message);
    if (std::memcmp(data + i, repeated_.data() + in_message, span) != 0) ++mismatched;
    i += span;
  }
  return mismatched;
}

}  // namespace echo
}  // namespace netbench
