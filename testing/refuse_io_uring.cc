#include "testing/refuse_io_uring.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace netbench {
namespace {

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

bool RefuseIoUringSetup() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{};
  program.len = sizeof(filter) / sizeof(filter[0]);
  program.filter = filter;
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

RefusedRun RunWithIoUringRefused(const std::function<std::string()>& body) {
  RefusedRun run;
  int output[2];
  if (pipe(output) != 0) {
    run.output = "pipe failed";
    return run;
  }
  const pid_t child = fork();
  if (child < 0) {
    close(output[0]);
    close(output[1]);
    run.output = "fork failed";
    return run;
  }
  if (child == 0) {
    dup2(output[1], STDOUT_FILENO);
    dup2(output[1], STDERR_FILENO);
    close(output[0]);
    close(output[1]);
    if (!RefuseIoUringSetup()) {
      WriteAll(STDOUT_FILENO, "seccomp filter not installed");
      _exit(100);
    }
    WriteAll(STDOUT_FILENO, body());
    _exit(0);
  }
  close(output[1]);
  char chunk[512];
  ssize_t n;
  while ((n = read(output[0], chunk, sizeof(chunk))) > 0) run.output.append(chunk, n);
  close(output[0]);
  int status = 0;
  if (waitpid(child, &status, 0) == child && WIFEXITED(status))
    run.exit_status = WEXITSTATUS(status);
  return run;
}

}  // namespace netbench
