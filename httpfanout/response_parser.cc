#include "httpfanout/response_parser.h"

#include <algorithm>
#include <cstring>

#include "httpfanout/internal/http_scan.h"

namespace netbench {
namespace {

using http_internal::ConsumeLineEnd;
using http_internal::FindControl;

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Parses "HTTP/1.x NNN reason\r\n". Returns the byte after the line, or nullptr: need more when
// `*error` is still kNone, malformed otherwise.
const char* ParseStatusLine(const char* p, const char* end, ResponseHead* head, HttpError* error) {
  if (end - p < 13) {
    // Too short to decide; refuse early what can never become a status line.
    size_t n = std::min<size_t>(end - p, 7);
    if (std::memcmp(p, "HTTP/1.", n) != 0) {
      *error = http_internal::LooksLikeHttpVersion(p, end) ? HttpError::kBadVersion
                                                           : HttpError::kBadStatusLine;
    }
    return nullptr;
  }
  head->minor_version = http_internal::ParseVersion(p);
  if (head->minor_version < 0) {
    *error = http_internal::LooksLikeHttpVersion(p, end) ? HttpError::kBadVersion
                                                         : HttpError::kBadStatusLine;
    return nullptr;
  }
  p += 8;
  if (*p != ' ') {
    *error = HttpError::kBadStatusLine;
    return nullptr;
  }
  ++p;
  if (!IsDigit(p[0]) || !IsDigit(p[1]) || !IsDigit(p[2])) {
    *error = HttpError::kBadStatusCode;
    return nullptr;
  }
  head->status = (p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0');
  if (head->status < 100) {
    *error = HttpError::kBadStatusCode;
    return nullptr;
  }
  p += 3;
  const char* reason = p;
  if (p == end) return nullptr;
  if (*p == ' ') {
    reason = ++p;
    p = FindControl(p, end);
  } else if (*p != '\r' && *p != '\n') {
    *error = HttpError::kBadStatusCode;  // a fourth digit, or a letter glued to the code
    return nullptr;
  }
  head->reason = absl::string_view(reason, p - reason);
  const char* next = ConsumeLineEnd(p, end, error);
  if (*error == HttpError::kBadHeaderValue) *error = HttpError::kBadStatusLine;
  return next;
}

}  // namespace

BodyFraming ResponseHead::framing(bool head_request) const {
  if (head_request || (status >= 100 && status < 200) || status == 204 || status == 304) {
    return BodyFraming::kNone;
  }
  if (chunked) return BodyFraming::kChunked;
  if (other_transfer_coding) return BodyFraming::kUntilClose;
  if (content_length >= 0) return BodyFraming::kContentLength;
  return BodyFraming::kUntilClose;
}

bool ResponseHead::keep_alive(bool head_request) const {
  if (connection_close || framing(head_request) == BodyFraming::kUntilClose) return false;
  return minor_version >= 1 || connection_keep_alive;
}

int ParseResponseHead(const char* buf, size_t len, size_t last_len, ResponseHead* head,
                      HttpError* error, const HttpLimits& limits) {
  *error = HttpError::kNone;
  const size_t max_headers = std::min(limits.max_headers, kMaxHttpHeaders);
  // A later call on a still incomplete head only looks for the empty line in the new bytes.
  if (last_len != 0 && !http_internal::HasEmptyLine(buf, len, last_len)) {
    if (len >= limits.max_head_bytes) {
      *error = HttpError::kHeadTooLarge;
      return kHttpParseError;
    }
    return kHttpNeedMore;
  }
  const char* end = buf + len;
  http_internal::FramingHeaders framing;
  const char* p = ParseStatusLine(buf, end, head, error);
  if (p != nullptr) {
    p = http_internal::ParseHeaderFields(p, end, head->headers, max_headers, &head->num_headers,
                                         error);
  }
  if (p == nullptr) {
    if (*error != HttpError::kNone) return kHttpParseError;
    if (len >= limits.max_head_bytes) {
      *error = HttpError::kHeadTooLarge;
      return kHttpParseError;
    }
    return kHttpNeedMore;
  }
  if (!http_internal::ReadFramingHeaders(head->headers, head->num_headers, &framing, error)) {
    return kHttpParseError;
  }
  size_t consumed = p - buf;
  if (consumed > limits.max_head_bytes) {
    *error = HttpError::kHeadTooLarge;
    return kHttpParseError;
  }
  head->content_length = framing.content_length;
  head->chunked = framing.chunked;
  head->other_transfer_coding = framing.other_transfer_coding;
  head->connection_close = framing.connection_close;
  head->connection_keep_alive = framing.connection_keep_alive;
  return static_cast<int>(consumed);
}

}  // namespace netbench
