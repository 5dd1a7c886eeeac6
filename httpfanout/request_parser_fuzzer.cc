// Fuzzes the request-head parser (request_parser.h).
//
// Checked: the size it returns is within the input; an accepted head has a method, a target, at
// most kMaxHttpHeaders fields, and views inside the head; keep_alive() answers; and
// incremental parsing agrees with one-shot parsing (internal/head_parser_fuzz.h).

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "common/fuzz_check.h"
#include "httpfanout/http_error.h"
#include "httpfanout/http_header.h"
#include "httpfanout/internal/head_parser_fuzz.h"
#include "httpfanout/request_parser.h"

namespace {

using namespace netbench;

void CheckHead(const RequestHead& head, absl::string_view whole) {
  FUZZ_CHECK(!head.method.empty() && !head.target.empty());
  FUZZ_CHECK(Within(head.method, whole) && Within(head.target, whole));
  FUZZ_CHECK(head.minor_version == 0 || head.minor_version == 1);
  FUZZ_CHECK(head.num_headers <= kMaxHttpHeaders);
  for (size_t i = 0; i < head.num_headers; ++i) {
    FUZZ_CHECK(!head.headers[i].name.empty());
    FUZZ_CHECK(Within(head.headers[i].name, whole) && Within(head.headers[i].value, whole));
  }
  FUZZ_CHECK(head.content_length >= -1);
  (void)head.keep_alive();
}

bool SameHead(const RequestHead& a, const RequestHead& b) {
  return a.method == b.method && a.num_headers == b.num_headers &&
         a.content_length == b.content_length && a.chunked == b.chunked;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  netbench::http_internal::FuzzHeadParser<RequestHead>(
      data, size,
      [](const char* buf, size_t n, size_t last_len, RequestHead* head, HttpError* error) {
        return ParseRequestHead(buf, n, last_len, head, error);
      },
      CheckHead, SameHead);
  return 0;
}
