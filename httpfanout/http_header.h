// One HTTP header field as the parsers hand it back: views into the caller's buffer (zero copy),
// and the limits every parser enforces so that a peer cannot make it buffer or scan without bound.
//
//   const HttpHeader* type = FindHeader(head.headers, head.num_headers, "content-type");
//   if (type != nullptr) Use(type->value);  // names compare case-insensitively
#ifndef NETBENCH_HTTPFANOUT_HTTP_HEADER_H_
#define NETBENCH_HTTPFANOUT_HTTP_HEADER_H_

#include <cstddef>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace netbench {

struct HttpHeader {
  absl::string_view name;   // as sent; compare with absl::EqualsIgnoreCase
  absl::string_view value;  // without surrounding spaces and tabs
};

// Room for header fields in a parsed head; HttpLimits::max_headers may lower it, never raise it.
inline constexpr size_t kMaxHttpHeaders = 100;

struct HttpLimits {
  // Start line plus header fields plus the empty line. Larger heads fail with
  // HttpError::kHeadTooLarge.
  size_t max_head_bytes = 64 * 1024;
  // More fields fail with HttpError::kTooManyHeaders. At most kMaxHttpHeaders.
  size_t max_headers = kMaxHttpHeaders;
};

// The first field named `name` (case-insensitive), or nullptr.
inline const HttpHeader* FindHeader(const HttpHeader* headers, size_t count,
                                    absl::string_view name) {
  for (size_t i = 0; i < count; ++i) {
    if (headers[i].name.size() == name.size() && absl::EqualsIgnoreCase(headers[i].name, name)) {
      return &headers[i];
    }
  }
  return nullptr;
}

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_HTTP_HEADER_H_
