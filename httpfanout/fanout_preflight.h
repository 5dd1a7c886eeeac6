// Checks, before a fan-out run, the limits that would make it fail or stall for reasons that have
// nothing to do with the code under test: file descriptors, ephemeral ports (and TIME_WAIT), the
// listen backlog. Raises RLIMIT_NOFILE as far as the hard limit allows.
//
//   for (const std::string& line : PrepareForFanout(500, 500 * 11)) {
//     std::fprintf(stderr, "%s\n", line.c_str());
//   }
#ifndef NETBENCH_HTTPFANOUT_FANOUT_PREFLIGHT_H_
#define NETBENCH_HTTPFANOUT_FANOUT_PREFLIGHT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace netbench {

// `in_flight` sockets open at once; `connections` opened over the whole run. Returns notes ("raised
// ...") and warnings ("warning: ..."), one per line.
std::vector<std::string> PrepareForFanout(int in_flight, int64_t connections);

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_FANOUT_PREFLIGHT_H_
