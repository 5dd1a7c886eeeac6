// Why an HTTP message could not be parsed: one value per class of malformed input, so that parsers
// report a precise reason and callers count errors by cause without parsing text.
//
//   HttpError error;
//   if (ParseResponseHead(buf, len, 0, &head, &error) == kHttpParseError) {
//     LOG << "bad response: " << HttpErrorText(error);  // "bad status line"
//   }
#ifndef NETBENCH_HTTPFANOUT_HTTP_ERROR_H_
#define NETBENCH_HTTPFANOUT_HTTP_ERROR_H_

#include <cstdint>

namespace netbench {

// Return values shared by the incremental parsers (picohttpparser's convention): a non-negative
// value is the number of bytes consumed.
inline constexpr int kHttpParseError = -1;
inline constexpr int kHttpNeedMore = -2;

enum class HttpError : uint8_t {
  kNone = 0,
  kBadStatusLine,        // not "HTTP/1.x NNN reason"
  kBadRequestLine,       // not "METHOD target HTTP/1.x"
  kBadVersion,           // a version other than HTTP/1.0 or HTTP/1.1
  kBadStatusCode,        // not three digits in 100..999
  kBadHeaderName,        // empty name, a non-token byte, or obsolete line folding
  kBadHeaderValue,       // a control byte inside a value
  kBadLineEnding,        // CR not followed by LF
  kTooManyHeaders,       // more header fields than HttpLimits::max_headers
  kHeadTooLarge,         // status/request line and headers exceed HttpLimits::max_head_bytes
  kBadContentLength,     // not a decimal number, too large, or several different values
  kBadTransferEncoding,  // a request whose transfer coding is not chunked
  kBadChunkSize,         // not hexadecimal, or too large
  kBadChunkExtension,    // a control byte in an extension, or a chunk-size line that is too long
  kBadChunkTerminator,   // chunk data not followed by CRLF
  kTrailerTooLarge,      // trailer section exceeds its limit
  kBadTrailer,           // a malformed trailer field
};

// A short lower-case description: "bad status line", "too many headers", ...
const char* HttpErrorText(HttpError error);
// A stable identifier for counting: "bad_status_line", "too_many_headers", ...
const char* HttpErrorName(HttpError error);

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_HTTP_ERROR_H_
