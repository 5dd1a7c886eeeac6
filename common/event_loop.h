// An event loop in the shape of Redis' ae: one small interface, one file per polling backend
// (poll_event_loop.cc, epoll_event_loop.cc), and timers. Clients that drive many connections from
// one thread (load generators, the fan-out client) and the event-loop server models are built on
// it.
//
//   std::unique_ptr<EventLoop> loop = EventLoop::Create(EventLoopBackend::kEpoll);
//   loop->Add(fd, kReadable, &connection);  // connection implements FdHandler
//   loop->AddTimer(MonotonicNanos() + kNanosPerSecond, [&] { PrintProgress(); });
//   // Until Stop(), from a handler or another thread; an error means the wait itself failed.
//   if (absl::Status status = loop->Run(); !status.ok()) Die(status);
#ifndef NETBENCH_COMMON_EVENT_LOOP_H_
#define NETBENCH_COMMON_EVENT_LOOP_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace netbench {

enum EventMask : int {
  kNoEvents = 0,
  kReadable = 1,
  kWritable = 2,
  // Reported only: the peer hung up or the socket has an error; reading tells which.
  kHangup = 4,
};

enum class EventLoopBackend { kPoll, kEpoll };

// epoll where it is built (Linux: platform.h's kHasEpoll), poll elsewhere.
EventLoopBackend DefaultEventLoopBackend();
// The backends this build has, poll first: tests loop over these.
std::vector<EventLoopBackend> AvailableEventLoopBackends();
// "poll" or "epoll"; epoll is an error ("not built on this platform") where it is not built.
absl::StatusOr<EventLoopBackend> ParseEventLoopBackend(absl::string_view name);
const char* EventLoopBackendName(EventLoopBackend backend);

class FdHandler {
 public:
  virtual ~FdHandler() = default;
  // `events` is a mask of EventMask bits that are ready.
  virtual void OnEvents(int fd, int events) = 0;
};

class EventLoop {
 public:
  static absl::StatusOr<std::unique_ptr<EventLoop>> Create(EventLoopBackend backend);
  virtual ~EventLoop() = default;

  // Watches `fd` for `events` (kReadable | kWritable); `handler` is not owned and must outlive the
  // watch.
  virtual absl::Status Add(int fd, int events, FdHandler* handler) = 0;
  // Changes the watched events (kNoEvents pauses the fd without forgetting it).
  virtual absl::Status Modify(int fd, int events) = 0;
  // Stops watching; call before closing the fd. Safe from inside a handler, also for other fds.
  virtual void Remove(int fd) = 0;

  // Runs `callback` on the loop's thread at or after `when_nanos` (MonotonicNanos()). Returns an
  // id.
  virtual uint64_t AddTimer(int64_t when_nanos, std::function<void()> callback) = 0;
  virtual void CancelTimer(uint64_t id) = 0;

  // Waits at most `timeout_nanos` (< 0: no limit; or until the next timer) and dispatches what is
  // ready, once. Returns the number of fd events dispatched (0 after a timeout or a signal), or the
  // error of the wait itself (poll(2) or epoll_wait(2) failing other than with EINTR), which
  // dispatches nothing and would fail again at once: stop looping and report it.
  virtual absl::StatusOr<int> RunOnce(int64_t timeout_nanos) = 0;
  // Dispatches until Stop() (OK), or until a wait fails (that error, as RunOnce).
  virtual absl::Status Run() = 0;
  // Makes Run() return; safe from any thread (wakes the loop) and from handlers.
  virtual void Stop() = 0;
  // Runs `task` on the loop's thread soon; safe from any thread (the acceptor hands connections
  // over so).
  virtual void Post(std::function<void()> task) = 0;
};

}  // namespace netbench

#endif  // NETBENCH_COMMON_EVENT_LOOP_H_
