// Whether this process may use io_uring as the uring server model needs it, and if not, why
// (server.h's --model=uring). Built on Linux only (platform.bzl's if_uring).
#ifndef NETBENCH_COMMON_INTERNAL_URING_PROBE_H_
#define NETBENCH_COMMON_INTERNAL_URING_PROBE_H_

#include "absl/status/status.h"

namespace netbench {
namespace internal {

// Sets up a ring as the model does (IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, a
// provided buffer ring) and tears it down. OK, or FailedPrecondition naming the cause: the
// kernel.io_uring_disabled sysctl, a seccomp filter (EPERM or ENOSYS from io_uring_setup, as
// container runtimes' default profiles answer), or a kernel older than 6.1. Each call probes
// afresh; UringSupport() (server.h) keeps the first answer.
absl::Status ProbeUring();

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_URING_PROBE_H_
