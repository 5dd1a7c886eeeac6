#include "httpfanout/http_error.h"

namespace netbench {
namespace {

struct ErrorStrings {
  const char* text;
  const char* name;
};

ErrorStrings Strings(HttpError error) {
  switch (error) {
    case HttpError::kNone:
      return {"no error", "none"};
    case HttpError::kBadStatusLine:
      return {"bad status line", "bad_status_line"};
    case HttpError::kBadRequestLine:
      return {"bad request line", "bad_request_line"};
    case HttpError::kBadVersion:
      return {"unsupported HTTP version", "bad_version"};
    case HttpError::kBadStatusCode:
      return {"bad status code", "bad_status_code"};
    case HttpError::kBadHeaderName:
      return {"bad header name", "bad_header_name"};
    case HttpError::kBadHeaderValue:
      return {"control character in header value", "bad_header_value"};
    case HttpError::kBadLineEnding:
      return {"CR not followed by LF", "bad_line_ending"};
    case HttpError::kTooManyHeaders:
      return {"too many headers", "too_many_headers"};
    case HttpError::kHeadTooLarge:
      return {"header section too large", "head_too_large"};
    case HttpError::kBadContentLength:
      return {"bad Content-Length", "bad_content_length"};
    case HttpError::kBadTransferEncoding:
      return {"unsupported Transfer-Encoding", "bad_transfer_encoding"};
    case HttpError::kBadChunkSize:
      return {"bad chunk size", "bad_chunk_size"};
    case HttpError::kBadChunkExtension:
      return {"bad chunk extension", "bad_chunk_extension"};
    case HttpError::kBadChunkTerminator:
      return {"chunk data not followed by CRLF", "bad_chunk_terminator"};
    case HttpError::kTrailerTooLarge:
      return {"trailer section too large", "trailer_too_large"};
    case HttpError::kBadTrailer:
      return {"bad trailer field", "bad_trailer"};
  }
  return {"unknown error", "unknown"};
}

}  // namespace

const char* HttpErrorText(HttpError error) { return Strings(error).text; }
const char* HttpErrorName(HttpError error) { return Strings(error).name; }

}  // namespace netbench
