#include "common/process_tree_cpu.h"

#include <errno.h>
#include <time.h>

#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "common/errno_status.h"
#include "common/platform.h"

namespace netbench {

absl::StatusOr<int64_t> ProcessCpuNanos(pid_t pid) {
#if defined(__APPLE__)
  return absl::UnimplementedError("macOS has no clock_getcpuclockid");
#else
  clockid_t clock;
  if (int error = clock_getcpuclockid(pid, &clock); error != 0) {
    return ErrnoStatus(error, absl::StrCat("clock_getcpuclockid(", pid, ")"));
  }
  timespec now;
  if (clock_gettime(clock, &now) != 0)
    return ErrnoStatus(errno, absl::StrCat("clock_gettime of ", pid));
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
#endif
}

std::vector<pid_t> Descendants(pid_t pid, const std::vector<std::pair<pid_t, pid_t>>& parents) {
  std::unordered_multimap<pid_t, pid_t> children;
  for (const auto& [child, parent] : parents) children.emplace(parent, child);
  std::vector<pid_t> found;
  std::vector<pid_t> todo = {pid};
  while (!todo.empty()) {
    const pid_t current = todo.back();
    todo.pop_back();
    found.push_back(current);
    auto [begin, end] = children.equal_range(current);
    for (auto it = begin; it != end; ++it) todo.push_back(it->second);
  }
  return found;
}

absl::StatusOr<ProcessTree> ReadProcessTree(pid_t pid) {
  absl::StatusOr<int64_t> own = ProcessCpuNanos(pid);
  if (!own.ok())
    return absl::NotFoundError(absl::StrCat("process ", pid, ": ", own.status().message()));
  absl::StatusOr<std::vector<std::pair<pid_t, pid_t>>> parents = ListProcessParents();
  if (!parents.ok()) return parents.status();
  ProcessTree tree;
  tree.cpus = ProcessAllowedCpuCount(pid);
  for (pid_t member : Descendants(pid, *parents)) {
    absl::StatusOr<int64_t> nanos = member == pid ? own : ProcessCpuNanos(member);
    if (!nanos.ok()) continue;  // exited meanwhile
    tree.cpu_nanos += *nanos;
    ++tree.processes;
    const int threads = ProcessThreadCount(member);
    tree.threads = (threads < 0 || tree.threads < 0) ? -1 : tree.threads + threads;
  }
  return tree;
}

}  // namespace netbench
