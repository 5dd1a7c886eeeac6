// An incremental, zero-copy HTTP/1.x response-head parser in the spirit of picohttpparser: it
// parses the caller's buffer in place, hands back views into it, allocates nothing, and returns the
// bytes consumed, kHttpNeedMore (-2) or kHttpParseError (-1).
//
//   ResponseHead head;
//   HttpError error;
//   size_t last_len = 0;  // what the previous call saw: an incomplete head is not scanned again
//   int n;
//   for (;;) {
//     Read(fd, buffer);
//     n = ParseResponseHead(buffer.data(), buffer.size(), last_len, &head, &error);
//     if (n > 0) break;  // head.status, head.headers, head.framing() ...
//     if (n == kHttpParseError) return Fail(HttpErrorText(error));
//     last_len = buffer.size();  // kHttpNeedMore: read more and call again
//   }
//   buffer.Consume(n);  // the body follows (see body_reader.h)
#ifndef NETBENCH_HTTPFANOUT_RESPONSE_PARSER_H_
#define NETBENCH_HTTPFANOUT_RESPONSE_PARSER_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "httpfanout/http_error.h"
#include "httpfanout/http_header.h"

namespace netbench {

// How the body of a message ends (RFC 9112 section 6.3).
enum class BodyFraming : uint8_t {
  kNone,           // no body: 1xx, 204, 304, or a response to HEAD
  kContentLength,  // exactly content_length bytes
  kChunked,        // chunked transfer coding (chunked_decoder.h)
  kUntilClose,     // everything until the server closes the connection
};

struct ResponseHead {
  int minor_version = 1;     // 0 for HTTP/1.0, 1 for HTTP/1.1
  int status = 0;            // 100..999
  absl::string_view reason;  // may be empty
  HttpHeader headers[kMaxHttpHeaders];
  size_t num_headers = 0;

  // From the fields, read once while parsing.
  int64_t content_length = -1;  // -1: no Content-Length
  bool chunked = false;         // the final transfer coding is chunked
  bool other_transfer_coding = false;
  bool connection_close = false;       // "Connection: close"
  bool connection_keep_alive = false;  // "Connection: keep-alive" (HTTP/1.0)

  // How the body ends; `head_request` when answering HEAD (no body whatever the headers say).
  BodyFraming framing(bool head_request = false) const;
  // Whether the connection can carry another request once this body has been read.
  bool keep_alive(bool head_request = false) const;
  const HttpHeader* Find(absl::string_view name) const {
    return FindHeader(headers, num_headers, name);
  }
};

// Parses a status line and header fields from [buf, buf + len). `last_len` is the buffer length at
// the previous call for the same response (0 on the first), which lets an incomplete head return
// kHttpNeedMore after scanning only the new bytes. On kHttpParseError `*error` says why; a head
// that is still incomplete after `limits.max_head_bytes` fails with HttpError::kHeadTooLarge.
// With last_len != 0 the head is parsed only once its empty line has arrived (as picohttpparser
// does), so a malformed head is reported when it completes or grows too large, not at its first
// bad byte: the first call, with last_len 0, is the one that fails fast (response_parser_fuzzer).
int ParseResponseHead(const char* buf, size_t len, size_t last_len, ResponseHead* head,
                      HttpError* error, const HttpLimits& limits = HttpLimits());

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_RESPONSE_PARSER_H_
