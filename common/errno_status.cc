#include "common/errno_status.h"

#include <errno.h>
#include <string.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace netbench {

absl::string_view ErrnoName(int err) {
  switch (err) {
#define NETBENCH_ERRNO_CASE(e) \
  case e:                      \
    return #e;
    NETBENCH_ERRNO_CASE(EPERM)
    NETBENCH_ERRNO_CASE(ENOENT)
    NETBENCH_ERRNO_CASE(EINTR)
    NETBENCH_ERRNO_CASE(EIO)
    NETBENCH_ERRNO_CASE(EBADF)
    NETBENCH_ERRNO_CASE(EAGAIN)
    NETBENCH_ERRNO_CASE(ENOMEM)
    NETBENCH_ERRNO_CASE(EACCES)
    NETBENCH_ERRNO_CASE(EFAULT)
    NETBENCH_ERRNO_CASE(EINVAL)
    NETBENCH_ERRNO_CASE(ENFILE)
    NETBENCH_ERRNO_CASE(EMFILE)
    NETBENCH_ERRNO_CASE(ENOSPC)
    NETBENCH_ERRNO_CASE(EPIPE)
    NETBENCH_ERRNO_CASE(ENOTSOCK)
    NETBENCH_ERRNO_CASE(EMSGSIZE)
    NETBENCH_ERRNO_CASE(EPROTONOSUPPORT)
    NETBENCH_ERRNO_CASE(EOPNOTSUPP)
    NETBENCH_ERRNO_CASE(EAFNOSUPPORT)
    NETBENCH_ERRNO_CASE(EADDRINUSE)
    NETBENCH_ERRNO_CASE(EADDRNOTAVAIL)
    NETBENCH_ERRNO_CASE(ENETDOWN)
    NETBENCH_ERRNO_CASE(ENETUNREACH)
    NETBENCH_ERRNO_CASE(ECONNABORTED)
    NETBENCH_ERRNO_CASE(ECONNRESET)
    NETBENCH_ERRNO_CASE(ENOBUFS)
    NETBENCH_ERRNO_CASE(EISCONN)
    NETBENCH_ERRNO_CASE(ENOTCONN)
    NETBENCH_ERRNO_CASE(ETIMEDOUT)
    NETBENCH_ERRNO_CASE(ECONNREFUSED)
    NETBENCH_ERRNO_CASE(EHOSTUNREACH)
    NETBENCH_ERRNO_CASE(EALREADY)
    NETBENCH_ERRNO_CASE(EINPROGRESS)
#undef NETBENCH_ERRNO_CASE
    default:
      return "E?";
  }
}

namespace {

absl::StatusCode CodeForErrno(int err) {
  switch (err) {
    case EINVAL:
    case EAFNOSUPPORT:
    case EPROTONOSUPPORT:
      return absl::StatusCode::kInvalidArgument;
    case EACCES:
    case EPERM:
      return absl::StatusCode::kPermissionDenied;
    case ENOENT:
      return absl::StatusCode::kNotFound;
    case EADDRINUSE:
    case EISCONN:
    case EALREADY:
      return absl::StatusCode::kAlreadyExists;
    case EMFILE:
    case ENFILE:
    case ENOMEM:
    case ENOBUFS:
    case ENOSPC:
    case EADDRNOTAVAIL:
      return absl::StatusCode::kResourceExhausted;
    case ETIMEDOUT:
      return absl::StatusCode::kDeadlineExceeded;
    default:
      return absl::StatusCode::kUnavailable;
  }
}

}  // namespace

absl::Status ErrnoStatus(int err, absl::string_view context) {
  absl::string_view name = ErrnoName(err);
  std::string suffix = name == "E?" ? absl::StrCat("errno ", err) : std::string(name);
  return absl::Status(CodeForErrno(err), absl::StrCat(context, ": ", strerror(err), " [", suffix, "]"));
}

}  // namespace netbench
