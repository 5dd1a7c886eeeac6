// What server.cc shares with the model files (thread_server.cc, event_loop_server.cc): each model's
// entry point, the one place a connection's Transport is made, fatal errors, and counters.
#ifndef NETBENCH_COMMON_INTERNAL_SERVER_MODELS_H_
#define NETBENCH_COMMON_INTERNAL_SERVER_MODELS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/internal/spare_descriptor.h"
#include "common/server.h"
#include "common/transport.h"
#include "common/unique_fd.h"

namespace netbench {
namespace internal {

absl::StatusOr<std::unique_ptr<Server>> StartThreadServer(const ServerOptions& options,
                                                          HandlerFactory handler_factory);
absl::StatusOr<std::unique_ptr<Server>> StartEventLoopServer(const ServerOptions& options,
                                                             HandlerFactory handler_factory);
// Built where NETBENCH_LINUX is 1 (platform.h); Server::Start has checked UringSupport().
absl::StatusOr<std::unique_ptr<Server>> StartUringServer(const ServerOptions& options,
                                                         HandlerFactory handler_factory);

// For tests that change what the kernel allows this process (a seccomp filter): the next
// UringSupport() probes again.
void ForgetUringSupport();

// Plain TCP when options.tls is null, else the TLS server side; Handshake() still has to be driven.
absl::StatusOr<std::unique_ptr<Transport>> MakeServerTransport(const ServerOptions& options,
                                                               UniqueFd fd);

// Starts a thread with SIGINT and SIGTERM blocked, so that WaitForTerminationSignal receives them.
std::thread StartServerThread(std::function<void()> body);

// A server's first fatal error, for Server::status(). Report prints it to stderr, keeps it if it is
// the first, and wakes ServeUntilTerminated (which waits for signals, so it is sent SIGTERM), so
// that a server program exits non-zero instead of serving on with a dead part.
class ServerFailure {
 public:
  void Report(const absl::Status& error);
  absl::Status status() const;

 private:
  mutable std::mutex mutex_;
  absl::Status first_;  // guarded by mutex_
};

// Counters with ONE writing thread each (a connection's thread, an event loop) and any number of
// readers: updates are a relaxed load and store, no locked instruction on the per-message path.
struct ServerCounters {
  std::atomic<uint64_t> accepted{0};
  std::atomic<uint64_t> rejected{0};
  std::atomic<uint64_t> refused{0};
  std::atomic<uint64_t> accept_calls{0};
  std::atomic<uint64_t> closed{0};
  std::atomic<uint64_t> bytes_read{0};
  std::atomic<uint64_t> bytes_written{0};
  std::atomic<uint64_t> peak_pending_output{0};
  std::atomic<uint64_t> read_pauses{0};
  std::atomic<uint64_t> peak_pending_input{0};
  std::atomic<uint64_t> timed_out{0};
  std::atomic<uint64_t> system_calls{0};
  std::atomic<uint64_t> receive_buffer_shortages{0};
  std::atomic<uint64_t> out_of_memory{0};

  static void Add(std::atomic<uint64_t>& counter, uint64_t n) {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  static void Max(std::atomic<uint64_t>& counter, uint64_t value) {
    if (value > counter.load(std::memory_order_relaxed)) {
      counter.store(value, std::memory_order_relaxed);
    }
  }
  // Adds these counters into `stats` (peak: the maximum of both).
  void AddTo(ServerStats& stats) const;
};

// An accept(2) on `listen_fd` failed for want of descriptors (EMFILE, ENFILE): refuses the pending
// connection with `spare`'s help (spare_descriptor.h), counting the accept(2) call and the
// refusal in `counters`. kRefused: more may be waiting. kNonePending: the listener is drained (out
// of descriptors, accept(2) fails even when nothing is pending). Otherwise the connection is still
// pending and the acceptor must back off rather than spin.
SpareDescriptor::Outcome RefusePending(SpareDescriptor& spare, int listen_fd,
                                       ServerCounters& counters);

// The Server of the models that run `threads` workers, each with its own loop and listener (the
// event loops, uring): what a worker has in common with the others (its listener, its counters, its
// Join) answers Server's questions the same way for each. A model derives, adds its Start() that
// makes the workers, and constructs them with options_, handler_factory_, live_ and failure_.
template <typename Worker>
class WorkerServer : public Server {
 public:
  WorkerServer(const ServerOptions& options, HandlerFactory handler_factory)
      : options_(options), handler_factory_(std::move(handler_factory)) {}
  ~WorkerServer() override { Stop(); }

  int port() const override { return workers_.front()->listener().port; }
  const SocketAddress& address() const override { return workers_.front()->listener().address; }

  void Stop() override {
    for (auto& worker : workers_) worker->Join();
  }

  ServerStats stats() const override {
    ServerStats stats;
    for (const auto& worker : workers_) worker->counters().AddTo(stats);
    return stats;
  }

  absl::Status status() const override { return failure_.status(); }

 protected:
  const ServerOptions options_;
  const HandlerFactory handler_factory_;
  std::atomic<int> live_{0};
  ServerFailure failure_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_SERVER_MODELS_H_
