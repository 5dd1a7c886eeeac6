// UTF-8 validation for WebSocket text messages: incremental across fragments, failing at the first
// byte that cannot belong to valid UTF-8 (RFC 6455 section 8.1 asks endpoints to fail fast), with a
// fast path that checks runs of ASCII 32 bytes at a time.
//
//   Utf8Validator v;
//   if (!v.Feed(fragment1.data(), fragment1.size())) return Close(kCloseInvalidPayload);
//   if (!v.Feed(fragment2.data(), fragment2.size())) return Close(kCloseInvalidPayload);
//   // The message must not end inside a character.
//   if (!v.complete()) return Close(kCloseInvalidPayload);
//
// Overlong forms, surrogates (U+D800..U+DFFF) and code points above U+10FFFF are rejected at the
// first byte that rules them out.
#ifndef NETBENCH_WEBSOCKET_UTF8_H_
#define NETBENCH_WEBSOCKET_UTF8_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace netbench::websocket {

class Utf8Validator {
 public:
  // Validates the next piece of the text. Returns false at the first invalid byte; the validator
  // then stays failed until Reset().
  bool Feed(const char* data, size_t size);
  bool Feed(absl::string_view text) { return Feed(text.data(), text.size()); }
  // True when everything fed so far is valid and ends on a character boundary.
  bool complete() const { return state_ == 0; }
  bool failed() const { return state_ == kReject; }
  void Reset() { state_ = 0; }

 private:
  static constexpr uint32_t kReject = 12;
  uint32_t state_ = 0;
};

// Whether `text` is complete, valid UTF-8.
bool IsValidUtf8(absl::string_view text);

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_UTF8_H_
