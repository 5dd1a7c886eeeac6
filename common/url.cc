#include "common/url.h"

#include <arpa/inet.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace netbench {
namespace {

absl::Status Invalid(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("bad URL \"", text, "\": ", why));
}

bool IsHostNameChar(char c) { return absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_'; }

// Request-target bytes: visible ASCII (percent-encoding is passed through as is).
bool IsTargetChar(char c) { return c > 0x20 && c < 0x7f; }

}  // namespace

const char* Url::scheme_name() const {
  switch (scheme) {
    case UrlScheme::kHttp:
      return "http";
    case UrlScheme::kHttps:
      return "https";
    case UrlScheme::kWs:
      return "ws";
    case UrlScheme::kWss:
      return "wss";
  }
  return "?";
}

std::string Url::HostHeader() const {
  std::string host_part = ipv6_literal ? absl::StrCat("[", host, "]") : host;
  if (default_port()) return host_part;
  return absl::StrCat(host_part, ":", port);
}

std::string Url::Authority() const {
  return absl::StrCat(ipv6_literal ? absl::StrCat("[", host, "]") : host, ":", port);
}

std::string Url::ToString() const {
  return absl::StrCat(scheme_name(), "://", HostHeader(), target);
}

absl::StatusOr<Url> ParseUrl(absl::string_view text, UrlFamily family) {
  const bool web_socket = family == UrlFamily::kWebSocket;
  const char* plain = web_socket ? "ws" : "http";
  const char* secure = web_socket ? "wss" : "https";
  Url url;
  size_t scheme_end = text.find("://");
  if (scheme_end == absl::string_view::npos) {
    return Invalid(text,
                   absl::StrCat("no scheme; write ", plain, "://host/ or ", secure, "://host/"));
  }
  absl::string_view scheme = text.substr(0, scheme_end);
  if (absl::EqualsIgnoreCase(scheme, plain)) {
    url.scheme = web_socket ? UrlScheme::kWs : UrlScheme::kHttp;
  } else if (absl::EqualsIgnoreCase(scheme, secure)) {
    url.scheme = web_socket ? UrlScheme::kWss : UrlScheme::kHttps;
  } else {
    return Invalid(text, absl::StrCat("unsupported scheme \"", scheme, "\" (want ", plain, " or ",
                                      secure, ")"));
  }
  url.port = url.tls() ? 443 : 80;
  absl::string_view rest = text.substr(scheme_end + 3);
  size_t authority_end = rest.find_first_of("/?#");
  absl::string_view authority = rest.substr(0, authority_end);
  absl::string_view target =
      authority_end == absl::string_view::npos ? absl::string_view() : rest.substr(authority_end);
  if (authority.find('@') != absl::string_view::npos)
    return Invalid(text, "user info is not supported");

  absl::string_view port_text;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == absl::string_view::npos) return Invalid(text, "unterminated IPv6 literal");
    url.host = std::string(authority.substr(1, close - 1));
    in6_addr addr;
    if (inet_pton(AF_INET6, url.host.c_str(), &addr) != 1) {
      return Invalid(text, absl::StrCat("\"", url.host, "\" is not an IPv6 address"));
    }
    url.ipv6_literal = url.ip_literal = true;
    absl::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return Invalid(text, "junk after the IPv6 literal");
      port_text = after.substr(1);
      has_port = true;
    }
  } else {
    size_t colon = authority.rfind(':');
    absl::string_view host = authority.substr(0, colon);
    if (colon != absl::string_view::npos) {
      port_text = authority.substr(colon + 1);
      has_port = true;
    }
    if (host.find(':') != absl::string_view::npos) {
      return Invalid(text, absl::StrCat("an IPv6 address must be in brackets, as in ", plain,
                                        "://[::1]:8080/"));
    }
    for (char c : host) {
      if (!IsHostNameChar(c))
        return Invalid(text, absl::StrCat("bad character '", std::string(1, c), "' in host"));
    }
    url.host = absl::AsciiStrToLower(host);
    in_addr addr;
    url.ip_literal = inet_pton(AF_INET, url.host.c_str(), &addr) == 1;
  }
  if (url.host.empty()) return Invalid(text, "no host");
  if (has_port) {
    int port = 0;
    if (port_text.empty() || port_text.size() > 5 || !absl::SimpleAtoi(port_text, &port) ||
        !absl::ascii_isdigit(port_text.front()) || port < 1 || port > 65535) {
      return Invalid(text, absl::StrCat("bad port \"", port_text, "\" (want 1..65535)"));
    }
    url.port = port;
  }
  target = target.substr(0, target.find('#'));
  for (char c : target) {
    if (!IsTargetChar(c))
      return Invalid(text, "space or control character in path (percent-encode it)");
  }
  // An empty path means "/", and a bare query gets one in front. (Built with push_back/append: g++
  // 12 warns falsely under -Wrestrict about assigning a literal here.)
  url.target.clear();
  if (target.empty() || target.front() == '?') url.target.push_back('/');
  url.target.append(target.data(), target.size());
  return url;
}

}  // namespace netbench
