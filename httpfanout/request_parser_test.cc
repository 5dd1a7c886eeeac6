#include "httpfanout/request_parser.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace netbench {
namespace {

constexpr char kCurlRequest[] =
    "GET /index.html?x=1 HTTP/1.1\r\n"
    "Host: 127.0.0.1:9080\r\n"
    "User-Agent: curl/7.88.1\r\n"
    "Accept: */*\r\n"
    "\r\n";

int Parse(const std::string& text, RequestHead* head, HttpError* error, size_t last_len = 0,
          const HttpLimits& limits = HttpLimits()) {
  return ParseRequestHead(text.data(), text.size(), last_len, head, error, limits);
}

TEST(RequestParserTest, ParsesCurlRequest) {
  RequestHead head;
  HttpError error;
  std::string text =
      std::string(kCurlRequest) + "GET / HTTP/1.1\r\n";  // a pipelined request follows
  ASSERT_EQ(Parse(text, &head, &error), static_cast<int>(sizeof(kCurlRequest) - 1));
  EXPECT_EQ(head.method, "GET");
  EXPECT_EQ(head.target, "/index.html?x=1");
  EXPECT_EQ(head.minor_version, 1);
  ASSERT_EQ(head.num_headers, 3u);
  EXPECT_EQ(head.Find("host")->value, "127.0.0.1:9080");
  EXPECT_EQ(head.content_length, -1);
  EXPECT_TRUE(head.keep_alive());
}

TEST(RequestParserTest, EverySplit) {
  const std::string text = kCurlRequest;
  for (size_t split = 0; split < text.size(); ++split) {
    RequestHead head;
    HttpError error;
    ASSERT_EQ(Parse(text.substr(0, split), &head, &error), kHttpNeedMore) << split;
    ASSERT_EQ(Parse(text, &head, &error, split), static_cast<int>(text.size())) << split;
    EXPECT_EQ(head.target, "/index.html?x=1");
    EXPECT_EQ(head.headers[2].value, "*/*");
  }
}

TEST(RequestParserTest, ConnectionSemantics) {
  RequestHead head;
  HttpError error;
  ASSERT_GT(Parse("GET / HTTP/1.0\r\n\r\n", &head, &error), 0);
  EXPECT_FALSE(head.keep_alive());
  ASSERT_GT(Parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", &head, &error), 0);
  EXPECT_TRUE(head.keep_alive());
  ASSERT_GT(Parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", &head, &error), 0);
  EXPECT_FALSE(head.keep_alive());
  ASSERT_GT(Parse("POST /x HTTP/1.1\r\nContent-Length: 11\r\n\r\n", &head, &error), 0);
  EXPECT_EQ(head.content_length, 11);
  ASSERT_GT(Parse("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &head, &error), 0);
  EXPECT_TRUE(head.chunked);
}

struct MalformedCase {
  const char* name;
  std::string text;
  HttpError error;
};

class MalformedRequestTest : public testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedRequestTest, FailsWithItsError) {
  const MalformedCase& c = GetParam();
  RequestHead head;
  HttpError error;
  EXPECT_EQ(Parse(c.text, &head, &error), kHttpParseError);
  EXPECT_EQ(error, c.error) << HttpErrorText(error);
  for (size_t split = 0; split < c.text.size(); ++split) {
    int r = Parse(c.text.substr(0, split), &head, &error);
    ASSERT_TRUE(r == kHttpNeedMore || (r == kHttpParseError && error == c.error))
        << "split " << split;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllClasses, MalformedRequestTest,
    testing::Values(
        MalformedCase{"NoMethod", " / HTTP/1.1\r\n\r\n", HttpError::kBadRequestLine},
        MalformedCase{"BadMethodChar", "GE(T / HTTP/1.1\r\n\r\n", HttpError::kBadRequestLine},
        MalformedCase{"NoTarget", "GET  HTTP/1.1\r\n\r\n", HttpError::kBadRequestLine},
        MalformedCase{"ControlInTarget", "GET /\x01 HTTP/1.1\r\n\r\n", HttpError::kBadRequestLine},
        MalformedCase{"NoVersion", "GET /\r\n\r\n", HttpError::kBadRequestLine},
        MalformedCase{"Http09Style", "GET / FOO\r\n\r\n", HttpError::kBadRequestLine},
        MalformedCase{"Http2", "GET / HTTP/2.0\r\n\r\n", HttpError::kBadVersion},
        MalformedCase{"JunkAfterVersion", "GET / HTTP/1.1x\r\n\r\n", HttpError::kBadRequestLine},
        MalformedCase{"BadHeaderName", "GET / HTTP/1.1\r\nA B: c\r\n\r\n",
                      HttpError::kBadHeaderName},
        MalformedCase{"ControlInValue", "GET / HTTP/1.1\r\nA: \x02\r\n\r\n",
                      HttpError::kBadHeaderValue},
        MalformedCase{"BadContentLength", "GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
                      HttpError::kBadContentLength},
        MalformedCase{"GzipBody", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
                      HttpError::kBadTransferEncoding},
        MalformedCase{"LengthAndChunked",
                      "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
                      HttpError::kBadTransferEncoding}),
    [](const testing::TestParamInfo<MalformedCase>& info) { return info.param.name; });

TEST(RequestParserTest, Limits) {
  RequestHead head;
  HttpError error;
  HttpLimits limits;
  limits.max_head_bytes = 256;
  std::string big = "GET / HTTP/1.1\r\nCookie: " + std::string(300, 'c');
  EXPECT_EQ(Parse(big, &head, &error, 0, limits), kHttpParseError);
  EXPECT_EQ(error, HttpError::kHeadTooLarge);
  limits = HttpLimits();
  limits.max_headers = 1;
  EXPECT_EQ(Parse("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\n\r\n", &head, &error, 0, limits),
            kHttpParseError);
  EXPECT_EQ(error, HttpError::kTooManyHeaders);
}

}  // namespace
}  // namespace netbench
