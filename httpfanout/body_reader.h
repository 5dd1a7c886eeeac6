// Reads a response body framed any of the ways HTTP/1.x allows (BodyFraming in response_parser.h):
// Content-Length, chunked, or until the server closes. Zero copy: body bytes reach `sink` as views
// into the caller's buffer.
//
//   BodyReader body;
//   body.Start(head.framing(), head.content_length);
//   while (!body.done()) {
//     ptrdiff_t n = body.Feed(buffer.view(), [&](absl::string_view data) { checksum.Add(data); });
//     if (n < 0) return Fail(HttpErrorText(body.error()));
//     buffer.Consume(n);
//     if (!body.done() && ReadMore(buffer) == kEof && !body.OnEof()) return Fail("truncated body");
//   }
#ifndef NETBENCH_HTTPFANOUT_BODY_READER_H_
#define NETBENCH_HTTPFANOUT_BODY_READER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "httpfanout/chunked_decoder.h"
#include "httpfanout/http_error.h"
#include "httpfanout/response_parser.h"

namespace netbench {

class BodyReader {
 public:
  void Start(BodyFraming framing, int64_t content_length) {
    framing_ = framing;
    remaining_ = content_length > 0 ? static_cast<uint64_t>(content_length) : 0;
    body_bytes_ = 0;
    done_ = framing == BodyFraming::kNone ||
            (framing == BodyFraming::kContentLength && remaining_ == 0);
    if (framing == BodyFraming::kChunked) chunked_.Reset();
  }

  // Consumes body bytes (and chunk framing) from `input`, up to the end of the body; bytes after it
  // belong to the next response. Returns the bytes consumed, or kHttpParseError (a chunked body was
  // malformed).
  template <typename Sink>
  ptrdiff_t Feed(absl::string_view input, Sink&& sink) {
    if (done_) return 0;
    switch (framing_) {
      case BodyFraming::kNone:
        return 0;
      case BodyFraming::kContentLength: {
        size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, input.size()));
        if (n > 0) sink(input.substr(0, n));
        remaining_ -= n;
        body_bytes_ += n;
        done_ = remaining_ == 0;
        return static_cast<ptrdiff_t>(n);
      }
      case BodyFraming::kUntilClose:
        if (!input.empty()) sink(input);
        body_bytes_ += input.size();
        return static_cast<ptrdiff_t>(input.size());
      case BodyFraming::kChunked: {
        ptrdiff_t n = chunked_.DecodeAll(input, [&](absl::string_view data) {
          body_bytes_ += data.size();
          sink(data);
        });
        done_ = chunked_.done();
        return n;
      }
    }
    return 0;
  }

  // The connection reached EOF before done(): returns true when that ends the body
  // (close-delimited), false when the body was cut short.
  bool OnEof() {
    if (framing_ == BodyFraming::kUntilClose) done_ = true;
    return done_;
  }

  bool done() const { return done_; }
  uint64_t body_bytes() const { return body_bytes_; }
  HttpError error() const { return chunked_.error(); }
  BodyFraming framing() const { return framing_; }

 private:
  BodyFraming framing_ = BodyFraming::kNone;
  uint64_t remaining_ = 0;
  uint64_t body_bytes_ = 0;
  bool done_ = true;
  ChunkedDecoder chunked_;
};

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_BODY_READER_H_
