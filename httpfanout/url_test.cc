#include "httpfanout/url.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace netbench {
namespace {

using ::testing::HasSubstr;

TEST(UrlTest, HostNameWithDefaultPort) {
  absl::StatusOr<Url> url = ParseUrl("http://Example.COM/index.html");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_FALSE(url->https);
  EXPECT_EQ(url->host, "example.com");
  EXPECT_EQ(url->port, 80);
  EXPECT_EQ(url->target, "/index.html");
  EXPECT_FALSE(url->ip_literal);
  EXPECT_EQ(url->HostHeader(), "example.com");
  EXPECT_EQ(url->ToString(), "http://example.com/index.html");
}

TEST(UrlTest, HttpsDefaultsTo443) {
  absl::StatusOr<Url> url = ParseUrl("HTTPS://localhost");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_TRUE(url->https);
  EXPECT_EQ(url->port, 443);
  EXPECT_EQ(url->target, "/");
}

TEST(UrlTest, Ipv4WithPortAndQuery) {
  absl::StatusOr<Url> url = ParseUrl("http://127.0.0.1:9080/a/b?x=1&y=2#frag");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_TRUE(url->ip_literal);
  EXPECT_EQ(url->port, 9080);
  EXPECT_EQ(url->target, "/a/b?x=1&y=2");
  EXPECT_EQ(url->HostHeader(), "127.0.0.1:9080");
  EXPECT_EQ(url->Authority(), "127.0.0.1:9080");
}

TEST(UrlTest, QueryWithoutPathGetsSlash) {
  absl::StatusOr<Url> url = ParseUrl("http://h?q");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->target, "/?q");
}

TEST(UrlTest, BracketedIpv6) {
  absl::StatusOr<Url> url = ParseUrl("https://[::1]:8443/x");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->host, "::1");
  EXPECT_TRUE(url->ipv6_literal);
  EXPECT_EQ(url->port, 8443);
  EXPECT_EQ(url->HostHeader(), "[::1]:8443");
  absl::StatusOr<Url> plain = ParseUrl("http://[fe80::1]/");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->port, 80);
  EXPECT_EQ(plain->HostHeader(), "[fe80::1]");
}

TEST(UrlTest, ErrorsSayWhatIsWrong) {
  struct Case {
    const char* url;
    const char* message;
  } cases[] = {
      {"127.0.0.1:9080/", "no scheme"},
      {"ftp://host/", "unsupported scheme \"ftp\""},
      {"http:///path", "no host"},
      {"http://user@host/", "user info"},
      {"http://host:0/", "bad port"},
      {"http://host:65536/", "bad port"},
      {"http://host:80x/", "bad port"},
      {"http://host:/", "bad port"},
      {"http://host:+80/", "bad port"},
      {"http://[::1/", "unterminated IPv6"},
      {"http://[nope]/", "not an IPv6 address"},
      {"http://[::1]x/", "junk after the IPv6 literal"},
      {"http://::1/", "must be in brackets"},
      {"http://ho st/", "bad character"},
      {"http://host/a b", "space or control"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Url> url = ParseUrl(c.url);
    ASSERT_FALSE(url.ok()) << c.url;
    EXPECT_EQ(url.status().code(), absl::StatusCode::kInvalidArgument) << c.url;
    EXPECT_THAT(std::string(url.status().message()), HasSubstr(c.message)) << c.url;
  }
}

}  // namespace
}  // namespace netbench
