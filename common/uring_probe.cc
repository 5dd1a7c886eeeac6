// io_uring's probe (internal/uring_probe.h).
#include "common/internal/uring_probe.h"

#include <errno.h>
#include <liburing.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/errno_status.h"

namespace netbench {
namespace internal {
namespace {

// The sysctl's value, or -1 where the kernel has none (before 6.6).
int IoUringDisabledSysctl() {
  std::FILE* file = std::fopen("/proc/sys/kernel/io_uring_disabled", "r");
  if (file == nullptr) return -1;
  int value = -1;
  if (std::fscanf(file, "%d", &value) != 1) value = -1;
  std::fclose(file);
  return value;
}

std::string KernelRelease() {
  utsname name{};
  if (uname(&name) != 0) return "unknown";
  return name.release;
}

absl::Status Refused(const std::string& cause) {
  return absl::FailedPreconditionError(
      absl::StrCat("io_uring is not available to this process: ", cause,
                   "; --model=uring cannot run here (use epoll, poll or threads)"));
}

}  // namespace

absl::Status ProbeUring() {
  const int sysctl = IoUringDisabledSysctl();
  if (sysctl == 2) {
    return Refused("the kernel.io_uring_disabled sysctl is 2 (io_uring off for every process)");
  }
  io_uring ring{};
  io_uring_params params{};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  if (int error = io_uring_queue_init_params(8, &ring, &params); error < 0) {
    const int code = -error;
    if (code == EPERM && sysctl == 1) {
      return Refused(
          "io_uring_setup failed with EPERM and the kernel.io_uring_disabled sysctl is 1 (only "
          "the group in kernel.io_uring_group may use it)");
    }
    if (code == EPERM || code == ENOSYS) {
      return Refused(absl::StrFormat(
          "io_uring_setup failed with %s on kernel %s: a seccomp filter refuses it (container "
          "runtimes' default profiles do), or the kernel was built without io_uring",
          code == EPERM ? "EPERM" : "ENOSYS", KernelRelease()));
    }
    if (code == EINVAL) {
      return Refused(absl::StrFormat(
          "io_uring_setup refused IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN "
          "(EINVAL): kernel %s is older than 6.1",
          KernelRelease()));
    }
    return Refused(ErrnoStatus(code, "io_uring_setup").ToString());
  }
  absl::Status status;
  if ((params.features & IORING_FEAT_EXT_ARG) == 0) {
    status = Refused(absl::StrCat("kernel ", KernelRelease(), " lacks IORING_FEAT_EXT_ARG"));
  }
  // A provided buffer ring (kernel 5.19), which multishot receive (6.0) takes its buffers from.
  if (status.ok()) {
    const size_t bytes = sizeof(io_uring_buf) * 8;
    void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (memory == MAP_FAILED) {
      status = ErrnoStatus(errno, "mmap of a buffer ring");
    } else {
      io_uring_buf_reg reg{};
      reg.ring_addr = reinterpret_cast<uint64_t>(memory);
      reg.ring_entries = 8;
      reg.bgid = 0;
      if (int error = io_uring_register_buf_ring(&ring, &reg, 0); error < 0) {
        status = Refused(absl::StrFormat(
            "registering a provided buffer ring failed (%s): kernel %s is older than 5.19",
            std::strerror(-error), KernelRelease()));
      }
      munmap(memory, bytes);
    }
  }
  io_uring_queue_exit(&ring);
  return status;
}

}  // namespace internal
}  // namespace netbench
