// Peers that never answer, on loopback, for tests of deadlines: no privileges, no network
// namespace.
//
//   SilentListener silent;     // connections complete (the kernel queues them), nothing is ever
//   read SynDroppingListener drop;  // the accept queue is full: SYNs are dropped, connect() stays
//   pending RunClient(absl::StrCat("127.0.0.1:", drop.port()), /*timeout=*/...);
//
// A listener whose accept queue is full drops a SYN rather than refusing it (Linux: the listener's
// ListenOverflows counter), so the client sees what a firewall's DROP rule shows it: nothing, until
// it gives up by itself.
#ifndef NETBENCH_TESTING_BLACK_HOLE_H_
#define NETBENCH_TESTING_BLACK_HOLE_H_

#include "common/socket.h"
#include "common/unique_fd.h"

namespace netbench {

// Listens and never accepts: connections complete in the kernel's queue, and then nothing happens.
class SilentListener {
 public:
  SilentListener();
  int port() const { return listener_.port; }

 private:
  Listener listener_;
};

// Listens with a backlog of 0 and fills the queue with one connection of its own: every later SYN
// is dropped.
class SynDroppingListener {
 public:
  SynDroppingListener();
  int port() const { return listener_.port; }

 private:
  Listener listener_;
  UniqueFd filler_;
};

}  // namespace netbench

#endif  // NETBENCH_TESTING_BLACK_HOLE_H_
