// Linux's EventLoop backend: epoll, up to kMaxEvents ready fds per wakeup.
//
// Level-triggered, deliberately. The servers read at most ServerOptions::read_size per wakeup and
// write as soon as they have output, so with level triggering a small echo costs exactly
// epoll_wait + read + write; edge triggering would force a read until EAGAIN on every wakeup (one
// more system call per message) and lets one fast peer starve the others unless reads are capped
// and re-queued by hand. Interest changes (pausing a reader, arming EPOLLOUT after a partial write)
// are rare and cost one epoll_ctl each.
//
// Each registration carries a generation number in epoll_event.data, so an event collected for an
// fd that a handler removed (and perhaps reused for a new connection) in the same batch is dropped
// instead of reaching the wrong handler.
#ifdef __linux__

#include <errno.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/errno_status.h"
#include "common/internal/event_loop_base.h"
#include "common/platform.h"
#include "common/unique_fd.h"

namespace netbench {
namespace internal {
namespace {

constexpr int kMaxEvents = 256;

uint32_t ToEpollEvents(int events) {
  uint32_t result = 0;
  if (events & kReadable) result |= EPOLLIN;
  if (events & kWritable) result |= EPOLLOUT;
  return result;
}

class EpollEventLoop final : public EventLoopBase {
 public:
  explicit EpollEventLoop(UniqueFd epoll_fd) : epoll_fd_(std::move(epoll_fd)) {}

  absl::Status Add(int fd, int events, FdHandler* handler) override {
    if (fd < 0 || handler == nullptr) return absl::InvalidArgumentError("Add: bad fd or handler");
    if (static_cast<size_t>(fd) >= entries_.size()) entries_.resize(fd + 1);
    Entry& entry = entries_[fd];
    if (entry.handler != nullptr) {
      return absl::AlreadyExistsError(absl::StrCat("fd ", fd, " is watched already"));
    }
    ++entry.generation;
    entry.events = events;
    entry.registered = false;
    if (absl::Status status = Apply(fd, entry); !status.ok()) return status;
    entry.handler = handler;
    return absl::OkStatus();
  }

  absl::Status Modify(int fd, int events) override {
    if (fd < 0 || static_cast<size_t>(fd) >= entries_.size() || entries_[fd].handler == nullptr) {
      return absl::NotFoundError(absl::StrCat("fd ", fd, " is not watched"));
    }
    Entry& entry = entries_[fd];
    if (entry.events == events) return absl::OkStatus();
    entry.events = events;
    return Apply(fd, entry);
  }

  void Remove(int fd) override {
    if (fd < 0 || static_cast<size_t>(fd) >= entries_.size()) return;
    Entry& entry = entries_[fd];
    if (entry.handler == nullptr) return;
    if (entry.registered) epoll_ctl(epoll_fd_.get(), EPOLL_CTL_DEL, fd, nullptr);
    entry.handler = nullptr;
    entry.registered = false;
    ++entry.generation;  // drops events for it still waiting in this batch
  }

 protected:
  absl::StatusOr<int> Poll(int64_t timeout_nanos) override {
#if NETBENCH_RAW_SYSCALLS
    // epoll_pwait with no signal mask through syscall(2): epoll_wait without glibc's cancellation
    // point (platform.h, ReadUncancellable); arm64 has no epoll_wait.
    int ready = static_cast<int>(syscall(SYS_epoll_pwait, epoll_fd_.get(), events_, kMaxEvents,
                                         TimeoutMillis(timeout_nanos), nullptr, 0));
#else
    int ready = epoll_wait(epoll_fd_.get(), events_, kMaxEvents, TimeoutMillis(timeout_nanos));
#endif
    if (ready < 0 && errno != EINTR) return ErrnoStatus(errno, "epoll_wait");
    if (ready <= 0) return 0;  // timeout, or EINTR: the caller loops
    int dispatched = 0;
    for (int i = 0; i < ready; ++i) {
      int fd = static_cast<int>(events_[i].data.u64 & 0xffffffffu);
      uint32_t generation = static_cast<uint32_t>(events_[i].data.u64 >> 32);
      // No reference into entries_ across the call: a handler's Add may grow it.
      const Entry& entry = entries_[fd];
      if (entry.handler == nullptr || entry.generation != generation) continue;
      FdHandler* handler = entry.handler;
      uint32_t ready_events = events_[i].events;
      int events = 0;
      if (ready_events & EPOLLIN) events |= kReadable;
      if (ready_events & EPOLLOUT) events |= kWritable;
      if (ready_events & (EPOLLERR | EPOLLHUP)) events |= kHangup | entry.events;
      handler->OnEvents(fd, events);
      ++dispatched;
    }
    return dispatched;
  }

 private:
  struct Entry {
    FdHandler* handler = nullptr;
    int events = kNoEvents;
    uint32_t generation = 0;
    // epoll reports errors and hang-ups even for an empty mask, so a paused fd (kNoEvents) is taken
    // out of the epoll set rather than left in it to spin.
    bool registered = false;
  };

  absl::Status Apply(int fd, Entry& entry) {
    if (entry.events == kNoEvents) {
      if (entry.registered && epoll_ctl(epoll_fd_.get(), EPOLL_CTL_DEL, fd, nullptr) != 0) {
        return ErrnoStatus(errno, "epoll_ctl(DEL)");
      }
      entry.registered = false;
      return absl::OkStatus();
    }
    epoll_event event{};
    event.events = ToEpollEvents(entry.events);
    event.data.u64 = (static_cast<uint64_t>(entry.generation) << 32) | static_cast<uint32_t>(fd);
    int op = entry.registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(epoll_fd_.get(), op, fd, &event) != 0) {
      return ErrnoStatus(errno, entry.registered ? "epoll_ctl(MOD)" : "epoll_ctl(ADD)");
    }
    entry.registered = true;
    return absl::OkStatus();
  }

  UniqueFd epoll_fd_;
  std::vector<Entry> entries_;  // indexed by fd
  epoll_event events_[kMaxEvents];
};

}  // namespace

absl::StatusOr<std::unique_ptr<EventLoop>> CreateEpollEventLoop() {
  UniqueFd epoll_fd(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_fd.valid()) return ErrnoStatus(errno, "epoll_create1");
  auto loop = std::make_unique<EpollEventLoop>(std::move(epoll_fd));
  if (absl::Status status = loop->InitWakeup(); !status.ok()) return status;
  return std::unique_ptr<EventLoop>(std::move(loop));
}

}  // namespace internal
}  // namespace netbench

#endif  // __linux__
