// One descriptor kept in reserve, so that a server out of descriptors still refuses connections
// promptly instead of leaving them in its listener's backlog.
//
// accept(2) failing with EMFILE (or ENFILE) leaves the connection queued: its peer's connect has
// succeeded, so it waits, often until its own timeout, and the listener stays readable, so a loop
// that watches it wakes again at once. libev and libuv answer this the same way: hold one spare
// descriptor (here /dev/null) while descriptors are plenty; when accept(2) runs out, close the
// spare, accept the connection into its slot, close that at once (its peer reads EOF, or a reset if
// it had sent something), and take the spare back.
//
//   SpareDescriptor spare;  // when the server starts
//   ...
//   if (accept failed with EMFILE or ENFILE) {
//     switch (spare.RefuseOne(listen_fd, [&] { ++refused; })) {
//       case SpareDescriptor::kRefused: continue;    // more may be waiting
//       case SpareDescriptor::kNonePending: return;  // drained: wait for the listener again
//       default: back off, then try again;           // no slot could be had for it
//     }
//   }
//
// Not thread-safe: each accepting thread (the threads model's acceptor, each event loop) owns one.
#ifndef NETBENCH_COMMON_INTERNAL_SPARE_DESCRIPTOR_H_
#define NETBENCH_COMMON_INTERNAL_SPARE_DESCRIPTOR_H_

#include "absl/functional/function_ref.h"
#include "common/unique_fd.h"

namespace netbench {
namespace internal {

class SpareDescriptor {
 public:
  enum Outcome {
    kRefused,      // one connection was accepted and closed at once
    kNonePending,  // accept(2) found nothing (EAGAIN, or the peer reset it first)
    kFailed,       // accept(2) failed even in the spare's slot (another thread took it, ENOMEM)
    kNoSpare,      // no spare is held and none can be opened: no accept(2) was made
  };

  // Opens the spare; if that fails, RefuseOne tries again each time it is needed.
  SpareDescriptor();

  // Frees the spare, accepts one pending connection of the non-blocking `listen_fd` in its place,
  // calls `count_refusal`, closes the connection, and takes the spare again: what `count_refusal`
  // counts is there before the peer can see its connection end. Every outcome but kNoSpare made
  // one accept(2) call.
  Outcome RefuseOne(int listen_fd, absl::FunctionRef<void()> count_refusal);

  bool held() const { return spare_.valid(); }

 private:
  void Take();

  UniqueFd spare_;
};

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_SPARE_DESCRIPTOR_H_
