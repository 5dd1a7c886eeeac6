// The echo benchmark's message and the check of what comes back.
//
// The reference write-up's load generator sends a 22-byte message: an 8-byte header (uint32
// little-endian payload length, uint32 little-endian op-code 1) and the payload "hello, friend\n".
// Other sizes keep the header (when size >= 8) and repeat or cut the payload; sizes under 8 are the
// text alone. This matches buildMessage in the Go spammer (peers/go/spammer) byte for byte.
//
// Every connection sends the same message over and over, so the whole echoed stream is that message
// repeated. EchoPattern checks a received chunk against that repetition with one memcmp, whatever
// offset in the stream the chunk starts at:
//
//   std::string message = BuildEchoMessage(22);
//   EchoPattern pattern(message, /*max_chunk=*/64 * 1024);
//   uint64_t received = 0;
//   ssize_t n = read(fd, buffer, 64 * 1024);
//   if (!pattern.Matches(buffer, n, received)) CountMismatch();
//   received += n;
#ifndef NETBENCH_ECHO_MESSAGE_H_
#define NETBENCH_ECHO_MESSAGE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace netbench {
namespace echo {

inline constexpr int kDefaultMessageSize = 22;
inline constexpr int kMessageHeaderSize = 8;
inline constexpr char kMessageText[] = "hello, friend\n";

// The `size`-byte message (size >= 1).
std::string BuildEchoMessage(int size);

// `message` repeated `count` times: the buffer a writer hands to one write() for a batch of
// messages.
std::string RepeatMessage(absl::string_view message, int count);

class EchoPattern {
 public:
  // Chunks checked later must be at most `max_chunk` bytes long.
  EchoPattern(absl::string_view message, size_t max_chunk);

  size_t message_size() const { return message_size_; }
  size_t max_chunk() const { return max_chunk_; }

  // True when `data[0, length)` equals the stream of repeated messages at byte `stream_offset`.
  bool Matches(const char* data, size_t length, uint64_t stream_offset) const;

  // The number of messages that `data[0, length)`, starting at `stream_offset`, touches with a
  // wrong byte. The slow path, for error reports only.
  uint64_t CountMismatchedMessages(const char* data, size_t length, uint64_t stream_offset) const;

 private:
  size_t message_size_;
  size_t max_chunk_;
  // The message repeated to max_chunk + message size bytes, so that any chunk at any offset within
  // a message is a contiguous slice.
  std::string repeated_;
};

}  // namespace echo
}  // namespace netbench

#endif  // NETBENCH_ECHO_MESSAGE_H_
