// The URLs netbench's clients take: http:// and https:// (the fan-out client), ws:// and wss://
// (the WebSocket client), one parser for all four. Host name, IPv4 or bracketed IPv6 literal,
// optional port, path and query; anything else is refused with a message that says what was wrong.
//
//   absl::StatusOr<Url> url = ParseUrl("https://[::1]:8443/index.html?x=1", UrlFamily::kHttp);
//   url->host;          // "::1" (brackets removed; Resolve() takes it as is)
//   url->port;          // 8443 (80 or 443 when absent)
//   url->target;        // "/index.html?x=1", the request target
//   url->HostHeader();  // "[::1]:8443"
#ifndef NETBENCH_COMMON_URL_H_
#define NETBENCH_COMMON_URL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace netbench {

enum class UrlScheme { kHttp, kHttps, kWs, kWss };
// Which schemes a caller takes: http and https, or ws and wss.
enum class UrlFamily { kHttp, kWebSocket };

struct Url {
  UrlScheme scheme = UrlScheme::kHttp;
  std::string host;  // lower-case name, dotted IPv4, or IPv6 without brackets
  bool ipv6_literal = false;
  bool ip_literal = false;  // IPv4 or IPv6 literal: no SNI, no name to resolve
  int port = 80;
  std::string target = "/";  // path and query; the fragment is dropped

  // https and wss run over TLS.
  bool tls() const { return scheme == UrlScheme::kHttps || scheme == UrlScheme::kWss; }
  const char* scheme_name() const;
  bool default_port() const { return port == (tls() ? 443 : 80); }
  // The Host header: "example.com", "example.com:8080", "[::1]:8443".
  std::string HostHeader() const;
  // "host:port" with IPv6 bracketed, for messages and connection-pool keys.
  std::string Authority() const;
  std::string ToString() const;
};

absl::StatusOr<Url> ParseUrl(absl::string_view text, UrlFamily family);

}  // namespace netbench

#endif  // NETBENCH_COMMON_URL_H_
