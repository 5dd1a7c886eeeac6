#include "common/cpu_time.h"

#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "common/platform.h"

namespace netbench {

CpuTimes SelfCpuTimes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto nanos = [](const timeval& tv) {
    return int64_t{tv.tv_sec} * 1000000000 + int64_t{tv.tv_usec} * 1000;
  };
  return {nanos(usage.ru_utime), nanos(usage.ru_stime)};
}

absl::StatusOr<CpuTimes> ParseProcStat(const char* stat_line, long ticks_per_second) {
  // The command name (field 2) is in parentheses and may itself hold spaces and ')': skip to the
  // last ')'.
  const char* after_name = strrchr(stat_line, ')');
  if (after_name == nullptr) return absl::InvalidArgumentError("malformed /proc stat line: no ')'");
  // Fields from 3 (state) on; utime and stime are fields 14 and 15.
  const char* p = after_name + 1;
  int field = 2;
  unsigned long long values[2] = {0, 0};
  while (*p != '\0' && field < 15) {
    while (*p == ' ') ++p;
    ++field;
    if (field == 14 || field == 15) {
      char* end;
      values[field - 14] = strtoull(p, &end, 10);
      if (end == p) return absl::InvalidArgumentError("malformed /proc stat line: bad utime/stime");
      p = end;
    } else {
      while (*p != ' ' && *p != '\0') ++p;
    }
  }
  if (field < 15) return absl::InvalidArgumentError("malformed /proc stat line: too few fields");
  int64_t nanos_per_tick = 1000000000 / ticks_per_second;
  return CpuTimes{static_cast<int64_t>(values[0]) * nanos_per_tick,
                  static_cast<int64_t>(values[1]) * nanos_per_tick};
}

absl::StatusOr<CpuTimes> CpuTimesOfProcess(pid_t pid) {
  absl::StatusOr<std::string> line = ReadProcessStatLine(pid);
  if (line.ok()) return ParseProcStat(line->c_str(), sysconf(_SC_CLK_TCK));
  // Without /proc (not Linux) this process can still ask getrusage about itself.
  if (absl::IsUnimplemented(line.status()) && pid == getpid()) return SelfCpuTimes();
  return line.status();
}

}  // namespace netbench
