#include "common/socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

#include "absl/strings/str_cat.h"
#include "common/errno_status.h"
#include "common/platform.h"

namespace netbench {
namespace {

absl::string_view StripBrackets(absl::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    return host.substr(1, host.size() - 2);
  return host;
}

}  // namespace

std::string SocketAddress::ToString() const {
  char text[INET6_ADDRSTRLEN] = "?";
  if (family() == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(&storage);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    return absl::StrCat(text, ":", port());
  }
  if (family() == AF_INET6) {
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(&storage);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
    return absl::StrCat("[", text, "]:", port());
  }
  return "?";
}

int SocketAddress::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
  if (family() == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  return 0;
}

absl::StatusOr<std::vector<SocketAddress>> Resolve(absl::string_view host_in, int port) {
  if (port < 0 || port > 65535)
    return absl::InvalidArgumentError(absl::StrCat("port out of range: ", port));
  std::string host(StripBrackets(host_in));
  if (host.empty()) return absl::InvalidArgumentError("empty host name");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
  addrinfo* result = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &result);
  if (rc != 0 && rc != EAI_AGAIN && rc != EAI_SYSTEM && rc != EAI_MEMORY) {
    // AI_ADDRCONFIG hides ::1 on machines without a global IPv6 address; loopback must still work.
    // The error that says so differs between systems (glibc: EAI_ADDRFAMILY or EAI_NONAME), so a
    // lookup that failed for any lasting reason is tried once more without it.
    hints.ai_flags = AI_NUMERICSERV;
    rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &result);
  }
  if (rc != 0) {
    if (rc == EAI_SYSTEM) return ErrnoStatus(errno, absl::StrCat("resolve ", host));
    return absl::NotFoundError(absl::StrCat("resolve ", host, ": ", gai_strerror(rc)));
  }
  std::vector<SocketAddress> addresses;
  for (addrinfo* ai = result; ai != nullptr; ai = ai->ai_next) {
    SocketAddress address;
    memcpy(&address.storage, ai->ai_addr, ai->ai_addrlen);
    address.length = ai->ai_addrlen;
    addresses.push_back(address);
  }
  freeaddrinfo(result);
  if (addresses.empty())
    return absl::NotFoundError(absl::StrCat("resolve ", host, ": no addresses"));
  return addresses;
}

absl::Status SetNonBlocking(int fd, bool non_blocking) {
  int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0) return ErrnoStatus(errno, "fcntl(F_GETFL)");
  int wanted = non_blocking ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
  if (wanted != flags && fcntl(fd, F_SETFL, wanted) != 0)
    return ErrnoStatus(errno, "fcntl(F_SETFL)");
  return absl::OkStatus();
}

absl::Status SetReceiveLowWatermark(int fd, int bytes) {
  if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &bytes, sizeof(bytes)) != 0) {
    return ErrnoStatus(errno, "setsockopt(SO_RCVLOWAT)");
  }
  return absl::OkStatus();
}

absl::Status SetNoDelay(int fd, bool no_delay) {
  int value = no_delay ? 1 : 0;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, sizeof(value)) != 0) {
    return ErrnoStatus(errno, "setsockopt(TCP_NODELAY)");
  }
  return absl::OkStatus();
}

absl::StatusOr<int> LocalPort(int fd) {
  SocketAddress address;
  address.length = sizeof(address.storage);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address.storage), &address.length) != 0) {
    return ErrnoStatus(errno, "getsockname");
  }
  return address.port();
}

absl::StatusOr<Listener> Listen(const ListenOptions& options) {
  absl::StatusOr<std::vector<SocketAddress>> addresses = Resolve(options.host, options.port);
  if (!addresses.ok()) return addresses.status();
  absl::Status last_error;
  for (const SocketAddress& address : *addresses) {
    std::string where = absl::StrCat("listen on ", address.ToString());
    UniqueFd fd(OpenStreamSocket(address.family(), options.non_blocking));
    if (!fd.valid()) {
      last_error = ErrnoStatus(errno, absl::StrCat(where, ": socket"));
      continue;
    }
    int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (options.reuse_port &&
        setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
      return ErrnoStatus(errno, absl::StrCat(where, ": SO_REUSEPORT"));
    }
    if (bind(fd.get(), address.get(), address.length) != 0) {
      last_error = ErrnoStatus(errno, absl::StrCat(where, ": bind"));
      continue;
    }
    if (listen(fd.get(), options.backlog) != 0) {
      last_error = ErrnoStatus(errno, absl::StrCat(where, ": listen"));
      continue;
    }
    Listener listener;
    listener.address.length = sizeof(listener.address.storage);
    if (getsockname(fd.get(), reinterpret_cast<sockaddr*>(&listener.address.storage),
                    &listener.address.length) != 0) {
      return ErrnoStatus(errno, absl::StrCat(where, ": getsockname"));
    }
    listener.port = listener.address.port();
    listener.fd = std::move(fd);
    return listener;
  }
  return last_error;
}

absl::StatusOr<UniqueFd> Accept(int listen_fd, bool non_blocking) {
  UniqueFd fd(AcceptConnection(listen_fd, non_blocking));
  if (!fd.valid()) return ErrnoStatus(errno, "accept");
  // Benchmarks send small messages; Nagle's algorithm would batch them and add 40 ms delayed-ACK
  // stalls.
  if (absl::Status status = SetNoDelay(fd.get()); !status.ok()) return status;
  return fd;
}

absl::StatusOr<UniqueFd> Connect(const SocketAddress& address) {
  UniqueFd fd(OpenStreamSocket(address.family(), /*non_blocking=*/false));
  if (!fd.valid()) return ErrnoStatus(errno, "socket");
  int rc;
  do {
    rc = connect(fd.get(), address.get(), address.length);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return ErrnoStatus(errno, absl::StrCat("connect to ", address.ToString()));
  if (absl::Status status = SetNoDelay(fd.get()); !status.ok()) return status;
  return fd;
}

absl::StatusOr<UniqueFd> Connect(absl::string_view host, int port) {
  absl::StatusOr<std::vector<SocketAddress>> addresses = Resolve(host, port);
  if (!addresses.ok()) return addresses.status();
  absl::Status last_error;
  for (const SocketAddress& address : *addresses) {
    absl::StatusOr<UniqueFd> fd = Connect(address);
    if (fd.ok()) return fd;
    last_error = fd.status();
  }
  return last_error;
}

absl::StatusOr<UniqueFd> StartConnect(const SocketAddress& address) {
  UniqueFd fd(OpenStreamSocket(address.family(), /*non_blocking=*/true));
  if (!fd.valid()) return ErrnoStatus(errno, "socket");
  if (absl::Status status = SetNoDelay(fd.get()); !status.ok()) return status;
  if (connect(fd.get(), address.get(), address.length) != 0 && errno != EINPROGRESS) {
    return ErrnoStatus(errno, absl::StrCat("connect to ", address.ToString()));
  }
  return fd;
}

absl::Status ConnectResult(int fd) {
  int err = 0;
  socklen_t len = sizeof(err);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
    return ErrnoStatus(errno, "getsockopt(SO_ERROR)");
  if (err != 0) return ErrnoStatus(err, "connect");
  return absl::OkStatus();
}

}  // namespace netbench
