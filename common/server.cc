// Server::Start, model names and flags, and the pieces every model shares.
#include "common/server.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <mutex>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/clock.h"
#include "common/internal/server_models.h"
#include "common/platform.h"
#include "common/tls.h"
#include "common/transport.h"

#if NETBENCH_LINUX
#include "common/internal/uring_probe.h"
#endif

namespace netbench {

ServerModel DefaultServerModel() { return kHasEpoll ? ServerModel::kEpoll : ServerModel::kPoll; }

std::vector<ServerModel> AvailableServerModels() {
  std::vector<ServerModel> models = {ServerModel::kThreads, ServerModel::kPoll};
  if (kHasEpoll) models.push_back(ServerModel::kEpoll);
  if (UringSupport().ok()) models.push_back(ServerModel::kUring);
  return models;
}

namespace {

std::mutex uring_support_mutex;
std::optional<absl::Status> uring_support;  // guarded by uring_support_mutex

}  // namespace

void internal::ForgetUringSupport() {
  std::lock_guard<std::mutex> lock(uring_support_mutex);
  uring_support.reset();
}

absl::Status UringSupport() {
#if NETBENCH_LINUX
  std::lock_guard<std::mutex> lock(uring_support_mutex);
  if (!uring_support.has_value()) uring_support = internal::ProbeUring();
  return *uring_support;
#else
  return absl::UnimplementedError(absl::StrCat("--model=uring is not built on this platform (",
                                               kPlatformName, ": Linux only)"));
#endif
}

absl::StatusOr<ServerModel> ParseServerModel(absl::string_view name) {
  if (name == "threads") return ServerModel::kThreads;
  if (name == "poll") return ServerModel::kPoll;
  if (name == "epoll") {
    if (kHasEpoll) return ServerModel::kEpoll;
    return absl::InvalidArgumentError(absl::StrCat("--model=epoll is not built on this platform (",
                                                   kPlatformName,
                                                   ": Linux only); use poll or threads"));
  }
  if (name == "uring") {
    if (kHasEpoll) return ServerModel::kUring;  // built where epoll is (platform.bzl)
    return absl::InvalidArgumentError(absl::StrCat("--model=uring is not built on this platform (",
                                                   kPlatformName,
                                                   ": Linux only); use poll or threads"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown model \"", name, "\" (want threads, poll, epoll or uring)"));
}

const char* ServerModelName(ServerModel model) {
  switch (model) {
    case ServerModel::kThreads:
      return "threads";
    case ServerModel::kPoll:
      return "poll";
    case ServerModel::kEpoll:
      return "epoll";
    case ServerModel::kUring:
      return "uring";
  }
  return "?";
}

bool AbslParseFlag(absl::string_view text, ServerModel* model, std::string* error) {
  absl::StatusOr<ServerModel> parsed = ParseServerModel(text);
  if (!parsed.ok()) {
    *error = std::string(parsed.status().message());
    return false;
  }
  *model = *parsed;
  return true;
}

std::string AbslUnparseFlag(ServerModel model) { return ServerModelName(model); }

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerOptions& options,
                                                      HandlerFactory handler_factory) {
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("port out of range: ", options.port));
  }
  if (options.threads < 1) {
    return absl::InvalidArgumentError(absl::StrCat("threads must be >= 1, got ", options.threads));
  }
  if (options.max_connections < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_connections must be >= 1, got ", options.max_connections));
  }
  if (options.read_size == 0) return absl::InvalidArgumentError("read_size must be > 0");
  if (options.max_pending_input == 0) {
    return absl::InvalidArgumentError("max_pending_input must be > 0");
  }
  if (!handler_factory) return absl::InvalidArgumentError("no handler factory");
  if (options.model == ServerModel::kUring) {
    if (absl::Status support = UringSupport(); !support.ok()) return support;
    const int buffers = options.uring_buffers;
    if (buffers < 1 || buffers > 32768 || (buffers & (buffers - 1)) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("uring_buffers must be a power of two from 1 to 32768, got ", buffers));
    }
  }
  // A peer that resets must never kill the server. Plain TCP and the TLS socket BIO send with
  // SendNoSignal (platform.h) already; this covers any other write to a socket.
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    signal(SIGPIPE, SIG_IGN);
  }
  switch (options.model) {
    case ServerModel::kThreads:
      return internal::StartThreadServer(options, std::move(handler_factory));
    case ServerModel::kPoll:
    case ServerModel::kEpoll:
      return internal::StartEventLoopServer(options, std::move(handler_factory));
    case ServerModel::kUring:
#if NETBENCH_LINUX
      return internal::StartUringServer(options, std::move(handler_factory));
#else
      return UringSupport();
#endif
  }
  return absl::InvalidArgumentError("unknown server model");
}

std::string ConnectionSpreadNote(const ServerOptions& options) {
  if (options.model == ServerModel::kThreads || options.threads <= 1 ||
      kReusePortSpreadsConnections) {
    return "";
  }
  return absl::StrFormat(
      "note: --threads=%d: on this platform (%s) SO_REUSEPORT does not spread connections, so the "
      "%d event loops share one listening socket; each new connection wakes every loop and goes to "
      "the first that accepts it, not evenly to each loop as on Linux",
      options.threads, kPlatformName, options.threads);
}

