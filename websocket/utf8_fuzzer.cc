// Differential fuzzing of the UTF-8 validator (utf8.h) against a plain reference decoder written
// here from RFC 3629's definition: it decodes each character's code point and checks the range,
// where the validator runs a DFA and skips ASCII 8 and 32 bytes at a time.
//
// Both the whole-text verdict and fail-fast are compared: after any prefix, Feed() must have
// failed exactly when no valid text starts with that prefix, and complete() must say whether the
// prefix ends on a character boundary. The text is fed whole, in three pieces, and (when short)
// byte by byte.

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "common/fuzz_check.h"
#include "websocket/utf8.h"

namespace {

enum class Verdict { kValid, kInsideCharacter, kInvalid };

// Whether some code point of an n-byte sequence that starts with the code point bits [lo, hi] is
// allowed: at least the shortest form's minimum, at most U+10FFFF, and not only surrogates.
bool CanBeValid(uint32_t lo, uint32_t hi, int n) {
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  static constexpr uint32_t kMax[] = {0, 0x7F, 0x7FF, 0xFFFF, 0x10FFFF};
  lo = std::max(lo, kMin[n]);
  hi = std::min(hi, kMax[n]);
  if (lo > hi) return false;
  return !(lo >= 0xD800 && hi <= 0xDFFF);
}

Verdict ReferenceVerdict(absl::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  size_t i = 0;
  while (i < text.size()) {
    const unsigned lead = p[i];
    int n;
    uint32_t bits;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if (lead >= 0xC0 && lead < 0xE0) {
      n = 2;
      bits = lead & 0x1F;
    } else if (lead >= 0xE0 && lead < 0xF0) {
      n = 3;
      bits = lead & 0x0F;
    } else if (lead >= 0xF0 && lead < 0xF8) {
      n = 4;
      bits = lead & 0x07;
    } else {
      return Verdict::kInvalid;  // a continuation byte, or 0xF8..0xFF
    }
    // The code points that the bytes seen so far still allow: [lo, hi].
    uint32_t lo = bits;
    uint32_t hi = bits;
    int seen = 1;
    for (; seen < n; ++seen) {
      // Before each byte: could any continuation give a valid character?
      const int missing = n - seen;
      if (!CanBeValid(lo << (6 * missing), (hi << (6 * missing)) | ((1u << (6 * missing)) - 1),
                      n)) {
        return Verdict::kInvalid;
      }
      if (i + seen == text.size()) return Verdict::kInsideCharacter;
      const unsigned c = p[i + seen];
      if ((c & 0xC0) != 0x80) return Verdict::kInvalid;
      lo = (lo << 6) | (c & 0x3F);
      hi = lo;
    }
    if (!CanBeValid(lo, hi, n)) return Verdict::kInvalid;
    i += n;
  }
  return Verdict::kValid;
}

void CheckPrefix(const netbench::websocket::Utf8Validator& v, bool fed_ok,
                 absl::string_view prefix) {
  const Verdict expected = ReferenceVerdict(prefix);
  FUZZ_CHECK(fed_ok == (expected != Verdict::kInvalid));
  FUZZ_CHECK(v.failed() == (expected == Verdict::kInvalid));
  FUZZ_CHECK(v.complete() == (expected == Verdict::kValid));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using netbench::websocket::IsValidUtf8;
  using netbench::websocket::Utf8Validator;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);

  FUZZ_CHECK(IsValidUtf8(text) == (ReferenceVerdict(text) == Verdict::kValid));

  // In three pieces: the cuts depend on the size, so the corpus reaches many of them.
  const size_t cut1 = size / 3;
  const size_t cut2 = size - size / 4;
  Utf8Validator v;
  bool ok = v.Feed(text.substr(0, cut1));
  CheckPrefix(v, ok, text.substr(0, cut1));
  if (ok) {
    ok = v.Feed(text.substr(cut1, cut2 - cut1));
    CheckPrefix(v, ok, text.substr(0, cut2));
  }
  if (ok) {
    ok = v.Feed(text.substr(cut2));
    CheckPrefix(v, ok, text);
  }

  if (size <= 64) {
    Utf8Validator bytewise;
    for (size_t i = 0; i < size; ++i) {
      const bool fed = bytewise.Feed(text.substr(i, 1));
      CheckPrefix(bytewise, fed, text.substr(0, i + 1));
      if (!fed) break;
    }
  }
  return 0;
}
