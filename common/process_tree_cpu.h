// CPU time of a process and every live process below it, from the kernel's scheduler clock:
// nanoseconds, every thread, threads that exited included (the clock clock_getcpuclockid(3) names
// for a process). The suite reads it on the hosts it runs programs on (bench/running/ssh.py runs
// //common:process_tree_cpu there), as it reads the same clock on this machine
// (bench/running/process_cpu.py): a process's own clock, summed over its live descendants.
//
//   absl::StatusOr<ProcessTree> tree = ReadProcessTree(server_pid);
//   double cpu_seconds = tree->cpu_nanos / 1e9;
#ifndef NETBENCH_COMMON_PROCESS_TREE_CPU_H_
#define NETBENCH_COMMON_PROCESS_TREE_CPU_H_

#include <sys/types.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace netbench {

struct ProcessTree {
  int64_t cpu_nanos = 0;  // summed over `processes`
  int processes = 0;      // `pid` and its live descendants
  int threads = 0;        // their threads now; -1 where the system does not say
  int cpus = -1;          // the CPUs `pid` may run on; -1 where the system does not say
};

// One process's scheduler clock: every thread, exited ones included, not its waited-for children.
absl::StatusOr<int64_t> ProcessCpuNanos(pid_t pid);

// `pid` and every live process below it, from {pid, parent} pairs (platform.h's
// ListProcessParents).
std::vector<pid_t> Descendants(pid_t pid, const std::vector<std::pair<pid_t, pid_t>>& parents);

// The tree below `pid`, `pid` included. kNotFound when `pid` itself has gone; a descendant that
// exits meanwhile is left out.
absl::StatusOr<ProcessTree> ReadProcessTree(pid_t pid);

}  // namespace netbench

#endif  // NETBENCH_COMMON_PROCESS_TREE_CPU_H_