namespace {

sigset_t TerminationSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

void BlockTerminationSignals() {
  sigset_t signals = TerminationSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

int WaitForTerminationSignal() {
  sigset_t signals = TerminationSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  int received = 0;
  while (sigwait(&signals, &received) != 0) {
  }
  return received;
}

namespace {

// The thread blocked in ServeUntilTerminated, if any: a failing server wakes it with SIGTERM (which
// it blocks and waits for), since sigwait cannot wait for anything but signals.
std::mutex waiter_mutex;
bool waiter_present = false;  // guarded by waiter_mutex
pthread_t waiter;             // guarded by waiter_mutex

void WakeTerminationWaiter() {
  std::lock_guard<std::mutex> lock(waiter_mutex);
  if (waiter_present) pthread_kill(waiter, SIGTERM);
}

}  // namespace

namespace internal {

void ServerFailure::Report(const absl::Status& error) {
  std::fprintf(stderr, "server: %s\n", error.ToString().c_str());
  std::fflush(stderr);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (first_.ok()) first_ = error;
  }
  // After the error is kept: a waiter that looks at status() before sleeping then finds it, or is
  // woken.
  WakeTerminationWaiter();
}

absl::Status ServerFailure::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return first_;
}

absl::StatusOr<std::unique_ptr<Transport>> MakeServerTransport(const ServerOptions& options,
                                                               UniqueFd fd) {
  if (options.tls == nullptr) return MakePlainTransport(std::move(fd));
  return options.tls->Wrap(std::move(fd));
}

std::thread StartServerThread(std::function<void()> body) {
  sigset_t signals = TerminationSignals();
  sigset_t previous;
  // The new thread inherits the mask in force when it is created.
  pthread_sigmask(SIG_BLOCK, &signals, &previous);
  std::thread thread(std::move(body));
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return thread;
}

SpareDescriptor::Outcome RefusePending(SpareDescriptor& spare, int listen_fd,
                                       ServerCounters& counters) {
  const SpareDescriptor::Outcome outcome =
      spare.RefuseOne(listen_fd, [&counters] { ServerCounters::Add(counters.refused, 1); });
  if (outcome != SpareDescriptor::kNoSpare) ServerCounters::Add(counters.accept_calls, 1);
  return outcome;
}

void ServerCounters::AddTo(ServerStats& stats) const {
  constexpr auto kRelaxed = std::memory_order_relaxed;
  stats.connections_accepted += accepted.load(kRelaxed);
  stats.connections_rejected += rejected.load(kRelaxed);
  stats.connections_refused += refused.load(kRelaxed);
  stats.accept_calls += accept_calls.load(kRelaxed);
  stats.connections_closed += closed.load(kRelaxed);
  stats.bytes_read += bytes_read.load(kRelaxed);
  stats.bytes_written += bytes_written.load(kRelaxed);
  stats.read_pauses += read_pauses.load(kRelaxed);
  uint64_t peak = peak_pending_output.load(kRelaxed);
  if (peak > stats.peak_pending_output) stats.peak_pending_output = peak;
  stats.connections_timed_out += timed_out.load(kRelaxed);
  stats.system_calls += system_calls.load(kRelaxed);
  stats.receive_buffer_shortages += receive_buffer_shortages.load(kRelaxed);
  stats.connections_out_of_memory += out_of_memory.load(kRelaxed);
  peak = peak_pending_input.load(kRelaxed);
  if (peak > stats.peak_pending_input) stats.peak_pending_input = peak;
}

}  // namespace internal

absl::StatusOr<std::string> ServeUntilTerminated(Server& server) {
  Stopwatch watch;
  // Blocked before a failure can send SIGTERM here: it must wait for sigwait, not kill the process.
  BlockTerminationSignals();
  {
    std::lock_guard<std::mutex> lock(waiter_mutex);
    waiter = pthread_self();
    waiter_present = true;
  }
  int signal_number = 0;
  if (server.status().ok()) signal_number = WaitForTerminationSignal();
  {
    std::lock_guard<std::mutex> lock(waiter_mutex);
    waiter_present = false;
  }
  server.Stop();
  if (absl::Status failure = server.status(); !failure.ok()) {
    // A wake-up sent after the check above is still pending here: take it, so that it cannot kill
    // the process once the caller unblocks SIGTERM.
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    const timespec no_wait{};
    while (sigtimedwait(&term, nullptr, &no_wait) > 0) {
    }
    return failure;
  }
  return DescribeServerStop(signal_number, watch.ElapsedSeconds(), server.stats());
}

std::string DescribeServerStop(int signal_number, double seconds, const ServerStats& stats) {
  std::string line = absl::StrFormat(
      "stopped by signal %d after %.3f s: %d connections (%d rejected, %d refused for want of "
      "descriptors), %d bytes read, %d bytes written, %d system calls",
      signal_number, seconds, stats.connections_accepted, stats.connections_rejected,
      stats.connections_refused, stats.bytes_read, stats.bytes_written, stats.system_calls);
  if (stats.connections_out_of_memory > 0) {
    absl::StrAppendFormat(&line,
                          ", %d closed out of memory (a buffer's mapping refused: "
                          "vm.max_map_count or RLIMIT_AS)",
                          stats.connections_out_of_memory);
  }
  return line;
}

}  // namespace netbench
