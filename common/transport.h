// A byte stream over a connected socket: plain TCP or TLS behind one small interface, as wrk's
// net.h does, so that connection state machines (servers, clients) are written once.
//
// All calls are non-blocking-friendly: on a non-blocking socket they return kWantRead/kWantWrite
// instead of blocking, and the caller waits for that readiness (TLS may want to write while
// reading, and vice versa).
//
//   std::unique_ptr<Transport> t = MakePlainTransport(std::move(fd));
//   IoResult r = t->Read(buffer, sizeof(buffer));
//   if (r.status == IoStatus::kOk) Use(buffer, r.bytes);
//   // Read again while t->Pending() > 0: TLS may hold bytes the socket no longer signals.
#ifndef NETBENCH_COMMON_TRANSPORT_H_
#define NETBENCH_COMMON_TRANSPORT_H_

#include <sys/uio.h>

#include <cstddef>
#include <memory>
#include <string>

#include "common/unique_fd.h"

namespace netbench {

enum class IoStatus {
  kOk,         // `bytes` were transferred (> 0), or the handshake finished
  kWantRead,   // would block until the socket is readable
  kWantWrite,  // would block until the socket is writable
  kEof,        // the peer closed cleanly
  kError,      // `error` holds errno (0 for a TLS error) and `message` says what happened
};

// Trivially copyable, so that the hot path (a Read or Write per message) builds and drops no
// string: `message` is static text, or text the transport keeps until the next call on it.
struct IoResult {
  IoStatus status = IoStatus::kOk;
  size_t bytes = 0;
  int error = 0;
  const char* message = "";  // kError, and kEof from TLS: what happened
};

class Transport {
 public:
  virtual ~Transport() = default;

  virtual int fd() const = 0;
  // Plain TCP: returns kOk at once. TLS: drives the handshake; call again on kWantRead/kWantWrite.
  virtual IoResult Handshake() = 0;
  virtual IoResult Read(char* buffer, size_t length) = 0;
  virtual IoResult Write(const char* data, size_t length) = 0;
  // Gathers several buffers into one write where the transport can (writev for TCP).
  virtual IoResult Writev(const iovec* iov, int count) = 0;
  // Half-closes the sending side (TCP shutdown(SHUT_WR); TLS close_notify).
  virtual void ShutdownWrite() = 0;
  // Bytes held inside the transport that Read() acts on without waiting for the socket, as wrk's
  // net.h `readable`: always 0 for plain TCP; for TLS, plaintext already decrypted plus records
  // already taken off the socket (read ahead). The socket no longer signals these bytes, so an
  // event loop that waits for readability while Pending() > 0 may wait forever: read again first.
  // A nonzero count promises progress, not plaintext: the bytes held may be a partial record (the
  // Read then takes them in and says kWantRead) or a record with no application data.
  virtual size_t Pending() const = 0;
  // "tcp" or "tls".
  virtual const char* name() const = 0;
};

std::unique_ptr<Transport> MakePlainTransport(UniqueFd fd);

}  // namespace netbench

#endif  // NETBENCH_COMMON_TRANSPORT_H_
