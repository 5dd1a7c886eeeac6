// What differs between Linux and the other POSIX systems (macOS, FreeBSD), in one place. Everything
// else in netbench calls these instead of Linux's or glibc's own interfaces (accept4, SOCK_CLOEXEC,
// MSG_NOSIGNAL, pipe2, prctl, clock_nanosleep, mallopt, sched_getaffinity, /proc), so that the
// threads and poll models, the clients and common/ build anywhere; only epoll_event_loop.cc is
// Linux's alone. Linux gets the one-call forms; the POSIX fallback does the same in two steps
// (socket() + fcntl) or says it does not know (-1, "").
//
//   UniqueFd fd(OpenStreamSocket(address.family(), /*non_blocking=*/true));  // close-on-exec
//   if (!fd.valid()) return ErrnoStatus(errno, "socket");
//   ssize_t n = SendNoSignal(fd.get(), data, size);  // a vanished peer: EPIPE, never SIGPIPE
//   if (kHasEpoll) ...
//
// The socket, pipe and send calls return what the calls they stand for return (-1 with errno set on
// failure), so callers translate errno where it arises, with their own context (errno_status.h).
//
// NETBENCH_PLATFORM_POSIX (set by --define=netbench_platform=posix, which .bazelrc's
// --config=libcxx passes) builds the fallback on Linux too, so that a Linux machine proves it
// compiles and passes the tests.
#ifndef NETBENCH_COMMON_PLATFORM_H_
#define NETBENCH_COMMON_PLATFORM_H_

#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

// 1 where Linux's own interfaces are used, 0 for the POSIX fallback. The build leaves
// epoll_event_loop.cc out exactly when this is 0 (common/BUILD.bazel).
#if defined(__linux__) && !defined(NETBENCH_PLATFORM_POSIX)
#define NETBENCH_LINUX 1
#else
#define NETBENCH_LINUX 0
#endif

// 1 where the hot calls go straight through syscall(2) (ReadUncancellable below): Linux, except
// under a sanitizer, whose interceptors of the libc calls check their buffers (ASan) and order
// threads through them (TSan).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NETBENCH_SANITIZED_CALLS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NETBENCH_SANITIZED_CALLS 1
#endif
#if NETBENCH_LINUX && !defined(NETBENCH_SANITIZED_CALLS)
#define NETBENCH_RAW_SYSCALLS 1
#else
#define NETBENCH_RAW_SYSCALLS 0
#endif

namespace netbench {

// "linux" or "posix": which of the two this build uses.
inline constexpr const char* kPlatformName = NETBENCH_LINUX ? "linux" : "posix";

// The epoll event loop (and so the epoll server model) is built.
inline constexpr bool kHasEpoll = NETBENCH_LINUX;

// SO_REUSEPORT spreads incoming connections over several sockets listening on one port (Linux
// hashes each connection to one of them). Elsewhere the last socket bound takes them all (macOS) or
// that takes another option (FreeBSD's SO_REUSEPORT_LB), so several event loops share one listener
// instead (server.h).
inline constexpr bool kReusePortSpreadsConnections = NETBENCH_LINUX;

// A SOCK_STREAM socket of `family`, close-on-exec (tests and the suite start servers as children,
// which must not inherit sockets), non-blocking when asked.
int OpenStreamSocket(int family, bool non_blocking);

// accept() of one pending connection, with the same flags as OpenStreamSocket.
int AcceptConnection(int listen_fd, bool non_blocking);

// pipe(), both ends close-on-exec, and non-blocking when asked. Returns 0 or -1.
int OpenPipe(int fds[2], bool non_blocking);

// send() and sendmsg() that never raise SIGPIPE: a peer that went away gives -1 and EPIPE. Linux
// passes MSG_NOSIGNAL; the fallback sets SO_NOSIGPIPE where there is one (macOS, on the sockets
// opened above) and ignores SIGPIPE in the process, which every POSIX system can.
ssize_t SendNoSignal(int fd, const void* data, size_t length, int flags = 0);
ssize_t SendMessageNoSignal(int fd, const msghdr* message, int flags = 0);

// The calls of the hot path (a send or a read per message, a wait per wakeup) go straight through
// syscall(2) on Linux, SendNoSignal and SendMessageNoSignal included: glibc's wrappers of these are
// thread-cancellation points, and in a process with more than one thread (every netbench server
// and client) each call turns asynchronous cancellation on and off around the system call, about
// 30 instructions, a sixth of the client driver's cost per streamed message (callgrind). netbench
// never cancels a thread. Elsewhere, and under a sanitizer, they are the plain calls.
ssize_t ReadUncancellable(int fd, void* buffer, size_t length);
int PollUncancellable(pollfd* fds, nfds_t count, int timeout_millis);

// Asks the kernel to wake this thread's timed sleeps on time (Linux's timer slack: up to 50 us late
// by default, 1 ns after this). Returns false where there is no such setting.
bool RequestPreciseWakeups();

// Sleeps until MonotonicNanos() (clock.h) reaches `deadline_nanos`, signals notwithstanding.
void SleepUntilMonotonic(int64_t deadline_nanos);

// Keeps freed heap memory up to `trim_threshold_bytes` at the top of the heap (and grows it by
// `top_pad_bytes` at a time) instead of handing it back to the kernel after each burst, which the
// next burst would page-fault in again (glibc's mallopt). Returns false where the allocator has no
// such setting.
bool RetainFreedHeap(size_t trim_threshold_bytes, size_t top_pad_bytes);

// CPUs online, and those this process may run on (the affinity mask: taskset, cgroup pinning; the
// online count where the system does not say).
int OnlineCpuCount();
int AvailableCpuCount();

// "AMD EPYC 7B13"; "" when the system does not say.
std::string CpuModelName();

// This process's resident memory in bytes: VmRSS on Linux; elsewhere getrusage's peak, which bounds
// it from above (tests that check growth then err on the strict side). 0 when unknown.
uint64_t ResidentMemoryBytes();

// Process `pid`'s statistics line as the kernel writes it (Linux: /proc/PID/stat; cpu_time.h
// parses it). kUnimplemented where there is none.
absl::StatusOr<std::string> ReadProcessStatLine(pid_t pid);

// Every live process's parent, as {pid, parent pid} pairs (Linux: /proc/*/stat); kUnimplemented
// where the system does not say.
absl::StatusOr<std::vector<std::pair<pid_t, pid_t>>> ListProcessParents();

// Threads of process `pid` now (Linux: /proc/PID/status), and the CPUs it may run on (its affinity
// mask); -1 where the system does not say or the process has gone.
int ProcessThreadCount(pid_t pid);
int ProcessAllowedCpuCount(pid_t pid);

// Asks the kernel to send SIGKILL to the calling process when its parent exits, so that a wrapper
// killed outright leaves no orphan. Returns false where there is no such setting.
bool KillWhenParentExits();

// Kernel limits that a run with many connections runs into. -1 where this system does not say.
struct NetworkLimits {
  // The ephemeral ports connect() picks from, and the setting that sets them.
  int64_t ephemeral_port_low = -1;
  int64_t ephemeral_port_high = -1;
  const char* ephemeral_ports_setting = "";
  // Linux's net.ipv4.tcp_tw_reuse: 0 no reuse of TIME_WAIT ports, 1 reuse, 2 on loopback only.
  int tcp_tw_reuse = -1;
  // The longest listen backlog the kernel grants, and its setting.
  int64_t max_listen_backlog = -1;
  const char* max_listen_backlog_setting = "";
};
NetworkLimits ReadNetworkLimits();

}  // namespace netbench

#endif  // NETBENCH_COMMON_PLATFORM_H_
