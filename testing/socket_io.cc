#include "testing/socket_io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/platform.h"

namespace netbench {

bool WriteAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    ssize_t n = SendNoSignal(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string ReadExactly(int fd, size_t size) {
  std::string s(size, '\0');
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd, s.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  s.resize(got);
  return s;
}

std::string ReadToEnd(int fd, int* error) {
  std::string s;
  char buffer[4096];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (error != nullptr) *error = n < 0 ? errno : 0;
      return s;
    }
    s.append(buffer, static_cast<size_t>(n));
  }
}

bool ServerCloses(int fd, int guard_seconds) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // wait for the close, whatever the fd was
  timeval guard{};
  guard.tv_sec = guard_seconds;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &guard, sizeof(guard));
  int error = 0;
  ReadToEnd(fd, &error);
  return error == 0 || error == ECONNRESET;
}

void TrickleUntilClosed(int fd, std::string bytes, int interval_ms) {
  for (char c : bytes) {
    if (SendNoSignal(fd, &c, 1) != 1) return;
    // Readable means the server closed (EOF) or answered: either way the trickle is over.
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, interval_ms) != 0) return;
  }
}

}  // namespace netbench
