#include "httpfanout/response_parser.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace netbench {
namespace {

constexpr char kNginxHead[] =
    "HTTP/1.1 200 OK\r\n"
    "Server: nginx/1.22.1\r\n"
    "Date: Sun, 29 Nov 2026 20:00:00 GMT\r\n"
    "Content-Type: text/html\r\n"
    "Content-Length: 25600\r\n"
    "Last-Modified: Sun, 29 Nov 2026 19:00:00 GMT\r\n"
    "Connection: keep-alive\r\n"
    "ETag: \"6769a0d0-6400\"\r\n"
    "Accept-Ranges: bytes\r\n"
    "\r\n";

int Parse(const std::string& text, ResponseHead* head, HttpError* error, size_t last_len = 0,
          const HttpLimits& limits = HttpLimits()) {
  return ParseResponseHead(text.data(), text.size(), last_len, head, error, limits);
}

TEST(ResponseParserTest, ParsesNginxHead) {
  std::string text = std::string(kNginxHead) + "<!DOCTYPE html>";
  ResponseHead head;
  HttpError error;
  ASSERT_EQ(Parse(text, &head, &error), static_cast<int>(sizeof(kNginxHead) - 1));
  EXPECT_EQ(error, HttpError::kNone);
  EXPECT_EQ(head.minor_version, 1);
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.reason, "OK");
  ASSERT_EQ(head.num_headers, 8u);
  EXPECT_EQ(head.headers[0].name, "Server");
  EXPECT_EQ(head.headers[0].value, "nginx/1.22.1");
  EXPECT_EQ(head.headers[6].value, "\"6769a0d0-6400\"");
  EXPECT_EQ(head.content_length, 25600);
  EXPECT_EQ(head.framing(), BodyFraming::kContentLength);
  EXPECT_TRUE(head.keep_alive());
  ASSERT_NE(head.Find("content-type"), nullptr);
  EXPECT_EQ(head.Find("CONTENT-TYPE")->value, "text/html");
  EXPECT_EQ(head.Find("x-missing"), nullptr);
}

TEST(ResponseParserTest, EveryPrefixNeedsMoreAndEverySplitParsesTheSame) {
  const std::string text = kNginxHead;
  for (size_t split = 0; split < text.size(); ++split) {
    ResponseHead head;
    HttpError error;
    // A fresh call on the prefix, then the incremental call that remembers how much was seen.
    ASSERT_EQ(Parse(text.substr(0, split), &head, &error), kHttpNeedMore) << "split " << split;
    ASSERT_EQ(error, HttpError::kNone);
    ASSERT_EQ(Parse(text, &head, &error, split), static_cast<int>(text.size()))
        << "split " << split;
    EXPECT_EQ(head.status, 200);
    EXPECT_EQ(head.num_headers, 8u);
    EXPECT_EQ(head.content_length, 25600);
    EXPECT_EQ(head.headers[7].name, "Accept-Ranges");
    EXPECT_EQ(head.headers[7].value, "bytes");
  }
}

TEST(ResponseParserTest, ByteByByteIncremental) {
  const std::string text = kNginxHead;
  ResponseHead head;
  HttpError error;
  size_t last_len = 0;
  int result = kHttpNeedMore;
  for (size_t len = 1; len <= text.size(); ++len) {
    result = ParseResponseHead(text.data(), len, last_len, &head, &error);
    if (len < text.size()) {
      ASSERT_EQ(result, kHttpNeedMore) << len;
    }
    last_len = len;
  }
  EXPECT_EQ(result, static_cast<int>(text.size()));
  EXPECT_EQ(head.headers[1].value, "Sun, 29 Nov 2026 20:00:00 GMT");
}

