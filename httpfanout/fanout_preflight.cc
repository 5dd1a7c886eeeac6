#include "httpfanout/fanout_preflight.h"

#include <sys/resource.h>

#include <fstream>

#include "absl/strings/str_cat.h"

namespace netbench {
namespace {

// Descriptors beyond the sockets: stdio, the event loop, BoringSSL's files, the CA bundle.
constexpr int64_t kSpareDescriptors = 64;

bool ReadNumbers(const char* path, int64_t* a, int64_t* b = nullptr) {
  std::ifstream in(path);
  if (!(in >> *a)) return false;
  if (b != nullptr && !(in >> *b)) return false;
  return true;
}

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
  int64_t low = 0, high = 0;
  if (ReadNumbers("/proc/sys/net/ipv4/ip_local_port_range", &low, &high) && high >= low) {
    int64_t ports = high - low + 1;
    if (in_flight > ports) {
      lines.push_back(
          absl::StrCat("warning: ", in_flight, " connections at once exceed the ", ports,
                       " ephemeral ports (net.ipv4.ip_local_port_range); expect EADDRNOTAVAIL"));
    } else if (connections > ports) {
      int64_t reuse = 0;
      ReadNumbers("/proc/sys/net/ipv4/tcp_tw_reuse", &reuse);
      lines.push_back(absl::StrCat(
          "warning: the run opens ", connections, " connections but there are ", ports,
          " ephemeral ports; ports the client closes first stay in TIME_WAIT for 60 s "
          "(tcp_tw_reuse=",
          reuse,
          reuse == 0 ? ": no reuse" : (reuse == 2 ? ": reuse on loopback only" : ": reuse on"),
          "); use --keepalive or fewer repetitions if connects fail with EADDRNOTAVAIL"));
    }
  }
  int64_t somaxconn = 0;
  if (ReadNumbers("/proc/sys/net/core/somaxconn", &somaxconn) && in_flight > somaxconn) {
    lines.push_back(absl::StrCat("warning: ", in_flight,
                                 " simultaneous connects exceed net.core.somaxconn=", somaxconn,
                                 ", the largest listen backlog a server can have; dropped SYNs are "
                                 "retried after 1 s and show up as slow connects"));
  }
  return lines;
}

}  // namespace netbench
