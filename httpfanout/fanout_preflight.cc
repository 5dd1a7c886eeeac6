#include "httpfanout/fanout_preflight.h"

#include <sys/resource.h>

#include "absl/strings/str_cat.h"
#include "common/platform.h"

namespace netbench {
namespace {

// Descriptors beyond the sockets: stdio, the event loop, BoringSSL's files, the CA bundle.
constexpr int64_t kSpareDescriptors = 64;

}  // namespace

std::vector<std::string> PrepareForFanout(int in_flight, int64_t connections) {
  std::vector<std::string> lines;
  const int64_t need = in_flight + kSpareDescriptors;
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      static_cast<int64_t>(limit.rlim_cur) < need) {
    rlim_t old = limit.rlim_cur;
    rlim_t wanted = static_cast<rlim_t>(need);
    limit.rlim_cur =
        (limit.rlim_max == RLIM_INFINITY || limit.rlim_max >= wanted) ? wanted : limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) == 0) {
      lines.push_back(absl::StrCat("raised RLIMIT_NOFILE from ", old, " to ", limit.rlim_cur,
                                   " for ", in_flight, " sockets in flight"));
    }
    if (static_cast<int64_t>(limit.rlim_cur) < need) {
      lines.push_back(absl::StrCat("warning: ", in_flight, " sockets in flight need about ", need,
                                   " file descriptors but RLIMIT_NOFILE allows ", limit.rlim_cur,
                                   " (hard limit ", limit.rlim_max,
                                   "); expect EMFILE errors (raise it with ulimit -n)"));
    }
  }
  // Where the system does not say (-1), the checks below are skipped.
  const NetworkLimits kernel = ReadNetworkLimits();
  if (kernel.ephemeral_port_low >= 0 && kernel.ephemeral_port_high >= kernel.ephemeral_port_low) {
    int64_t ports = kernel.ephemeral_port_high - kernel.ephemeral_port_low + 1;
    if (in_flight > ports) {
      lines.push_back(absl::StrCat("warning: ", in_flight, " connections at once exceed the ",
                                   ports, " ephemeral ports (", kernel.ephemeral_ports_setting,
                                   "); expect EADDRNOTAVAIL"));
    } else if (connections > ports) {
      const int reuse = kernel.tcp_tw_reuse;
      lines.push_back(absl::StrCat(
          "warning: the run opens ", connections, " connections but there are ", ports,
          " ephemeral ports; ports the client closes first stay in TIME_WAIT (60 s on Linux)",
          reuse < 0 ? ""
                    : absl::StrCat(" (tcp_tw_reuse=", reuse,
                                   reuse == 0   ? ": no reuse"
                                   : reuse == 2 ? ": reuse on loopback only"
                                                : ": reuse on",
                                   ")"),
          "; use --keepalive or fewer repetitions if connects fail with EADDRNOTAVAIL"));
    }
  }
  if (kernel.max_listen_backlog >= 0 && in_flight > kernel.max_listen_backlog) {
    lines.push_back(absl::StrCat("warning: ", in_flight, " simultaneous connects exceed ",
                                 kernel.max_listen_backlog_setting, "=", kernel.max_listen_backlog,
                                 ", the largest listen backlog a server can have; dropped SYNs are "
                                 "retried after 1 s and show up as slow connects"));
  }
  return lines;
}

}  // namespace netbench
