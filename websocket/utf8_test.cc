#include "websocket/utf8.h"

#include <string>

#include "gtest/gtest.h"

namespace netbench::websocket {
namespace {

// A rule-by-rule reference (RFC 3629 table): returns the index of the first byte that makes the
// input invalid, input.size() when the input is a valid prefix, and sets *complete.
size_t ReferenceFirstBad(const std::string& s, bool* complete) {
  size_t i = 0;
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  while (i < s.size()) {
    unsigned char c = b(i);
    int need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
    } else if (c == 0xE0) {
      need = 2, lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      need = 2;
    } else if (c == 0xED) {
      need = 2, hi = 0x9F;
    } else if (c == 0xF0) {
      need = 3, lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      need = 3;
    } else if (c == 0xF4) {
      need = 3, hi = 0x8F;
    } else {
      *complete = false;
      return i;
    }
    size_t j = i + 1;
    for (int k = 0; k < need; ++k, ++j) {
      if (j >= s.size()) {
        *complete = false;
        return s.size();
      }
      unsigned char first_lo = k == 0 ? lo : 0x80, first_hi = k == 0 ? hi : 0xBF;
      if (b(j) < first_lo || b(j) > first_hi) {
        *complete = false;
        return j;
      }
    }
    i = j;
  }
  *complete = true;
  return s.size();
}

// Feeds byte by byte and returns the index where Feed failed (size when it never did).
size_t FirstRejected(const std::string& s, bool* complete) {
  Utf8Validator v;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!v.Feed(s.data() + i, 1)) {
      *complete = false;
      return i;
    }
  }
  *complete = v.complete();
  return s.size();
}

void ExpectSameAsReference(const std::string& s) {
  bool ref_complete, complete;
  size_t ref = ReferenceFirstBad(s, &ref_complete);
  size_t got = FirstRejected(s, &complete);
  ASSERT_EQ(got, ref) << "fail-fast position differs";
  ASSERT_EQ(complete, ref_complete);
  ASSERT_EQ(IsValidUtf8(s), ref_complete && ref == s.size());
}

TEST(Utf8Test, AllOneAndTwoByteSequences) {
  for (int a = 0; a < 256; ++a) {
    ExpectSameAsReference(std::string(1, static_cast<char>(a)));
    for (int b = 0; b < 256; ++b) {
      ExpectSameAsReference(std::string{static_cast<char>(a), static_cast<char>(b)});
    }
  }
}

TEST(Utf8Test, AllThreeByteSequencesWithALeadByte) {
  for (int a = 0xC0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      for (int c = 0; c < 256; c += (a >= 0xE0 ? 1 : 17)) {
        ExpectSameAsReference(
            std::string{static_cast<char>(a), static_cast<char>(b), static_cast<char>(c)});
      }
    }
  }
}

TEST(Utf8Test, FourByteSequencesAroundTheLimits) {
  const int seconds[] = {0x7F, 0x80, 0x8F, 0x90, 0xBF, 0xC0};
  const int rests[] = {0x00, 0x7F, 0x80, 0xBF, 0xC0};
  for (int a = 0xF0; a < 256; ++a) {
    for (int b : seconds) {
      for (int c : rests) {
        for (int d : rests) {
          ExpectSameAsReference(std::string{static_cast<char>(a), static_cast<char>(b),
                                            static_cast<char>(c), static_cast<char>(d)});
        }
      }
    }
  }
}

TEST(Utf8Test, KnownStrings) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("hello, world!"));
  EXPECT_TRUE(IsValidUtf8("\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5"));  // "κόσμε"
  EXPECT_TRUE(IsValidUtf8("\xf4\x8f\xbf\xbf"));                              // U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));                             // U+110000
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));                                 // a surrogate
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));                                     // overlong "/"
  EXPECT_FALSE(IsValidUtf8("\xe2\x82"));                                     // truncated
}

TEST(Utf8Test, LongAsciiWithOneBadByteAnywhere) {
  for (size_t len : {1, 7, 8, 31, 32, 33, 100}) {
    for (size_t bad = 0; bad < len; ++bad) {
      std::string s(len, 'a');
      s[bad] = '\xff';
      bool complete;
      EXPECT_EQ(FirstRejected(s, &complete), bad);
      Utf8Validator v;
      EXPECT_FALSE(v.Feed(s));
      EXPECT_TRUE(v.failed());
    }
  }
}

TEST(Utf8Test, SplitsAnywhereAcrossFragments) {
  const std::string text = "abc\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xf0\x9f\x98\x80xyz";
  for (size_t split = 0; split <= text.size(); ++split) {
    Utf8Validator v;
    ASSERT_TRUE(v.Feed(text.substr(0, split)));
    ASSERT_TRUE(v.Feed(text.substr(split)));
    EXPECT_TRUE(v.complete());
  }
  Utf8Validator v;
  ASSERT_TRUE(v.Feed("\xf0\x9f"));
  EXPECT_FALSE(v.complete());
}

}  // namespace
}  // namespace netbench::websocket
