#include "httpfanout/chunked_decoder.h"

#include <algorithm>
#include <cstring>

#include "httpfanout/internal/http_scan.h"

namespace netbench {
namespace {

// The value of a hex digit, or -1.
inline int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  unsigned char lower = static_cast<unsigned char>(c) | 0x20;
  if (lower >= 'a' && lower <= 'f') return lower - 'a' + 10;
  return -1;
}

// Chunk sizes above this are refused: no real body is an exabyte, and it keeps the arithmetic in
// range.
constexpr uint64_t kMaxChunkSize = uint64_t{1} << 60;

}  // namespace

ptrdiff_t ChunkedDecoder::Decode(const char* input, size_t length, absl::string_view* data) {
  *data = absl::string_view();
  if (state_ == State::kError) return -1;
  const char* p = input;
  const char* const end = input + length;
  while (p < end) {
    switch (state_) {
      case State::kData: {
        if (!data->empty()) return p - input;  // one run of data per call; the caller comes back
        size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, end - p));
        *data = absl::string_view(p, n);
        p += n;
        remaining_ -= n;
        body_bytes_ += n;
        if (remaining_ == 0) state_ = State::kDataCr;
        break;
      }
      case State::kSize: {
        const char* start = p;
        for (; p < end; ++p) {
          int digit = HexValue(*p);
          if (digit < 0) break;
          if (remaining_ > kMaxChunkSize / 16) return Fail(HttpError::kBadChunkSize);
          remaining_ = remaining_ * 16 + digit;
          size_has_digits_ = true;
        }
        line_bytes_ += p - start;
        if (line_bytes_ > kMaxChunkLineBytes) return Fail(HttpError::kBadChunkExtension);
        if (p == end) break;
        if (!size_has_digits_) return Fail(HttpError::kBadChunkSize);
        char c = *p++;
        ++line_bytes_;
        if (c == '\r') {
          state_ = State::kSizeLf;
        } else if (c == '\n') {
          state_ = remaining_ == 0 ? State::kTrailerStart : State::kData;
        } else if (c == ';') {
          state_ = State::kExtension;
        } else if (c == ' ' || c == '\t') {
          state_ = State::kSizeSpace;
        } else {
          return Fail(HttpError::kBadChunkSize);
        }
        break;
      }
      case State::kSizeSpace: {
        char c = *p++;
        if (++line_bytes_ > kMaxChunkLineBytes) return Fail(HttpError::kBadChunkExtension);
        if (c == ';') {
          state_ = State::kExtension;
        } else if (c == '\r') {
          state_ = State::kSizeLf;
        } else if (c == '\n') {
          state_ = remaining_ == 0 ? State::kTrailerStart : State::kData;
        } else if (c != ' ' && c != '\t') {
          return Fail(HttpError::kBadChunkSize);
        }
        break;
      }
      case State::kExtension: {
        // Extensions are skipped; they only have to be free of control bytes and of bounded length.
        const char* ctl = http_internal::FindControl(p, end);
        line_bytes_ += ctl - p;
        if (line_bytes_ > kMaxChunkLineBytes) return Fail(HttpError::kBadChunkExtension);
        p = ctl;
        if (p == end) break;
        char c = *p++;
        ++line_bytes_;
        if (c == '\r') {
          state_ = State::kSizeLf;
        } else if (c == '\n') {
          state_ = remaining_ == 0 ? State::kTrailerStart : State::kData;
        } else {
          return Fail(HttpError::kBadChunkExtension);
        }
        break;
      }
      case State::kSizeLf:
        if (*p++ != '\n') return Fail(HttpError::kBadChunkSize);
        state_ = remaining_ == 0 ? State::kTrailerStart : State::kData;
        break;
      case State::kDataCr: {
        char c = *p++;
        if (c == '\r') {
          state_ = State::kDataLf;
        } else if (c == '\n') {
          state_ = State::kSize;
        } else {
          return Fail(HttpError::kBadChunkTerminator);
        }
        if (state_ == State::kSize) {
          size_has_digits_ = false;
          line_bytes_ = 0;
        }
        break;
      }
      case State::kDataLf:
        if (*p++ != '\n') return Fail(HttpError::kBadChunkTerminator);
        state_ = State::kSize;
        size_has_digits_ = false;
        line_bytes_ = 0;
        break;
      case State::kTrailerStart: {
        char c = *p++;
        ++trailer_bytes_;
        if (c == '\r') {
          state_ = State::kEndLf;
        } else if (c == '\n') {
          state_ = State::kDone;
          return p - input;
        } else if (http_internal::IsToken(c)) {
          state_ = State::kTrailerLine;
        } else {
          return Fail(HttpError::kBadTrailer);
        }
        break;
      }
      case State::kTrailerLine: {
        const void* lf = std::memchr(p, '\n', end - p);
        const char* stop = lf == nullptr ? end : static_cast<const char*>(lf) + 1;
        trailer_bytes_ += stop - p;
        if (trailer_bytes_ > max_trailer_bytes_) return Fail(HttpError::kTrailerTooLarge);
        p = stop;
        if (lf != nullptr) state_ = State::kTrailerStart;
        break;
      }
      case State::kEndLf:
        if (*p++ != '\n') return Fail(HttpError::kBadTrailer);
        state_ = State::kDone;
        return p - input;
      case State::kDone:
        return p - input;
      case State::kError:
        return -1;
    }
    if (trailer_bytes_ > max_trailer_bytes_) return Fail(HttpError::kTrailerTooLarge);
  }
  return p - input;
}

}  // namespace netbench
