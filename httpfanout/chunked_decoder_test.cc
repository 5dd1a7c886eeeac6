#include "httpfanout/chunked_decoder.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httpfanout/body_reader.h"

namespace netbench {
namespace {

struct Decoded {
  bool ok = false;
  bool done = false;
  HttpError error = HttpError::kNone;
  std::string body;
  size_t consumed = 0;
};

// Feeds `text` in pieces cut at the given positions (sorted), as reads from a socket would deliver
// it.
Decoded DecodeInPieces(const std::string& text, std::vector<size_t> cuts) {
  Decoded out;
  ChunkedDecoder decoder;
  cuts.push_back(text.size());
  size_t start = 0;
  for (size_t cut : cuts) {
    // The decoder sees each piece once; what it leaves unconsumed comes back with the next piece.
    std::string piece = text.substr(start, cut - start);
    ptrdiff_t n = decoder.DecodeAll(
        piece, [&](absl::string_view data) { out.body.append(data.data(), data.size()); });
    if (n < 0) {
      out.error = decoder.error();
      return out;
    }
    out.consumed += n;
    if (decoder.done()) break;
    // DecodeAll consumes everything until the body ends.
    EXPECT_EQ(static_cast<size_t>(n), piece.size());
    start = cut;
  }
  out.ok = true;
  out.done = decoder.done();
  EXPECT_EQ(decoder.body_bytes(), out.body.size());
  return out;
}

constexpr char kWithExtensionsAndTrailers[] =
    "5;name=value;quoted=\"a b\"\r\n"
    "hello\r\n"
    "6 ; x\r\n"
    ", worl\r\n"
    "A\r\n"
    "d! 123456\n\r\n"
    "0;last\r\n"
    "Expires: never\r\n"
    "X-Checksum: 42\r\n"
    "\r\n";

TEST(ChunkedDecoderTest, DecodesExtensionsAndTrailers) {
  std::string text = std::string(kWithExtensionsAndTrailers) + "HTTP/1.1 200 OK";
  Decoded d = DecodeInPieces(text, {});
  ASSERT_TRUE(d.ok) << HttpErrorText(d.error);
  EXPECT_TRUE(d.done);
  EXPECT_EQ(d.body, "hello, world! 123456\n");
  EXPECT_EQ(d.consumed,
            sizeof(kWithExtensionsAndTrailers) - 1);  // stops where the next message starts
}

TEST(ChunkedDecoderTest, EverySplitGivesTheSameBody) {
  const std::string text = kWithExtensionsAndTrailers;
  for (size_t split = 0; split <= text.size(); ++split) {
    Decoded d = DecodeInPieces(text, {split});
    ASSERT_TRUE(d.ok) << "split " << split << ": " << HttpErrorText(d.error);
    EXPECT_TRUE(d.done) << "split " << split;
    EXPECT_EQ(d.body, "hello, world! 123456\n") << "split " << split;
  }
}

TEST(ChunkedDecoderTest, ByteByByte) {
  const std::string text = kWithExtensionsAndTrailers;
  std::vector<size_t> cuts;
  for (size_t i = 1; i < text.size(); ++i) cuts.push_back(i);
  Decoded d = DecodeInPieces(text, cuts);
  ASSERT_TRUE(d.ok) << HttpErrorText(d.error);
  EXPECT_TRUE(d.done);
  EXPECT_EQ(d.body, "hello, world! 123456\n");
}

TEST(ChunkedDecoderTest, BareLineFeedsHexCaseAndEmptyBody) {
  Decoded d = DecodeInPieces("a\nABCDEFGHIJ\n0\n\n", {});
  ASSERT_TRUE(d.ok);
  EXPECT_TRUE(d.done);
  EXPECT_EQ(d.body, "ABCDEFGHIJ");
  Decoded upper = DecodeInPieces("0000F\r\n0123456789abcde\r\n0\r\n\r\n", {});
  EXPECT_EQ(upper.body, "0123456789abcde");
  Decoded empty = DecodeInPieces("0\r\n\r\n", {});
  ASSERT_TRUE(empty.ok);
  EXPECT_TRUE(empty.done);
  EXPECT_EQ(empty.body, "");
}

TEST(ChunkedDecoderTest, IncompleteBodyIsNotDone) {
  Decoded d = DecodeInPieces("5\r\nhel", {});
  ASSERT_TRUE(d.ok);
  EXPECT_FALSE(d.done);
  EXPECT_EQ(d.body, "hel");
  Decoded no_end = DecodeInPieces("5\r\nhello\r\n0\r\n", {});
  EXPECT_FALSE(no_end.done);
}

TEST(ChunkedDecoderTest, DecodeHandsBackOneRunOfDataPerCall) {
  std::string text = "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
  ChunkedDecoder decoder;
  absl::string_view data;
  ptrdiff_t n = decoder.Decode(text.data(), text.size(), &data);
  EXPECT_EQ(data, "abc");
  EXPECT_EQ(n,
            11);  // the size line, the data, its CRLF and the next size line: up to the next data
  absl::string_view rest(text.data() + n, text.size() - n);
  n = decoder.Decode(rest.data(), rest.size(), &data);
  EXPECT_EQ(data, "de");
  EXPECT_TRUE(decoder.done());
  EXPECT_EQ(static_cast<size_t>(n), rest.size());
}

TEST(ChunkedDecoderTest, ResetStartsANewBody) {
  ChunkedDecoder decoder;
  std::string body;
  auto sink = [&](absl::string_view d) { body.append(d.data(), d.size()); };
  ASSERT_GT(decoder.DecodeAll("1\r\nx\r\n0\r\n\r\n", sink), 0);
  EXPECT_TRUE(decoder.done());
  decoder.Reset();
  EXPECT_FALSE(decoder.done());
  ASSERT_GT(decoder.DecodeAll("1\r\ny\r\n0\r\n\r\n", sink), 0);
  EXPECT_EQ(body, "xy");
}

struct MalformedChunked {
  const char* name;
  std::string text;
  HttpError error;
};

class MalformedChunkedTest : public testing::TestWithParam<MalformedChunked> {};

TEST_P(MalformedChunkedTest, FailsWithItsErrorAtEverySplit) {
  const MalformedChunked& c = GetParam();
  for (size_t split = 0; split <= c.text.size(); ++split) {
    Decoded d = DecodeInPieces(c.text, {split});
    ASSERT_FALSE(d.ok) << "split " << split;
    ASSERT_EQ(d.error, c.error) << "split " << split << ": " << HttpErrorText(d.error);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllClasses, MalformedChunkedTest,
    testing::Values(
        MalformedChunked{"NotHex", "g\r\n", HttpError::kBadChunkSize},
        MalformedChunked{"EmptySize", "\r\nabc", HttpError::kBadChunkSize},
        MalformedChunked{"NegativeSize", "-5\r\nhello\r\n", HttpError::kBadChunkSize},
        MalformedChunked{"JunkAfterSize", "5x\r\nhello\r\n", HttpError::kBadChunkSize},
        MalformedChunked{"SpaceInsideSize", "5 5\r\nhello\r\n", HttpError::kBadChunkSize},
        MalformedChunked{"CrWithoutLf", "5\rhello\r\n", HttpError::kBadChunkSize},
        MalformedChunked{"Overflow", "fffffffffffffffff\r\n", HttpError::kBadChunkSize},
        MalformedChunked{"ControlInExtension", "5;a=\x01\r\nhello\r\n",
                         HttpError::kBadChunkExtension},
        MalformedChunked{"EndlessExtension", "5;" + std::string(5000, 'x'),
                         HttpError::kBadChunkExtension},
        MalformedChunked{"EndlessZeros", std::string(5000, '0'), HttpError::kBadChunkExtension},
        MalformedChunked{"DataTooLong", "5\r\nhello!\r\n0\r\n\r\n", HttpError::kBadChunkTerminator},
        MalformedChunked{"DataCrWithoutLf", "5\r\nhello\rX0\r\n\r\n",
                         HttpError::kBadChunkTerminator},
        MalformedChunked{"BadTrailerName", "0\r\n:bad\r\n\r\n", HttpError::kBadTrailer},
        MalformedChunked{"FinalCrWithoutLf", "0\r\n\rX", HttpError::kBadTrailer},
        MalformedChunked{"EndlessTrailer", "0\r\nX: " + std::string(20000, 'y'),
                         HttpError::kTrailerTooLarge}),
    [](const testing::TestParamInfo<MalformedChunked>& info) { return info.param.name; });

TEST(BodyReaderTest, ContentLengthStopsAtTheEnd) {
  BodyReader reader;
  reader.Start(BodyFraming::kContentLength, 5);
  std::string body;
  auto sink = [&](absl::string_view d) { body.append(d.data(), d.size()); };
  EXPECT_EQ(reader.Feed("hel", sink), 3);
  EXPECT_FALSE(reader.done());
  EXPECT_EQ(reader.Feed("loHTTP", sink), 2);
  EXPECT_TRUE(reader.done());
  EXPECT_EQ(body, "hello");
  EXPECT_EQ(reader.Feed("more", sink), 0);
}

TEST(BodyReaderTest, UntilCloseEndsAtEof) {
  BodyReader reader;
  reader.Start(BodyFraming::kUntilClose, -1);
  std::string body;
  auto sink = [&](absl::string_view d) { body.append(d.data(), d.size()); };
  EXPECT_EQ(reader.Feed("abc", sink), 3);
  EXPECT_FALSE(reader.done());
  EXPECT_TRUE(reader.OnEof());
  EXPECT_TRUE(reader.done());
  EXPECT_EQ(body, "abc");
}

TEST(BodyReaderTest, TruncatedBodiesAreReported) {
  BodyReader reader;
  reader.Start(BodyFraming::kContentLength, 10);
  EXPECT_EQ(reader.Feed("abc", [](absl::string_view) {}), 3);
  EXPECT_FALSE(reader.OnEof());
  reader.Start(BodyFraming::kChunked, -1);
  EXPECT_GT(reader.Feed("5\r\nab", [](absl::string_view) {}), 0);
  EXPECT_FALSE(reader.OnEof());
}

TEST(BodyReaderTest, ChunkedAndNone) {
  BodyReader reader;
  std::string body;
  auto sink = [&](absl::string_view d) { body.append(d.data(), d.size()); };
  reader.Start(BodyFraming::kChunked, -1);
  EXPECT_EQ(reader.Feed("2\r\nok\r\n0\r\n\r\nNEXT", sink), 12);
  EXPECT_TRUE(reader.done());
  EXPECT_EQ(body, "ok");
  EXPECT_EQ(reader.body_bytes(), 2u);
  reader.Start(BodyFraming::kNone, 100);
  EXPECT_TRUE(reader.done());
  reader.Start(BodyFraming::kChunked, -1);
  EXPECT_EQ(reader.Feed("z\r\n", sink), kHttpParseError);
  EXPECT_EQ(reader.error(), HttpError::kBadChunkSize);
}

}  // namespace
}  // namespace netbench
