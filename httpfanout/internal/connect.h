// Non-blocking connect that keeps the raw errno (the fan-out client counts failures by errno name).
// Internal to the fan-out client models.
#ifndef NETBENCH_HTTPFANOUT_INTERNAL_CONNECT_H_
#define NETBENCH_HTTPFANOUT_INTERNAL_CONNECT_H_

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "common/socket.h"
#include "common/unique_fd.h"

namespace netbench {
namespace fanout_internal {

// Starts connecting; returns the socket (connection pending or done), or an invalid fd with `*err`
// set.
inline UniqueFd BeginConnect(const SocketAddress& address, int* err) {
  *err = 0;
  UniqueFd fd(socket(address.family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) {
    *err = errno;
    return fd;
  }
  int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (connect(fd.get(), address.get(), address.length) != 0 && errno != EINPROGRESS) {
    *err = errno;
    return UniqueFd();
  }
  return fd;
}

// The outcome of a pending connect once the socket is writable: 0 or the errno.
inline int PendingConnectError(int fd) {
  int err = 0;
  socklen_t len = sizeof(err);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

}  // namespace fanout_internal
}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_INTERNAL_CONNECT_H_
