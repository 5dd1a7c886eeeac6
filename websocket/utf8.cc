#include "websocket/utf8.h"

#include <cstring>

namespace netbench::websocket {
namespace {

// Bjoern Hoehrmann's UTF-8 DFA (http://bjoern.hoehrmann.de/utf-8/decoder/dfa/): the first 256
// entries map a byte to its character class, the rest map (state + class) to the next state. State
// 0 accepts, 12 rejects; every other state is inside a multi-byte character.
// clang-format off
constexpr uint8_t kUtf8Dfa[] = {
    // Byte classes: 0x00..0x7F, 0x80..0xBF, 0xC0..0xFF.
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
    8, 8, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    10, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 3, 3, 11, 6, 6, 6, 5, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
    // Transitions: states 0, 12, 24, ..., 96, each followed by its 12 classes.
    0, 12, 24, 36, 60, 96, 84, 12, 12, 12, 48, 72,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 0, 12, 12, 12, 12, 12, 0, 12, 0, 12, 12,
    12, 24, 12, 12, 12, 12, 12, 24, 12, 24, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 24, 12, 12, 12, 12,
    12, 24, 12, 12, 12, 12, 12, 12, 12, 24, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 36, 12, 36, 12, 12,
    12, 36, 12, 12, 12, 12, 12, 36, 12, 36, 12, 12,
    12, 36, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
};
// clang-format on

constexpr uint64_t kHighBits = 0x8080808080808080ULL;

inline uint64_t Load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

bool Utf8Validator::Feed(const char* data, size_t size) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  const unsigned char* const end = p + size;
  uint32_t state = state_;
  while (p < end) {
    if (state == 0) {
      // Between characters: skip ASCII in bulk.
      while (end - p >= 32 &&
             ((Load64(p) | Load64(p + 8) | Load64(p + 16) | Load64(p + 24)) & kHighBits) == 0) {
        p += 32;
      }
      while (end - p >= 8 && (Load64(p) & kHighBits) == 0) p += 8;
      while (p < end && *p < 0x80) ++p;
      if (p == end) break;
    }
    state = kUtf8Dfa[256 + state + kUtf8Dfa[*p]];
    if (state == kReject) {
      state_ = kReject;
      return false;
    }
    ++p;
  }
  state_ = state;
  return true;
}

bool IsValidUtf8(absl::string_view text) {
  Utf8Validator v;
  return v.Feed(text) && v.complete();
}

}  // namespace netbench::websocket
