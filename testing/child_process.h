// Runs a program from a test and reads what it prints, line by line: for tests of a program's ready
// line, its summary, its exit status and its refusal of bad flags, and for real peers (openssl
// s_server, python3 -m http.server, nginx) in interoperability tests.
//
//   ChildProcess server({"echo/server", "--port=0"});   // a path relative to the runfiles root
//   std::string ready = server.ReadLine();              // "listening on 127.0.0.1:PORT ..."
//   int port = ReadyPort(ready);                        // -1 for a line that is not a ready line
//   server.Signal(SIGINT);
//   std::string rest = server.ReadRest();
//   EXPECT_EQ(server.Wait(), 0);
//
// stdout and stderr come back through one pipe. Reads take an optional timeout, so a peer that
// never prints its ready line fails the test instead of hanging it. A child still running when the
// object goes away is killed (SIGKILL) and reaped, so a failed assertion never leaves a process
// behind.
#ifndef NETBENCH_TESTING_CHILD_PROCESS_H_
#define NETBENCH_TESTING_CHILD_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace netbench {

class ChildProcess {
 public:
  // No timeout: wait as long as the child keeps its output open.
  static constexpr int kNoTimeout = -1;

  // args[0] is the program's path; the environment is the test's.
  explicit ChildProcess(std::vector<std::string> args);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // The next output line without its newline; what is left ("" if nothing) at EOF, or when no
  // output came for `timeout_ms`.
  std::string ReadLine(int timeout_ms = kNoTimeout);
  // Skips lines up to the first that starts with `prefix` and returns it; "" at EOF or timeout.
  std::string ReadLineStartingWith(const std::string& prefix, int timeout_ms = kNoTimeout);
  // Reads until the unread output contains `text` (or EOF, or no output for `timeout_ms`) and
  // returns all of that unread output.
  std::string ReadUntil(const std::string& text, int timeout_ms = kNoTimeout);
  // Everything until EOF (the child exited or closed its output).
  std::string ReadRest();
  void Signal(int signal_number);
  // Waits for the exit: the exit status, or 128 + the signal that ended it (-1: not started).
  int Wait();

 private:
  // Appends what the child prints next to unread_; false at EOF, on error or after `timeout_ms`.
  bool ReadMore(int timeout_ms);

  pid_t pid_ = -1;
  int out_ = -1;
  std::string unread_;
};

// The port of a server's ready line, "listening on HOST:PORT ...", which every netbench server and
// contestant prints once it accepts connections: the C++ tests' one reader of it (the Python suite's
// is common/server_lines.py). -1 when `line` is not one.
int ReadyPort(const std::string& line);

}  // namespace netbench

#endif  // NETBENCH_TESTING_CHILD_PROCESS_H_
