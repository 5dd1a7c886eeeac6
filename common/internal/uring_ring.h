// An io_uring as the uring models' loops (uring_server.cc, uring_client_runner.cc) set it up and
// drive it: one thread submits and reaps (IORING_SETUP_SINGLE_ISSUER), the kernel's completion
// work runs inside that thread's enter instead of interrupting it whenever a packet lands
// (IORING_SETUP_DEFER_TASKRUN, kernel 6.1), and every request of a pass goes in with the enter that
// then waits for the next completions, at most until the loop's nearest timer.
//
//   UringRing ring;  // on the loop's own thread: SINGLE_ISSUER binds the ring to it
//   if (absl::Status s = ring.Init(); !s.ok()) ...
//   ring.RegisterRingFd();
//   for (;;) {
//     io_uring_prep_recv_multishot(ring.Sqe([&] { ++system_calls; }), fd, nullptr, 0, 0);
//     if (absl::Status s = ring.SubmitAndWait(1, timers.next()); !s.ok()) ...
//     ring.ForEachCompletion([&](const io_uring_cqe& cqe) { Dispatch(cqe); });
//   }
#ifndef NETBENCH_COMMON_INTERNAL_URING_RING_H_
#define NETBENCH_COMMON_INTERNAL_URING_RING_H_

#include <errno.h>
#include <liburing.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "common/clock.h"
#include "common/errno_status.h"

namespace netbench {
namespace internal {

class UringRing {
 public:
  UringRing() = default;
  UringRing(const UringRing&) = delete;
  UringRing& operator=(const UringRing&) = delete;
  ~UringRing() { Exit(); }

  // Room for a pass's requests (a full queue is submitted early: a system call more).
  static constexpr unsigned kSubmissionEntries = 1024;
  // Room for what a pass's multishot requests post between two enters (IORING_SETUP_CQSIZE).
  static constexpr unsigned kCompletionEntries = 16384;

  // On the thread that will submit.
  absl::Status Init() {
    io_uring_params params{};
    params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE;
    params.cq_entries = kCompletionEntries;
    if (int error = io_uring_queue_init_params(kSubmissionEntries, &ring_, &params); error < 0) {
      return ErrnoStatus(-error, "io_uring_setup");
    }
    ready_ = true;
    return absl::OkStatus();
  }

  // Tears the ring down: the kernel cancels every request and waits for them. Again: nothing.
  void Exit() {
    if (!ready_) return;
    io_uring_queue_exit(&ring_);
    ready_ = false;
  }

  bool ready() const { return ready_; }
  io_uring& get() { return ring_; }

  // Registers the ring's own descriptor, from the thread that submits: the enters that follow skip
  // its lookup. Optional (kernel 5.18): without it they look it up. One system call.
  void RegisterRingFd() { (void)io_uring_register_ring_fd(&ring_); }

  // The next request slot. When the ring is full, what is queued is submitted first: a system call
  // more, which `count_call()` counts.
  template <typename CountCall>
  io_uring_sqe* Sqe(CountCall&& count_call) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    while (sqe == nullptr) {
      count_call();
      io_uring_submit(&ring_);
      sqe = io_uring_get_sqe(&ring_);
    }
    return sqe;
  }

  // One io_uring_enter: submits what is queued and waits for `wait_for` completions, at most until
  // `until_nanos` (MonotonicNanos()) if it has a value. A timeout, a signal or a full completion
  // queue is no error; any other failure would fail again at once.
  absl::Status SubmitAndWait(unsigned wait_for, std::optional<int64_t> until_nanos) {
    __kernel_timespec timeout{};
    __kernel_timespec* wait_limit = nullptr;
    if (until_nanos.has_value()) {
      const int64_t wait = std::max<int64_t>(0, *until_nanos - MonotonicNanos());
      timeout.tv_sec = wait / kNanosPerSecond;
      timeout.tv_nsec = wait % kNanosPerSecond;
      wait_limit = &timeout;
    }
    io_uring_cqe* cqe = nullptr;
    const int result =
        io_uring_submit_and_wait_timeout(&ring_, &cqe, wait_for, wait_limit, nullptr);
    if (result < 0 && result != -ETIME && result != -EINTR && result != -EBUSY &&
        result != -EAGAIN) {
      return ErrnoStatus(-result, "io_uring_enter");
    }
    return absl::OkStatus();
  }

  // Hands every completion in the ring to `dispatch`, then frees their entries.
  template <typename Dispatch>
  void ForEachCompletion(Dispatch&& dispatch) {
    unsigned head;
    unsigned seen = 0;
    io_uring_cqe* cqe;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      dispatch(*cqe);
    }
    io_uring_cq_advance(&ring_, seen);
  }

 private:
  io_uring ring_{};
  bool ready_ = false;
};

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_URING_RING_H_
