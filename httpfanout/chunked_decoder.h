// A streaming decoder for the chunked transfer coding (RFC 9112 section 7.1): chunk-size lines with
// extensions, chunk data, the last chunk and trailer fields. Zero copy: body bytes are handed back
// as views into the caller's buffer, one whole run of chunk data at a time, so decoding costs a few
// nanoseconds per chunk whatever its size (no per-byte state machine over the data, nothing moved
// in memory).
//
//   ChunkedDecoder decoder;
//   absl::string_view input = buffer.view();
//   while (!input.empty() && !decoder.done()) {
//     absl::string_view data;
//     ptrdiff_t n = decoder.Decode(input.data(), input.size(), &data);
//     if (n < 0) return Fail(HttpErrorText(decoder.error()));
//     Consume(data);  // body bytes, possibly empty
//     input.remove_prefix(n);
//   }
//
// Or with a callback: `decoder.DecodeAll(input, [](absl::string_view data) { ... })`.
#ifndef NETBENCH_HTTPFANOUT_CHUNKED_DECODER_H_
#define NETBENCH_HTTPFANOUT_CHUNKED_DECODER_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "httpfanout/http_error.h"

namespace netbench {

class ChunkedDecoder {
 public:
  // A chunk-size line (size plus extensions) longer than this fails with kBadChunkExtension, and a
  // trailer section longer than max_trailer_bytes with kTrailerTooLarge: a peer cannot make the
  // decoder scan an endless line.
  static constexpr size_t kMaxChunkLineBytes = 4096;
  static constexpr size_t kDefaultMaxTrailerBytes = 16 * 1024;

  explicit ChunkedDecoder(size_t max_trailer_bytes = kDefaultMaxTrailerBytes)
      : max_trailer_bytes_(max_trailer_bytes) {}

  // Decodes from [input, input + length): returns the bytes consumed (all of them unless the body
  // ended inside the buffer, or a run of data was found: then up to its end) and sets `*data` to
  // the body bytes among them (possibly empty). Returns kHttpParseError (-1) on malformed input;
  // error() says why.
  ptrdiff_t Decode(const char* input, size_t length, absl::string_view* data);

  // Decodes all of `input`, or up to the end of the body, calling `sink(absl::string_view)` for
  // each run of body bytes. Returns the bytes consumed, or kHttpParseError.
  template <typename Sink>
  ptrdiff_t DecodeAll(absl::string_view input, Sink&& sink) {
    size_t used = 0;
    while (used < input.size() && !done()) {
      absl::string_view data;
      ptrdiff_t n = Decode(input.data() + used, input.size() - used, &data);
      if (n < 0) return n;
      if (!data.empty()) sink(data);
      used += n;
    }
    return static_cast<ptrdiff_t>(used);
  }

  // The last chunk and the trailer section have been read; bytes after them belong to the next
  // message.
  bool done() const { return state_ == State::kDone; }
  HttpError error() const { return error_; }
  uint64_t body_bytes() const { return body_bytes_; }
  // Starts over for the next message.
  void Reset() { *this = ChunkedDecoder(max_trailer_bytes_); }

 private:
  enum class State : uint8_t {
    kSize,       // hex digits of a chunk size
    kSizeSpace,  // spaces or tabs after the size, before ';' or CRLF
    kExtension,  // ";name=value" up to the line end
    kSizeLf,     // after the CR of a size line
    kData,       // remaining_ bytes of chunk data
    kDataCr,     // the CRLF after chunk data
    kDataLf,
    kTrailerStart,  // the start of a trailer line (an empty line ends the message)
    kTrailerLine,   // inside a trailer field
    kEndLf,         // after the CR of the final empty line
    kDone,
    kError,
  };

  ptrdiff_t Fail(HttpError error) {
    state_ = State::kError;
    error_ = error;
    return -1;
  }

  State state_ = State::kSize;
  HttpError error_ = HttpError::kNone;
  bool size_has_digits_ = false;
  uint64_t remaining_ = 0;  // chunk size while parsing the size line, then data bytes left
  size_t line_bytes_ = 0;   // bytes of the current size line
  size_t trailer_bytes_ = 0;
  size_t max_trailer_bytes_;
  uint64_t body_bytes_ = 0;
};

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_CHUNKED_DECODER_H_
