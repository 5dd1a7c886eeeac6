// Makes io_uring_setup fail with EPERM in the calling thread, as Docker's and containerd's default
// seccomp profiles do, so that tests can see what a program does where io_uring is refused. For a
// forked child only: the filter cannot be undone, and it is inherited across exec.
//
//   if (fork() == 0) {
//     if (!RefuseIoUringSetup()) _exit(3);
//     internal::ForgetUringSupport();  // what the parent probed no longer holds
//     ...
//   }
#ifndef NETBENCH_TESTING_REFUSE_IO_URING_H_
#define NETBENCH_TESTING_REFUSE_IO_URING_H_

namespace netbench {

// False when the filter could not be installed.
bool RefuseIoUringSetup();

}  // namespace netbench

#endif  // NETBENCH_TESTING_REFUSE_IO_URING_H_
