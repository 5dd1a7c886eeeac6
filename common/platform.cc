// Each function in two forms: Linux's (NETBENCH_LINUX) and the POSIX fallback.
#include "common/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/errno_status.h"

#if NETBENCH_LINUX
#include <dirent.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#elif defined(__APPLE__) || defined(__FreeBSD__)
#include <sys/sysctl.h>
#endif

namespace netbench {
namespace {

#if NETBENCH_LINUX

// The first number(s) of a /proc file; false (and nothing stored) when it is missing or holds
// something else.
bool ReadProcNumbers(const char* path, int64_t* a, int64_t* b = nullptr) {
  std::ifstream in(path);
  int64_t first = 0, second = 0;
  if (!(in >> first) || (b != nullptr && !(in >> second))) return false;
  *a = first;
  if (b != nullptr) *b = second;
  return true;
}

#else

// Close-on-exec, and O_NONBLOCK set or cleared as asked (BSD's accept() hands on the listener's
// O_NONBLOCK, Linux's does not). Closes `fd` and returns -1 on failure.
int SetDescriptorFlags(int fd, bool non_blocking) {
  const int status = fcntl(fd, F_GETFL);
  const int wanted = non_blocking ? (status | O_NONBLOCK) : (status & ~O_NONBLOCK);
  if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || status < 0 ||
      (wanted != status && fcntl(fd, F_SETFL, wanted) != 0)) {
    const int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

// Once per process; a handler someone installed is left alone (server.cc does the same).
void IgnoreSigpipe() {
  static const bool ignored = [] {
    struct sigaction current {};
    if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
      signal(SIGPIPE, SIG_IGN);
    }
    return true;
  }();
  (void)ignored;
}

// A new socket: no SIGPIPE from it (macOS says so per socket, everyone per process).
int PrepareSocket(int fd, bool non_blocking) {
  if (fd < 0 || SetDescriptorFlags(fd, non_blocking) < 0) return -1;
#ifdef SO_NOSIGPIPE
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one));
#endif
  IgnoreSigpipe();
  return fd;
}

#if defined(__APPLE__) || defined(__FreeBSD__)
// An int sysctl; false (and nothing stored) when there is none.
bool SysctlNumber(const char* name, int64_t* value) {
  int number = 0;
  size_t size = sizeof(number);
  if (sysctlbyname(name, &number, &size, nullptr, 0) != 0 || size != sizeof(number)) return false;
  *value = number;
  return true;
}
#endif

#endif  // NETBENCH_LINUX

}  // namespace

int OpenStreamSocket(int family, bool non_blocking) {
#if NETBENCH_LINUX
  return socket(family, SOCK_STREAM | SOCK_CLOEXEC | (non_blocking ? SOCK_NONBLOCK : 0), 0);
#else
  return PrepareSocket(socket(family, SOCK_STREAM, 0), non_blocking);
#endif
}

int AcceptConnection(int listen_fd, bool non_blocking) {
#if NETBENCH_LINUX
  return accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | (non_blocking ? SOCK_NONBLOCK : 0));
#else
  return PrepareSocket(accept(listen_fd, nullptr, nullptr), non_blocking);
#endif
}

int OpenPipe(int fds[2], bool non_blocking) {
#if NETBENCH_LINUX
  return pipe2(fds, O_CLOEXEC | (non_blocking ? O_NONBLOCK : 0));
#else
  if (pipe(fds) != 0) return -1;
  for (int i = 0; i < 2; ++i) {
    if (SetDescriptorFlags(fds[i], non_blocking) < 0) {  // closed fds[i]
      const int err = errno;
      close(fds[1 - i]);
      errno = err;
      return -1;
    }
  }
  return 0;
#endif
}

ssize_t SendNoSignal(int fd, const void* data, size_t length, int flags) {
#if NETBENCH_RAW_SYSCALLS
  return syscall(SYS_sendto, fd, data, length, flags | MSG_NOSIGNAL, nullptr, 0);
#elif NETBENCH_LINUX
  return send(fd, data, length, flags | MSG_NOSIGNAL);
#else
  IgnoreSigpipe();
  return send(fd, data, length, flags);
#endif
}

