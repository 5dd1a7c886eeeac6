// Fuzzes the response-head parser (response_parser.h).
//
// Checked: the size it returns is within the input; an accepted head has a status in 100..999, at
// most kMaxHttpHeaders fields, and views inside the head; framing() and keep_alive() answer; and
// incremental parsing agrees with one-shot parsing (internal/head_parser_fuzz.h).

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "common/fuzz_check.h"
#include "httpfanout/http_error.h"
#include "httpfanout/http_header.h"
#include "httpfanout/internal/head_parser_fuzz.h"
#include "httpfanout/response_parser.h"

namespace {

using namespace netbench;

void CheckHead(const ResponseHead& head, absl::string_view whole) {
  FUZZ_CHECK(head.status >= 100 && head.status <= 999);
  FUZZ_CHECK(head.minor_version == 0 || head.minor_version == 1);
  FUZZ_CHECK(head.num_headers <= kMaxHttpHeaders);
  FUZZ_CHECK(Within(head.reason, whole));
  for (size_t i = 0; i < head.num_headers; ++i) {
    FUZZ_CHECK(!head.headers[i].name.empty());
    FUZZ_CHECK(Within(head.headers[i].name, whole) && Within(head.headers[i].value, whole));
  }
  FUZZ_CHECK(head.content_length >= -1);
  (void)head.framing(false);
  (void)head.framing(true);
  (void)head.keep_alive(false);
}

bool SameHead(const ResponseHead& a, const ResponseHead& b) {
  return a.status == b.status && a.num_headers == b.num_headers &&
         a.content_length == b.content_length && a.chunked == b.chunked;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  netbench::http_internal::FuzzHeadParser<ResponseHead>(
      data, size,
      [](const char* buf, size_t n, size_t last_len, ResponseHead* head, HttpError* error) {
        return ParseResponseHead(buf, n, last_len, head, error);
      },
      CheckHead, SameHead);
  return 0;
}
