// Fuzzes the response-head parser (response_parser.h).
//
// Checked: the size it returns is within the input; an accepted head has a status in 100..999, at
// most kMaxHttpHeaders fields, and views inside the head; framing() and keep_alive() answer; and
// incremental parsing agrees with one-shot parsing: a prefix that asks for more, parsed again whole
// with last_len set to the prefix's size, gives the same result as parsing the whole at once,
// except that an error in a head without its empty line yet is reported later (response_parser.h).
// Prefixes are parsed from exact-size copies, so a read past their end is a heap overflow.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "absl/strings/string_view.h"
#include "common/fuzz_check.h"
#include "httpfanout/http_error.h"
#include "httpfanout/http_header.h"
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* buf = reinterpret_cast<const char*>(data);
  ResponseHead head;
  HttpError error = HttpError::kNone;
  const int n = ParseResponseHead(buf, size, 0, &head, &error);
  FUZZ_CHECK(n == kHttpNeedMore || n == kHttpParseError ||
             (n > 0 && static_cast<size_t>(n) <= size));
  if (n == kHttpParseError) FUZZ_CHECK(error != HttpError::kNone);
  if (n > 0) CheckHead(head, absl::string_view(buf, n));

  // A prefix first, then the whole with last_len: the same answer.
  if (size > 1) {
    const size_t cut = size / 2 + (data[0] % (size / 2 + 1)) / 2;
    auto prefix = std::make_unique<char[]>(cut);
    std::memcpy(prefix.get(), buf, cut);
    ResponseHead first;
    HttpError first_error = HttpError::kNone;
    const int m = ParseResponseHead(prefix.get(), cut, 0, &first, &first_error);
    if (m == kHttpNeedMore) {
      ResponseHead again;
      HttpError again_error = HttpError::kNone;
      const int k = ParseResponseHead(buf, size, cut, &again, &again_error);
      // Until its empty line arrives, an incomplete head is not parsed again: a malformed one is
      // reported once it is complete (or too large), never a complete head missed.
      FUZZ_CHECK(k == n || (k == kHttpNeedMore && n == kHttpParseError));
      if (k == kHttpParseError) FUZZ_CHECK(again_error == error);
      if (k > 0) {
        FUZZ_CHECK(again.status == head.status && again.num_headers == head.num_headers &&
                   again.content_length == head.content_length && again.chunked == head.chunked);
      }
    } else if (m > 0) {
      // A complete head in the prefix is the same head in the whole.
      FUZZ_CHECK(m == n);
    }
  }
  return 0;
}