ssize_t SendMessageNoSignal(int fd, const msghdr* message, int flags) {
#if NETBENCH_RAW_SYSCALLS
  return syscall(SYS_sendmsg, fd, message, flags | MSG_NOSIGNAL);
#elif NETBENCH_LINUX
  return sendmsg(fd, message, flags | MSG_NOSIGNAL);
#else
  IgnoreSigpipe();
  return sendmsg(fd, message, flags);
#endif
}

ssize_t ReadUncancellable(int fd, void* buffer, size_t length) {
#if NETBENCH_RAW_SYSCALLS
  return syscall(SYS_read, fd, buffer, length);
#else
  return read(fd, buffer, length);
#endif
}

int PollUncancellable(pollfd* fds, nfds_t count, int timeout_millis) {
#if NETBENCH_RAW_SYSCALLS
  // ppoll: every Linux architecture has it (arm64 has no poll). It may write the time left back.
  timespec timeout{timeout_millis / 1000, (timeout_millis % 1000) * 1000000L};
  return static_cast<int>(
      syscall(SYS_ppoll, fds, count, timeout_millis < 0 ? nullptr : &timeout, nullptr, 0));
#else
  return poll(fds, count, timeout_millis);
#endif
}

bool RequestPreciseWakeups() {
#if NETBENCH_LINUX
  return prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) == 0;
#else
  return false;
#endif
}

void SleepUntilMonotonic(int64_t deadline_nanos) {
#if NETBENCH_LINUX
  const timespec deadline{static_cast<time_t>(deadline_nanos / kNanosPerSecond),
                          static_cast<long>(deadline_nanos % kNanosPerSecond)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr) == EINTR) {
  }
#else
  // macOS has no clock_nanosleep: sleep for what is left, and again after a signal.
  for (int64_t left; (left = deadline_nanos - MonotonicNanos()) > 0;) {
    const timespec wait{static_cast<time_t>(left / kNanosPerSecond),
                        static_cast<long>(left % kNanosPerSecond)};
    nanosleep(&wait, nullptr);
  }
#endif
}

bool RetainFreedHeap(size_t trim_threshold_bytes, size_t top_pad_bytes) {
#if NETBENCH_LINUX && defined(__GLIBC__)
  auto as_int = [](size_t bytes) { return bytes > (1u << 30) ? 1 << 30 : static_cast<int>(bytes); };
  return mallopt(M_TRIM_THRESHOLD, as_int(trim_threshold_bytes)) == 1 &&
         mallopt(M_TOP_PAD, as_int(top_pad_bytes)) == 1;
#else
  (void)trim_threshold_bytes;
  (void)top_pad_bytes;
  return false;
#endif
}

int OnlineCpuCount() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 0 ? static_cast<int>(cpus) : 1;
}

int AvailableCpuCount() {
#if NETBENCH_LINUX
  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  if (sched_getaffinity(0, sizeof(affinity), &affinity) == 0) return CPU_COUNT(&affinity);
#endif
  return OnlineCpuCount();
}

uint64_t ResidentMemoryBytes() {
#if NETBENCH_LINUX
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (absl::StartsWith(line, "VmRSS:"))
      return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return 0;
#else
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
#if defined(__APPLE__)
  return static_cast<uint64_t>(usage.ru_maxrss);  // bytes on macOS
#else
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // KiB on Linux and the BSDs
#endif
#endif
}

std::string CpuModelName() {
#if NETBENCH_LINUX
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (!absl::StartsWith(line, "model name")) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos)
      return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  return "";
#elif defined(__APPLE__) || defined(__FreeBSD__)
#if defined(__APPLE__)
  const char* name = "machdep.cpu.brand_string";
#else
  const char* name = "hw.model";