// Found by response_parser_fuzzer (testdata/fuzz/response_parser_fuzzer/incremental_late_error): a
// call with last_len parses nothing before the empty line, so a bad version seen whole at once is
// reported by the incremental caller only when the head completes.
TEST(ResponseParserTest, IncrementalCallReportsAMalformedHeadWhenItCompletes) {
  const std::string text = "HTTP/1.o 200 OK\r\nServer: x\r\n";
  ResponseHead head;
  HttpError error;
  EXPECT_EQ(Parse(text, &head, &error), kHttpParseError);
  EXPECT_EQ(Parse(text, &head, &error, /*last_len=*/8), kHttpNeedMore);
  EXPECT_EQ(Parse(text + "\r\n", &head, &error, /*last_len=*/text.size()), kHttpParseError);
  EXPECT_NE(error, HttpError::kNone);
}

TEST(ResponseParserTest, Http10WithoutLengthIsCloseDelimited) {
  ResponseHead head;
  HttpError error;
  ASSERT_GT(Parse("HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6\r\n\r\nbody", &head, &error), 0);
  EXPECT_EQ(head.minor_version, 0);
  EXPECT_EQ(head.framing(), BodyFraming::kUntilClose);
  EXPECT_FALSE(head.keep_alive());
}

TEST(ResponseParserTest, Http10KeepAliveNeedsTheHeader) {
  ResponseHead head;
  HttpError error;
  ASSERT_GT(Parse("HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\n", &head, &error), 0);
  EXPECT_FALSE(head.keep_alive());
  ASSERT_GT(Parse("HTTP/1.0 200 OK\r\nContent-Length: 3\r\nConnection: Keep-Alive\r\n\r\n", &head,
                  &error),
            0);
  EXPECT_TRUE(head.keep_alive());
}

TEST(ResponseParserTest, Http11CloseDelimitedAndConnectionClose) {
  ResponseHead head;
  HttpError error;
  ASSERT_GT(Parse("HTTP/1.1 200 OK\r\n\r\n", &head, &error), 0);
  EXPECT_EQ(head.framing(), BodyFraming::kUntilClose);
  EXPECT_FALSE(head.keep_alive());
  ASSERT_GT(Parse("HTTP/1.1 200 OK\r\ncontent-length: 0\r\nCONNECTION: foo, Close\r\n\r\n", &head,
                  &error),
            0);
  EXPECT_EQ(head.framing(), BodyFraming::kContentLength);
  EXPECT_TRUE(head.connection_close);
  EXPECT_FALSE(head.keep_alive());
}

