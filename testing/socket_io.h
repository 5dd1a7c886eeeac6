// Blocking socket reads and writes for tests that play a client by hand.
//
//   ASSERT_TRUE(WriteAll(fd, "hello"));
//   EXPECT_EQ(ReadExactly(fd, 5), "hello");
//   int error = -1;
//   EXPECT_EQ(ReadToEnd(fd, &error), "");   // then the peer closed; error 0 (EOF) or its errno
#ifndef NETBENCH_TESTING_SOCKET_IO_H_
#define NETBENCH_TESTING_SOCKET_IO_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace netbench {

// Writes all of `data` (a reset peer gives false, not SIGPIPE).
bool WriteAll(int fd, absl::string_view data);
// Reads exactly `size` bytes; fewer on EOF or error.
std::string ReadExactly(int fd, size_t size);
// Reads until EOF or an error; `error` (if given) gets errno, or 0 for a clean EOF.
std::string ReadToEnd(int fd, int* error = nullptr);
// For a test that expects the server to close `fd` by itself: reads (blocking) until it does, and
// returns true when it did (EOF or a reset). A hang guard, not a timing check: after
// `guard_seconds` with nothing read, it gives up and returns false.
bool ServerCloses(int fd, int guard_seconds = 60);
// A slow peer: sends `bytes` one at a time, waiting up to `interval_ms` after each for the server
// to close `fd` (or answer), and stops as soon as it does or a send fails. The wait is on that
// event; `interval_ms` is only the pace at which a peer that is not closed goes on.
void TrickleUntilClosed(int fd, std::string bytes, int interval_ms);

}  // namespace netbench

#endif  // NETBENCH_TESTING_SOCKET_IO_H_
