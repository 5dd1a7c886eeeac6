// Fuzzes the URL parser (url.h) for both families: the first byte picks http/https or ws/wss, the
// rest is the URL.
//
// Checked: an accepted URL has a scheme of its family, a non-empty host, a port in 1..65535 and a
// target that starts with '/'; and it round-trips: ToString() parses again to the same URL.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/fuzz_check.h"
#include "common/url.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace netbench;
  if (size < 1) return 0;
  const UrlFamily family = (data[0] & 1) != 0 ? UrlFamily::kWebSocket : UrlFamily::kHttp;
  const absl::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const absl::StatusOr<Url> url = ParseUrl(text, family);
  if (!url.ok()) {
    FUZZ_CHECK(!url.status().message().empty());
    return 0;
  }
  const bool web_socket = url->scheme == UrlScheme::kWs || url->scheme == UrlScheme::kWss;
  FUZZ_CHECK(web_socket == (family == UrlFamily::kWebSocket));
  FUZZ_CHECK(!url->host.empty());
  FUZZ_CHECK(url->port >= 1 && url->port <= 65535);
  FUZZ_CHECK(!url->target.empty() && url->target[0] == '/');
  FUZZ_CHECK(!url->ipv6_literal || url->ip_literal);
  (void)url->HostHeader();
  (void)url->Authority();

  const absl::StatusOr<Url> again = ParseUrl(url->ToString(), family);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->scheme == url->scheme && again->host == url->host && again->port == url->port &&
             again->target == url->target && again->ipv6_literal == url->ipv6_literal &&
             again->ip_literal == url->ip_literal);
  return 0;
}
