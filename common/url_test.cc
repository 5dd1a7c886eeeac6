#include "common/url.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace netbench {
namespace {

using ::testing::HasSubstr;

TEST(UrlTest, HostNameWithDefaultPort) {
  absl::StatusOr<Url> url = ParseUrl("http://Example.COM/index.html", UrlFamily::kHttp);
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_FALSE(url->tls());
  EXPECT_EQ(url->host, "example.com");
  EXPECT_EQ(url->port, 80);
  EXPECT_EQ(url->target, "/index.html");
  EXPECT_FALSE(url->ip_literal);
  EXPECT_EQ(url->HostHeader(), "example.com");
  EXPECT_EQ(url->ToString(), "http://example.com/index.html");
}

TEST(UrlTest, HttpsDefaultsTo443) {
  absl::StatusOr<Url> url = ParseUrl("HTTPS://localhost", UrlFamily::kHttp);
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_TRUE(url->tls());
  EXPECT_EQ(url->port, 443);
  EXPECT_EQ(url->target, "/");
}

TEST(UrlTest, Ipv4WithPortAndQuery) {
  absl::StatusOr<Url> url = ParseUrl("http://127.0.0.1:9080/a/b?x=1&y=2#frag", UrlFamily::kHttp);
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_TRUE(url->ip_literal);
  EXPECT_EQ(url->port, 9080);
  EXPECT_EQ(url->target, "/a/b?x=1&y=2");
  EXPECT_EQ(url->HostHeader(), "127.0.0.1:9080");
  EXPECT_EQ(url->Authority(), "127.0.0.1:9080");
}

TEST(UrlTest, QueryWithoutPathGetsSlash) {
  absl::StatusOr<Url> url = ParseUrl("http://h?q", UrlFamily::kHttp);
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->target, "/?q");
}

TEST(UrlTest, BracketedIpv6) {
  absl::StatusOr<Url> url = ParseUrl("https://[::1]:8443/x", UrlFamily::kHttp);
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->host, "::1");
  EXPECT_TRUE(url->ipv6_literal);
  EXPECT_EQ(url->port, 8443);
  EXPECT_EQ(url->HostHeader(), "[::1]:8443");
  absl::StatusOr<Url> plain = ParseUrl("http://[fe80::1]/", UrlFamily::kHttp);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->port, 80);
  EXPECT_EQ(plain->HostHeader(), "[fe80::1]");
}

TEST(UrlTest, WebSocketSchemes) {
  absl::StatusOr<Url> ws = ParseUrl("ws://[::1]:8080/echo?x", UrlFamily::kWebSocket);
  ASSERT_TRUE(ws.ok()) << ws.status();
  EXPECT_EQ(ws->scheme, UrlScheme::kWs);
  EXPECT_FALSE(ws->tls());
  EXPECT_EQ(ws->host, "::1");
  EXPECT_EQ(ws->port, 8080);
  EXPECT_EQ(ws->target, "/echo?x");
  EXPECT_EQ(ws->ToString(), "ws://[::1]:8080/echo?x");
  absl::StatusOr<Url> wss = ParseUrl("WSS://localhost", UrlFamily::kWebSocket);
  ASSERT_TRUE(wss.ok()) << wss.status();
  EXPECT_TRUE(wss->tls());
  EXPECT_EQ(wss->port, 443);
  EXPECT_EQ(wss->target, "/");
}

TEST(UrlTest, EachClientTakesItsOwnSchemes) {
  absl::StatusOr<Url> http_for_ws = ParseUrl("http://h/", UrlFamily::kWebSocket);
  ASSERT_FALSE(http_for_ws.ok());
  EXPECT_THAT(std::string(http_for_ws.status().message()), HasSubstr("want ws or wss"));
  absl::StatusOr<Url> ws_for_http = ParseUrl("ws://h/", UrlFamily::kHttp);
  ASSERT_FALSE(ws_for_http.ok());
  EXPECT_THAT(std::string(ws_for_http.status().message()), HasSubstr("want http or https"));
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
    absl::StatusOr<Url> url = ParseUrl(c.url, UrlFamily::kHttp);
    ASSERT_FALSE(url.ok()) << c.url;
    EXPECT_EQ(url.status().code(), absl::StatusCode::kInvalidArgument) << c.url;
    EXPECT_THAT(std::string(url.status().message()), HasSubstr(c.message)) << c.url;
  }
}

}  // namespace
}  // namespace netbench
