// An incremental, zero-copy HTTP/1.x request-head parser for the origin server; the same
// conventions as ParseResponseHead (response_parser.h): bytes consumed, kHttpNeedMore or
// kHttpParseError, and with last_len != 0 no parse (and so no error) before the empty line.
//
//   RequestHead head;
//   HttpError error;
//   int n = ParseRequestHead(input.data(), input.size(), 0, &head, &error);
//   if (n == kHttpParseError) return Reply400(HttpErrorText(error));
//   if (n == kHttpNeedMore) return;  // read more, call again
//   Serve(head.method, head.target);  // input[n..]: a body of head.content_length bytes, if any
#ifndef NETBENCH_HTTPFANOUT_REQUEST_PARSER_H_
#define NETBENCH_HTTPFANOUT_REQUEST_PARSER_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "httpfanout/http_error.h"
#include "httpfanout/http_header.h"

namespace netbench {

struct RequestHead {
  absl::string_view method;  // a token: "GET", "HEAD", ...
  absl::string_view target;  // "/index.html?q=1" as sent
  int minor_version = 1;
  HttpHeader headers[kMaxHttpHeaders];
  size_t num_headers = 0;

  int64_t content_length = -1;  // -1: none
  bool chunked = false;         // a chunked request body follows
  bool connection_close = false;
  bool connection_keep_alive = false;

  // Whether the client lets the connection carry another request (HTTP/1.1 unless "close"; HTTP/1.0
  // only with "keep-alive").
  bool keep_alive() const {
    return !connection_close && (minor_version >= 1 || connection_keep_alive);
  }
  const HttpHeader* Find(absl::string_view name) const {
    return FindHeader(headers, num_headers, name);
  }
};

// Parses a request line and header fields. A Transfer-Encoding other than chunked fails with
// HttpError::kBadTransferEncoding (the length of such a body cannot be known), as do Content-Length
// and Transfer-Encoding together (a request-smuggling vector).
int ParseRequestHead(const char* buf, size_t len, size_t last_len, RequestHead* head,
                     HttpError* error, const HttpLimits& limits = HttpLimits());

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_REQUEST_PARSER_H_