TEST(ResponseParserTest, TransferEncodings) {
  ResponseHead head;
  HttpError error;
  ASSERT_GT(Parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", &head, &error), 0);
  EXPECT_EQ(head.framing(), BodyFraming::kChunked);
  EXPECT_TRUE(head.keep_alive());
  ASSERT_GT(
      Parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, CHUNKED\r\nContent-Length: 9\r\n\r\n",
            &head, &error),
      0);
  EXPECT_EQ(head.framing(), BodyFraming::kChunked);  // chunked wins over Content-Length
  ASSERT_GT(Parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", &head, &error), 0);
  EXPECT_EQ(head.framing(), BodyFraming::kUntilClose);
}

TEST(ResponseParserTest, StatusesWithoutBody) {
  for (const char* text : {"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
                           "HTTP/1.1 304 Not Modified\r\n\r\n", "HTTP/1.1 100 Continue\r\n\r\n"}) {
    ResponseHead head;
    HttpError error;
    ASSERT_GT(Parse(text, &head, &error), 0) << text;
    EXPECT_EQ(head.framing(), BodyFraming::kNone) << text;
    EXPECT_TRUE(head.keep_alive()) << text;
  }
  ResponseHead head;
  HttpError error;
  ASSERT_GT(Parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", &head, &error), 0);
  EXPECT_EQ(head.framing(/*head_request=*/true), BodyFraming::kNone);
}

TEST(ResponseParserTest, BareLineFeedsEmptyReasonAndOddSpacing) {
  ResponseHead head;
  HttpError error;
  std::string text = "HTTP/1.1 404\nX-Empty:\nX-Spaces:  \t a b \t\n\n";
  ASSERT_EQ(Parse(text, &head, &error), static_cast<int>(text.size()));
  EXPECT_EQ(head.status, 404);
  EXPECT_EQ(head.reason, "");
  ASSERT_EQ(head.num_headers, 2u);
  EXPECT_EQ(head.headers[0].value, "");
  EXPECT_EQ(head.headers[1].value, "a b");
  const std::string error_text = "HTTP/1.1 500 Internal  Server\tError\r\n\r\n";
  ASSERT_GT(Parse(error_text, &head, &error), 0);
  EXPECT_EQ(head.reason, "Internal  Server\tError");
}

TEST(ResponseParserTest, ObsoleteTextInValuesIsKept) {
  ResponseHead head;
  HttpError error;
  const std::string text = "HTTP/1.1 200 OK\r\nX-Utf8: caf\xc3\xa9\r\n\r\n";
  ASSERT_GT(Parse(text, &head, &error), 0);
  EXPECT_EQ(head.headers[0].value, "caf\xc3\xa9");
}

struct MalformedCase {
  const char* name;
  std::string text;
  HttpError error;
};

class MalformedResponseTest : public testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedResponseTest, FailsWithItsErrorAndNoPrefixSucceeds) {
  const MalformedCase& c = GetParam();
  ResponseHead head;
  HttpError error;
  EXPECT_EQ(Parse(c.text, &head, &error), kHttpParseError);
  EXPECT_EQ(error, c.error) << HttpErrorText(error);
  for (size_t split = 0; split < c.text.size(); ++split) {
    int r = Parse(c.text.substr(0, split), &head, &error);
    ASSERT_TRUE(r == kHttpNeedMore || (r == kHttpParseError && error == c.error))
        << "split " << split;
    // Once a prefix is known bad, the error is the same one found on the whole input.
    ASSERT_EQ(Parse(c.text, &head, &error, split), kHttpParseError) << "split " << split;
    ASSERT_EQ(error, c.error) << "split " << split;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllClasses, MalformedResponseTest,
    testing::Values(
        MalformedCase{"NotHttp", "XTTP/1.1 200 OK\r\n\r\n", HttpError::kBadStatusLine},
        MalformedCase{"Garbage", "<html>hello there</html>\r\n\r\n", HttpError::kBadStatusLine},
        MalformedCase{"Http2", "HTTP/2.0 200 OK\r\n\r\n", HttpError::kBadVersion},
        MalformedCase{"Http12", "HTTP/1.2 200 OK\r\n\r\n", HttpError::kBadVersion},
        MalformedCase{"NoSpaceAfterVersion", "HTTP/1.1_200 OK\r\n\r\n", HttpError::kBadStatusLine},
        MalformedCase{"ShortCode", "HTTP/1.1 20 OK\r\n\r\n", HttpError::kBadStatusCode},
        MalformedCase{"LongCode", "HTTP/1.1 2000 OK\r\n\r\n", HttpError::kBadStatusCode},
        MalformedCase{"CodeBelow100", "HTTP/1.1 099 OK\r\n\r\n", HttpError::kBadStatusCode},
        MalformedCase{"LetterInCode", "HTTP/1.1 2x0 OK\r\n\r\n", HttpError::kBadStatusCode},
        MalformedCase{"ControlInReason", "HTTP/1.1 200 O\x01K\r\n\r\n", HttpError::kBadStatusLine},
        MalformedCase{"SpaceInName", "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
                      HttpError::kBadHeaderName},
        MalformedCase{"EmptyName", "HTTP/1.1 200 OK\r\n: x\r\n\r\n", HttpError::kBadHeaderName},
        MalformedCase{"NoColon", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", HttpError::kBadHeaderName},
        MalformedCase{"ObsFold", "HTTP/1.1 200 OK\r\nA: b\r\n  folded\r\n\r\n",
                      HttpError::kBadHeaderName},
        MalformedCase{"ControlInValue",
                      "HTTP/1.1 200 OK\r\nA: b\x01"
                      "c\r\n\r\n",
                      HttpError::kBadHeaderValue},
        MalformedCase{"DelInValue", "HTTP/1.1 200 OK\r\nA: b\x7f\r\n\r\n",
                      HttpError::kBadHeaderValue},
        MalformedCase{"CrWithoutLf", "HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n",
                      HttpError::kBadLineEnding},
        MalformedCase{"CrWithoutLfAtEnd", "HTTP/1.1 200 OK\r\nA: b\r\n\rX\r\n\r\n",
                      HttpError::kBadLineEnding},
        MalformedCase{"ContentLengthNotANumber", "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n",
                      HttpError::kBadContentLength},
        MalformedCase{"ContentLengthNegative", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
                      HttpError::kBadContentLength},
        MalformedCase{"ContentLengthHuge",
                      "HTTP/1.1 200 OK\r\nContent-Length: 1234567890123456789\r\n\r\n",
                      HttpError::kBadContentLength},
        MalformedCase{"ContentLengthsDiffer",
                      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\ncontent-length: 6\r\n\r\n",
                      HttpError::kBadContentLength}),
    [](const testing::TestParamInfo<MalformedCase>& info) { return info.param.name; });

TEST(ResponseParserTest, EqualRepeatedContentLengthsAreAccepted) {
  ResponseHead head;
  HttpError error;
  ASSERT_GT(
      Parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", &head, &error), 0);
  EXPECT_EQ(head.content_length, 5);
}

TEST(ResponseParserTest, TooManyHeaders) {
  std::string text = "HTTP/1.1 200 OK\r\n";
  for (int i = 0; i < 11; ++i) text += "X-H: v\r\n";
  text += "\r\n";
  ResponseHead head;
  HttpError error;
  HttpLimits limits;
  limits.max_headers = 10;
  EXPECT_EQ(Parse(text, &head, &error, 0, limits), kHttpParseError);
  EXPECT_EQ(error, HttpError::kTooManyHeaders);
  limits.max_headers = 11;
  EXPECT_EQ(Parse(text, &head, &error, 0, limits), static_cast<int>(text.size()));
  // The default allows kMaxHttpHeaders and no more.
  std::string many = "HTTP/1.1 200 OK\r\n";
  for (size_t i = 0; i <= kMaxHttpHeaders; ++i) many += "X-H: v\r\n";
  many += "\r\n";
  EXPECT_EQ(Parse(many, &head, &error), kHttpParseError);
  EXPECT_EQ(error, HttpError::kTooManyHeaders);
}

TEST(ResponseParserTest, OversizeHeadIsRefusedCompleteOrNot) {
  HttpLimits limits;
  limits.max_head_bytes = 1024;
  std::string text = "HTTP/1.1 200 OK\r\nX-Big: " + std::string(2000, 'a');
  ResponseHead head;
  HttpError error;
  // Incomplete and already over the limit: no point waiting for more.
  EXPECT_EQ(Parse(text, &head, &error, 0, limits), kHttpParseError);
  EXPECT_EQ(error, HttpError::kHeadTooLarge);
  EXPECT_EQ(Parse(text, &head, &error, 1000, limits), kHttpParseError);
  EXPECT_EQ(error, HttpError::kHeadTooLarge);
  // Complete but over the limit.
  text += "\r\n\r\n";
  EXPECT_EQ(Parse(text, &head, &error, 0, limits), kHttpParseError);
  EXPECT_EQ(error, HttpError::kHeadTooLarge);
  // Under the limit, incomplete: wait for more.
  EXPECT_EQ(Parse(text.substr(0, 500), &head, &error, 0, limits), kHttpNeedMore);
}

TEST(HttpErrorTest, EveryErrorHasTextAndName) {
  for (int e = 0; e <= static_cast<int>(HttpError::kBadTrailer); ++e) {
    EXPECT_STRNE(HttpErrorText(static_cast<HttpError>(e)), "unknown error") << e;
    EXPECT_STRNE(HttpErrorName(static_cast<HttpError>(e)), "unknown") << e;
  }
  EXPECT_STREQ(HttpErrorText(HttpError::kBadStatusLine), "bad status line");
}

}  // namespace
}  // namespace netbench
