// What a program does where io_uring is refused: a forked child whose io_uring_setup fails with
// EPERM, as Docker's and containerd's default seccomp profiles make it fail.
//
//   RefusedRun run = RunWithIoUringRefused([] {
//     internal::ForgetUringSupport();  // what the parent probed no longer holds
//     return ParseClientModel("uring").status().ToString();
//   });
//   EXPECT_TRUE(absl::StrContains(run.output, "io_uring_setup failed with EPERM"));
#ifndef NETBENCH_TESTING_REFUSE_IO_URING_H_
#define NETBENCH_TESTING_REFUSE_IO_URING_H_

#include <functional>
#include <string>

namespace netbench {

// Installs the filter in the calling thread; false when it could not. It cannot be undone and is
// inherited across exec: for a forked child only.
bool RefuseIoUringSetup();

struct RefusedRun {
  std::string output;    // what the child wrote to stdout and stderr, then what `body` returned
  int exit_status = -1;  // 0 once `body` returned; an exec'd program's own; -1: killed
};
// Runs `body` in a forked child under the filter (100 and a line saying so when it could not be
// installed). `body` may exec a program, whose output and exit status are then the child's.
RefusedRun RunWithIoUringRefused(const std::function<std::string()>& body);

// What the probe's refusal says (uring_probe.cc): a program refused io_uring names every one.
inline constexpr const char* kIoUringRefusedWords[] = {
    "io_uring_setup failed with EPERM", "seccomp filter", "use epoll, poll or threads"};

}  // namespace netbench

#endif  // NETBENCH_TESTING_REFUSE_IO_URING_H_
