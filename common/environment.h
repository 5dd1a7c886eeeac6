// Facts about the machine and the build that make a result comparable with another one: OS, kernel, CPU
// model, cores, compiler, build mode, library versions, git commit and the time of the run.
//
//   Environment env = CollectEnvironment();
//   absl::PrintF("%s on %s (%d cores)\n", env.kernel, env.cpu_model, env.cores);
#ifndef NETBENCH_COMMON_ENVIRONMENT_H_
#define NETBENCH_COMMON_ENVIRONMENT_H_

#include <string>
#include <utility>
#include <vector>

namespace netbench {

struct Environment {
  std::string os;            // "Linux"
  std::string os_release;    // PRETTY_NAME from /etc/os-release: "Debian GNU/Linux 12 (bookworm)"
  std::string kernel;        // uname release: "6.1.0-18-amd64"
  std::string machine;       // "x86_64"
  std::string hostname;
  std::string cpu_model;     // "AMD EPYC 7B13"
  int cores = 0;             // online CPUs
  int cores_available = 0;   // CPUs this process may run on (affinity mask, cgroup pinning)
  std::string compiler;      // "g++ 12.2.0"
  std::string build_mode;    // "opt" or "dbg", plus "+asan"/"+tsan"/"+ubsan"
  std::vector<std::pair<std::string, std::string>> libraries;  // {"abseil", "20220623"}, ...
  std::string git_commit;    // "" when unknown
  std::string timestamp_utc; // "2026-11-29T20:14:03Z"
};

// Reads the environment once; cheap enough to call at the end of every run.
Environment CollectEnvironment();

}  // namespace netbench

#endif  // NETBENCH_COMMON_ENVIRONMENT_H_
