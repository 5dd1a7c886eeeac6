#include "httpfanout/request_parser.h"

#include <algorithm>
#include <cstring>

#include "httpfanout/internal/http_scan.h"

namespace netbench {
namespace {

// A request target: visible ASCII (RFC 9112 origin-form, absolute-form, authority-form or "*").
inline bool IsTargetChar(char c) { return c > 0x20 && c < 0x7f; }

// Parses "METHOD target HTTP/1.x\r\n". Returns the byte after the line, or nullptr: need more when
// `*error` is still kNone, malformed otherwise.
const char* ParseRequestLine(const char* p, const char* end, RequestHead* head, HttpError* error) {
  const char* method = p;
  while (p < end && http_internal::IsToken(*p)) ++p;
  if (p == end) return nullptr;
  if (*p != ' ' || p == method) {
    *error = HttpError::kBadRequestLine;
    return nullptr;
  }
  head->method = absl::string_view(method, p - method);
  const char* target = ++p;
  while (p < end && IsTargetChar(*p)) ++p;
  if (p == end) return nullptr;
  if (*p != ' ' || p == target) {
    *error = HttpError::kBadRequestLine;
    return nullptr;
  }
  head->target = absl::string_view(target, p - target);
  ++p;
  if (end - p < 8) {
    size_t n = std::min<size_t>(end - p, 7);
    if (std::memcmp(p, "HTTP/1.", n) != 0) {
      *error = http_internal::LooksLikeHttpVersion(p, end) ? HttpError::kBadVersion
                                                           : HttpError::kBadRequestLine;
    }
    return nullptr;
  }
  head->minor_version = http_internal::ParseVersion(p);
  if (head->minor_version < 0) {
    *error = http_internal::LooksLikeHttpVersion(p, end) ? HttpError::kBadVersion
                                                         : HttpError::kBadRequestLine;
    return nullptr;
  }
  p += 8;
  if (p < end && *p != '\r' && *p != '\n') {
    *error = HttpError::kBadRequestLine;
    return nullptr;
  }
  const char* next = http_internal::ConsumeLineEnd(p, end, error);
  if (*error != HttpError::kNone) *error = HttpError::kBadRequestLine;
  return next;
}

}  // namespace

int ParseRequestHead(const char* buf, size_t len, size_t last_len, RequestHead* head,
                     HttpError* error, const HttpLimits& limits) {
  *error = HttpError::kNone;
  const size_t max_headers = std::min(limits.max_headers, kMaxHttpHeaders);
  if (last_len != 0 && !http_internal::HasEmptyLine(buf, len, last_len)) {
    if (len >= limits.max_head_bytes) {
      *error = HttpError::kHeadTooLarge;
      return kHttpParseError;
    }
    return kHttpNeedMore;
  }
  const char* end = buf + len;
  http_internal::FramingHeaders framing;
  const char* p = ParseRequestLine(buf, end, head, error);
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
  if (framing.other_transfer_coding || (framing.chunked && framing.content_length >= 0)) {
    *error = HttpError::kBadTransferEncoding;
    return kHttpParseError;
  }
  head->content_length = framing.content_length;
  head->chunked = framing.chunked;
  head->connection_close = framing.connection_close;
  head->connection_keep_alive = framing.connection_keep_alive;
  return static_cast<int>(consumed);
}

}  // namespace netbench
