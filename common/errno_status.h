// Translates errno into absl::Status once, where a system call fails.
//
//   if (bind(fd, addr, len) != 0) return ErrnoStatus(errno, "bind 127.0.0.1:7000");
//   // -> UNAVAILABLE: "bind 127.0.0.1:7000: Address already in use [EADDRINUSE]"
//
// The symbolic errno name is kept in the message and as a payload-free code mapping, so that reports can
// count errors by cause (ErrnoName) without parsing text.
#ifndef NETBENCH_COMMON_ERRNO_STATUS_H_
#define NETBENCH_COMMON_ERRNO_STATUS_H_

#include "absl/strings/string_view.h"

#include "absl/status/status.h"

namespace netbench {

// "ECONNREFUSED" for ECONNREFUSED; "E<number>" for values it does not know.
absl::string_view ErrnoName(int err);

// A status whose code follows the errno class and whose message reads "<context>: <strerror> [<ENAME>]".
absl::Status ErrnoStatus(int err, absl::string_view context);

}  // namespace netbench

#endif  // NETBENCH_COMMON_ERRNO_STATUS_H_
