// The portable EventLoop backend: poll(2) over an array rebuilt only when fds come and go.
//
// Removal inside a handler (of its own fd or another) marks the slot dead and leaves the array in
// place until the next Poll, so the dispatch loop can keep walking it by index.
#include <errno.h>
#include <poll.h>

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/errno_status.h"
#include "common/internal/event_loop_base.h"
#include "common/platform.h"

namespace netbench {
namespace internal {
namespace {

short ToPollEvents(int events) {
  short result = 0;
  if (events & kReadable) result |= POLLIN;
  if (events & kWritable) result |= POLLOUT;
  return result;
}

class PollEventLoop final : public EventLoopBase {
 public:
  absl::Status Add(int fd, int events, FdHandler* handler) override {
    if (fd < 0 || handler == nullptr) return absl::InvalidArgumentError("Add: bad fd or handler");
    if (static_cast<size_t>(fd) >= slot_of_fd_.size()) slot_of_fd_.resize(fd + 1, -1);
    if (slot_of_fd_[fd] >= 0) {
      return absl::AlreadyExistsError(absl::StrCat("fd ", fd, " is watched already"));
    }
    slot_of_fd_[fd] = static_cast<int>(slots_.size());
    slots_.push_back({fd, events, handler});
    pollfd entry{};
    entry.fd = events == kNoEvents ? -1 : fd;  // a negative fd is skipped, hang-ups included
    entry.events = ToPollEvents(events);
    pollfds_.push_back(entry);
    return absl::OkStatus();
  }

  absl::Status Modify(int fd, int events) override {
    int slot = SlotOf(fd);
    if (slot < 0) return absl::NotFoundError(absl::StrCat("fd ", fd, " is not watched"));
    slots_[slot].events = events;
    pollfds_[slot].fd = events == kNoEvents ? -1 : fd;
    pollfds_[slot].events = ToPollEvents(events);
    return absl::OkStatus();
  }

  void Remove(int fd) override {
    int slot = SlotOf(fd);
    if (slot < 0) return;
    slots_[slot].handler = nullptr;
    pollfds_[slot].fd = -1;
    pollfds_[slot].revents = 0;  // an event already collected for it is not dispatched
    slot_of_fd_[fd] = -1;
    dead_slots_ = true;
  }

 protected:
  absl::StatusOr<int> Poll(int64_t timeout_nanos) override {
    if (dead_slots_) Compact();
    int ready = PollUncancellable(pollfds_.data(), pollfds_.size(), TimeoutMillis(timeout_nanos));
    if (ready < 0 && errno != EINTR) {
      // EINVAL: more fds than RLIMIT_NOFILE allows; ENOMEM, EFAULT.
      return ErrnoStatus(errno, absl::StrCat("poll(", pollfds_.size(), " fds)"));
    }
    if (ready <= 0) return 0;  // timeout, or EINTR: the caller loops
    int dispatched = 0;
    // Handlers may Add (appending past `count`) or Remove (clearing revents) while we walk.
    size_t count = pollfds_.size();
    for (size_t i = 0; i < count && ready > 0; ++i) {
      short revents = pollfds_[i].revents;
      if (revents == 0) continue;
      --ready;
      pollfds_[i].revents = 0;
      FdHandler* handler = slots_[i].handler;
      if (handler == nullptr) continue;
      int events = 0;
      if (revents & POLLIN) events |= kReadable;
      if (revents & POLLOUT) events |= kWritable;
      // Errors and hang-ups come with the watched events, so that the handler's read or write finds
      // out which error it was.
      if (revents & (POLLERR | POLLHUP | POLLNVAL)) events |= kHangup | slots_[i].events;
      handler->OnEvents(slots_[i].fd, events);
      ++dispatched;
    }
    return dispatched;
  }

 private:
  struct Slot {
    int fd;
    int events;
    FdHandler* handler;  // nullptr: removed, waiting for Compact
  };

  int SlotOf(int fd) const {
    if (fd < 0 || static_cast<size_t>(fd) >= slot_of_fd_.size()) return -1;
    return slot_of_fd_[fd];
  }

  void Compact() {
    size_t out = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].handler == nullptr) continue;
      slots_[out] = slots_[i];
      pollfds_[out] = pollfds_[i];
      slot_of_fd_[slots_[out].fd] = static_cast<int>(out);
      ++out;
    }
    slots_.resize(out);
    pollfds_.resize(out);
    dead_slots_ = false;
  }

  std::vector<pollfd> pollfds_;  // parallel to slots_
  std::vector<Slot> slots_;
  std::vector<int> slot_of_fd_;  // fd -> index into slots_, -1 when not watched
  bool dead_slots_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<EventLoop>> CreatePollEventLoop() {
  auto loop = std::make_unique<PollEventLoop>();
  if (absl::Status status = loop->InitWakeup(); !status.ok()) return status;
  return std::unique_ptr<EventLoop>(std::move(loop));
}

}  // namespace internal
}  // namespace netbench
