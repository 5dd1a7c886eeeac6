// What the two head parsers' fuzz targets share (request_parser_fuzzer.cc,
// response_parser_fuzzer.cc): the whole input parsed once, then a prefix of it and the whole again
// with last_len, which must agree with the one-shot parse, except that an error in a head without
// its empty line yet is reported once it is complete (response_parser.h). Prefixes are parsed from
// exact-size copies, so a read past their end is a heap overflow.
//
//   FuzzHeadParser<RequestHead>(data, size, ParseRequest, CheckHead, SameHead);
#ifndef NETBENCH_HTTPFANOUT_INTERNAL_HEAD_PARSER_FUZZ_H_
#define NETBENCH_HTTPFANOUT_INTERNAL_HEAD_PARSER_FUZZ_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "absl/strings/string_view.h"
#include "common/fuzz_check.h"
#include "httpfanout/http_error.h"
#include "httpfanout/http_header.h"

namespace netbench {
namespace http_internal {

// `parse(buf, size, last_len, &head, &error)` is the parser; `check(head, whole)` checks an
// accepted head; `same(a, b)` compares two parses of one head.
template <typename Head, typename Parse, typename Check, typename Same>
void FuzzHeadParser(const uint8_t* data, size_t size, Parse parse, Check check, Same same) {
  const char* buf = reinterpret_cast<const char*>(data);
  Head head;
  HttpError error = HttpError::kNone;
  const int n = parse(buf, size, 0, &head, &error);
  FUZZ_CHECK(n == kHttpNeedMore || n == kHttpParseError ||
             (n > 0 && static_cast<size_t>(n) <= size));
  if (n == kHttpParseError) FUZZ_CHECK(error != HttpError::kNone);
  if (n > 0) check(head, absl::string_view(buf, n));
  if (size <= 1) return;

  // A prefix first, then the whole with last_len: the same answer.
  const size_t cut = size / 2 + (data[0] % (size / 2 + 1)) / 2;
  auto prefix = std::make_unique<char[]>(cut);
  std::memcpy(prefix.get(), buf, cut);
  Head first;
  HttpError first_error = HttpError::kNone;
  const int m = parse(prefix.get(), cut, 0, &first, &first_error);
  if (m == kHttpNeedMore) {
    Head again;
    HttpError again_error = HttpError::kNone;
    const int k = parse(buf, size, cut, &again, &again_error);
    // Until its empty line arrives, an incomplete head is not parsed again: a malformed one is
    // reported once it is complete (or too large), never a complete head missed.
    FUZZ_CHECK(k == n || (k == kHttpNeedMore && n == kHttpParseError));
    if (k == kHttpParseError) FUZZ_CHECK(again_error == error);
    if (k > 0) FUZZ_CHECK(same(again, head));
  } else if (m > 0) {
    // A complete head in the prefix is the same head in the whole.
    FUZZ_CHECK(m == n);
  }
}

}  // namespace http_internal
}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_INTERNAL_HEAD_PARSER_FUZZ_H_
