// CPU time of this process or another one, for "CPU per message" figures: on two shared cores
// msgs/s alone cannot tell two programs apart, the CPU each spends per message can.
//
//   CpuTimes before = SelfCpuTimes();
//   RunLoad();
//   double us_per_msg = (SelfCpuTimes().total_nanos() - before.total_nanos()) / 1e3 / messages;
//
//   absl::StatusOr<CpuTimes> server = CpuTimesOfProcess(server_pid);  // Linux: /proc/PID/stat
#ifndef NETBENCH_COMMON_CPU_TIME_H_
#define NETBENCH_COMMON_CPU_TIME_H_

#include <sys/types.h>

#include <cstdint>

#include "absl/status/statusor.h"

namespace netbench {

struct CpuTimes {
  int64_t user_nanos = 0;
  int64_t system_nanos = 0;
  int64_t total_nanos() const { return user_nanos + system_nanos; }
  CpuTimes operator-(const CpuTimes& earlier) const {
    return {user_nanos - earlier.user_nanos, system_nanos - earlier.system_nanos};
  }
};

// All threads of this process, from getrusage(RUSAGE_SELF) (microsecond resolution).
CpuTimes SelfCpuTimes();

// All threads of process `pid`, from /proc/PID/stat (clock-tick resolution, usually 10 ms: measure
// runs of seconds, not milliseconds). Without /proc (platform.h: not Linux) only this process's
// own, from getrusage, and kUnimplemented for any other.
absl::StatusOr<CpuTimes> CpuTimesOfProcess(pid_t pid);

// Parses the utime and stime fields of a /proc/PID/stat line; exposed for tests.
absl::StatusOr<CpuTimes> ParseProcStat(const char* stat_line, long ticks_per_second);

}  // namespace netbench

#endif  // NETBENCH_COMMON_CPU_TIME_H_
