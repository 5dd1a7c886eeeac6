#include "testing/black_hole.h"

#include <poll.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace netbench {
namespace {

Listener ListenOrDie(int backlog) {
  absl::StatusOr<Listener> listener = Listen({.host = "127.0.0.1", .port = 0, .backlog = backlog});
  if (!listener.ok()) {
    std::fprintf(stderr, "black hole: %s\n", listener.status().ToString().c_str());
    std::abort();
  }
  return *std::move(listener);
}

}  // namespace

SilentListener::SilentListener() : listener_(ListenOrDie(4096)) {}

SynDroppingListener::SynDroppingListener() : listener_(ListenOrDie(0)) {
  absl::StatusOr<UniqueFd> filler = StartConnect(listener_.address);
  if (!filler.ok()) {
    std::fprintf(stderr, "black hole: %s\n", filler.status().ToString().c_str());
    std::abort();
  }
  // The filler's own connect completes (it takes the queue's one place): wait for it, so that the
  // queue is full before any client under test sends its SYN.
  pollfd p{filler->get(), POLLOUT, 0};
  if (poll(&p, 1, 10000) != 1 || !ConnectResult(filler->get()).ok()) {
    std::fprintf(stderr, "black hole: the filler connection did not complete\n");
    std::abort();
  }
  filler_ = *std::move(filler);
}

}  // namespace netbench
