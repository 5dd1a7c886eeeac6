#include "testing/peer_flood.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstdlib>
#include <string>

#include "common/platform.h"
#include "common/socket.h"

namespace netbench {
namespace {

struct Sender {
  UniqueFd fd;
  std::string pending;  // the rest of the current chunk
  uint64_t sent = 0;
  bool done = false;
};

}  // namespace

PeerFlood FloodWithoutReading(int port, const PeerFloodOptions& options) {
  // Writes go out in chunks of whole units, so each connection's stream stays well formed.
  std::string chunk;
  while (!options.unit.empty() && chunk.size() < 64 * 1024) chunk += options.unit;
  std::vector<Sender> senders;
  for (int i = 0; i < options.connections; ++i) {
    absl::StatusOr<UniqueFd> fd = Connect("127.0.0.1", port);
    if (!fd.ok()) continue;
    fcntl(fd->get(), F_SETFL, fcntl(fd->get(), F_GETFL) | O_NONBLOCK);
    senders.push_back({.fd = *std::move(fd), .pending = options.prefix});
  }
  PeerFlood flood;
  while (true) {
    std::vector<pollfd> fds;
    std::vector<Sender*> polled;
    for (Sender& sender : senders) {
      if (sender.done) continue;
      fds.push_back({sender.fd.get(), POLLOUT, 0});
      polled.push_back(&sender);
    }
    if (fds.empty()) break;
    int ready = poll(fds.data(), fds.size(), static_cast<int>(options.stall.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;  // the server reads from none of them any more
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Sender& sender = *polled[i];
      if (sender.pending.empty()) sender.pending = chunk;
      ssize_t n = SendNoSignal(sender.fd.get(), sender.pending.data(), sender.pending.size());
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
        sender.done = true;
        ++flood.closed_by_server;
        continue;
      }
      sender.pending.erase(0, static_cast<size_t>(n));
      sender.sent += static_cast<uint64_t>(n);
      flood.bytes_sent += static_cast<uint64_t>(n);
      if (sender.sent >= options.bytes_per_connection) sender.done = true;
    }
  }
  for (Sender& sender : senders) flood.connections.push_back(std::move(sender.fd));
  return flood;
}

uint64_t ResidentBytes() { return ResidentMemoryBytes(); }

uint64_t ResidentGrowthSince(uint64_t before) {
  const uint64_t now = ResidentBytes();
  return now > before ? now - before : 0;
}

bool ResidentBytesMeaningful() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
  return false;
#else
  return true;
#endif
#else
  return true;
#endif
}

}  // namespace netbench
