// The descriptors this process holds, for tests that a server gives back every descriptor it took.
//
//   std::vector<int> idle = OpenDescriptors();
//   ... 10,000 connections come and go ...
//   EXPECT_EQ(OpenDescriptors(), idle);
//
// It asks fcntl(F_GETFD) of every number below the soft RLIMIT_NOFILE instead of listing
// /proc/self/fd: that works on every POSIX system and opens no descriptor of its own. Call it with
// the limit as the process started: a descriptor numbered above a lowered limit is not seen.
#ifndef NETBENCH_TESTING_OPEN_DESCRIPTORS_H_
#define NETBENCH_TESTING_OPEN_DESCRIPTORS_H_

#include <vector>

namespace netbench {

// The open descriptors' numbers, ascending.
std::vector<int> OpenDescriptors();

}  // namespace netbench

#endif  // NETBENCH_TESTING_OPEN_DESCRIPTORS_H_