#endif
  char model[256] = {0};
  size_t size = sizeof(model) - 1;
  return sysctlbyname(name, model, &size, nullptr, 0) == 0 ? std::string(model) : "";
#else
  return "";
#endif
}

absl::StatusOr<std::string> ReadProcessStatLine(pid_t pid) {
#if NETBENCH_LINUX
  const std::string path = absl::StrCat("/proc/", pid, "/stat");
  FILE* file = fopen(path.c_str(), "r");
  if (file == nullptr) return ErrnoStatus(errno, path);
  char line[4096];
  const bool read_ok = fgets(line, sizeof(line), file) != nullptr;
  fclose(file);
  if (!read_ok) return absl::UnavailableError(absl::StrCat(path, ": empty"));
  return std::string(line);
#else
  return absl::UnimplementedError(absl::StrCat(
      "CPU time of process ", pid, ": only Linux (/proc) shows another process's CPU time"));
#endif
}

absl::StatusOr<std::vector<std::pair<pid_t, pid_t>>> ListProcessParents() {
#if NETBENCH_LINUX
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return ErrnoStatus(errno, "/proc");
  std::vector<std::pair<pid_t, pid_t>> parents;
  while (const dirent* entry = readdir(proc)) {
    char* end;
    const long pid = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    absl::StatusOr<std::string> line = ReadProcessStatLine(static_cast<pid_t>(pid));
    if (!line.ok()) continue;  // exited meanwhile
    const size_t name_end = line->rfind(')');
    if (name_end == std::string::npos) continue;
    // After the name: " S PPID ...".
    char state;
    long parent;
    if (sscanf(line->c_str() + name_end + 1, " %c %ld", &state, &parent) != 2) continue;
    parents.emplace_back(static_cast<pid_t>(pid), static_cast<pid_t>(parent));
  }
  closedir(proc);
  return parents;
#else
  return absl::UnimplementedError(
      "the process tree: only Linux (/proc) lists every process's parent");
#endif
}

int ProcessThreadCount(pid_t pid) {
#if NETBENCH_LINUX
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (absl::StartsWith(line, "Threads:")) return atoi(line.c_str() + strlen("Threads:"));
  }
#endif
  (void)pid;
  return -1;
}

int ProcessAllowedCpuCount(pid_t pid) {
#if NETBENCH_LINUX
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(pid, sizeof(set), &set) == 0) return CPU_COUNT(&set);
#endif
  (void)pid;
  return -1;
}

bool KillWhenParentExits() {
#if NETBENCH_LINUX
  return prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == 0;
#else
  return false;
#endif
}

NetworkLimits ReadNetworkLimits() {
  NetworkLimits limits;
#if NETBENCH_LINUX
  if (ReadProcNumbers("/proc/sys/net/ipv4/ip_local_port_range", &limits.ephemeral_port_low,
                      &limits.ephemeral_port_high)) {
    limits.ephemeral_ports_setting = "net.ipv4.ip_local_port_range";
  }
  if (int64_t reuse; ReadProcNumbers("/proc/sys/net/ipv4/tcp_tw_reuse", &reuse)) {
    limits.tcp_tw_reuse = static_cast<int>(reuse);
  }
  if (ReadProcNumbers("/proc/sys/net/core/somaxconn", &limits.max_listen_backlog)) {
    limits.max_listen_backlog_setting = "net.core.somaxconn";
  }
#elif defined(__APPLE__) || defined(__FreeBSD__)
  int64_t low, high;
  if (SysctlNumber("net.inet.ip.portrange.first", &low) &&
      SysctlNumber("net.inet.ip.portrange.last", &high)) {
    limits.ephemeral_port_low = low;
    limits.ephemeral_port_high = high;
    limits.ephemeral_ports_setting = "net.inet.ip.portrange.first/last";
  }
  if (SysctlNumber("kern.ipc.somaxconn", &limits.max_listen_backlog)) {
    limits.max_listen_backlog_setting = "kern.ipc.somaxconn";
  }
#endif
  return limits;
}

}  // namespace netbench
