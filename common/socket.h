// TCP sockets for loopback benchmarks: listen, connect and the options every netbench program sets.
//
//   absl::StatusOr<Listener> listener = Listen({.host = "127.0.0.1", .port = 0});
//   int port = listener->port;  // port 0 asked the kernel for a free one
//   absl::StatusOr<UniqueFd> client = Connect("127.0.0.1", port);
//
// IPv4 and IPv6 both work ("::1", "[::1]" and host names are accepted). Errors carry the errno text
// and its symbolic name (see errno_status.h).
#ifndef NETBENCH_COMMON_SOCKET_H_
#define NETBENCH_COMMON_SOCKET_H_

#include <sys/socket.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/unique_fd.h"

namespace netbench {

// A resolved socket address (IPv4 or IPv6) that can be connected to many times without resolving
// again.
struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;

  int family() const { return storage.ss_family; }
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  // "127.0.0.1:7000" or "[::1]:7000".
  std::string ToString() const;
  int port() const;
};

// Resolves `host` (a literal address, possibly bracketed IPv6, or a name) and `port` to addresses,
// in the resolver's order. Name resolution happens here and nowhere else, so callers resolve once
// and reuse.
absl::StatusOr<std::vector<SocketAddress>> Resolve(absl::string_view host, int port);

struct ListenOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: the kernel picks a free port; Listener::port says which
  int backlog = 4096;
  // SO_REUSEPORT lets several event loops each own a listening socket on the same port (only
  // Linux spreads connections over them: platform.h's kReusePortSpreadsConnections).
  bool reuse_port = false;
  bool non_blocking = false;
};

struct Listener {
  UniqueFd fd;
  SocketAddress address;  // the bound address, with the real port
  int port = 0;
};

absl::StatusOr<Listener> Listen(const ListenOptions& options);

// Accepts one connection; the new socket is non-blocking when `non_blocking`, and has TCP_NODELAY
// set. Returns kUnavailable with EAGAIN's text when a non-blocking listener has nothing pending.
absl::StatusOr<UniqueFd> Accept(int listen_fd, bool non_blocking);

// Connects (blocking) and sets TCP_NODELAY; tries each resolved address in turn.
absl::StatusOr<UniqueFd> Connect(absl::string_view host, int port);
absl::StatusOr<UniqueFd> Connect(const SocketAddress& address);

// Starts a non-blocking connect: the socket is returned at once, and connection completes when it
// becomes writable (check it with ConnectResult). TCP_NODELAY is set.
absl::StatusOr<UniqueFd> StartConnect(const SocketAddress& address);
// The outcome of a non-blocking connect once the socket is writable (SO_ERROR).
absl::Status ConnectResult(int fd);

absl::Status SetNonBlocking(int fd, bool non_blocking = true);
absl::Status SetNoDelay(int fd, bool no_delay = true);
// SO_RCVLOWAT: a blocking read waits for, and poll/epoll report readable at, `bytes` bytes (1:
// any). Linux caps it at half the receive buffer; a read with a timeout (SO_RCVTIMEO) still returns
// what arrived when the timeout runs out.
absl::Status SetReceiveLowWatermark(int fd, int bytes);

// The port a socket is bound to.
absl::StatusOr<int> LocalPort(int fd);

// True for errno values that mean "try again later" on a non-blocking socket.
inline bool WouldBlock(int err) { return err == EAGAIN || err == EWOULDBLOCK; }

}  // namespace netbench

#endif  // NETBENCH_COMMON_SOCKET_H_
