// Runs a built program from a test and reads what it prints, line by line: for tests of a program's
// ready line, its summary, its exit status and its refusal of bad flags.
//
//   ChildProcess server({"echo/server", "--port=0"});   // a path relative to the runfiles root
//   std::string ready = server.ReadLine();              // "listening on 127.0.0.1:PORT ..."
//   server.Signal(SIGINT);
//   std::string rest = server.ReadRest();
//   EXPECT_EQ(server.Wait(), 0);
//
// stdout and stderr come back through one pipe. A child still running when the object goes away
// is killed (SIGKILL), so a failed assertion never leaves a process behind or hangs the test.
#ifndef NETBENCH_TESTING_CHILD_PROCESS_H_
#define NETBENCH_TESTING_CHILD_PROCESS_H_

#include <sys/types.h>

#include <cstdio>
#include <string>
#include <vector>

namespace netbench {

class ChildProcess {
 public:
  // args[0] is the program's path; the environment is the test's.
  explicit ChildProcess(std::vector<std::string> args);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // The next output line without its newline; "" at EOF.
  std::string ReadLine();
  // Everything until EOF (the child exited or closed its output).
  std::string ReadRest();
  void Signal(int signal_number);
  // Waits for the exit: the exit status, or 128 + the signal that ended it.
  int Wait();

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
};

}  // namespace netbench

#endif  // NETBENCH_TESTING_CHILD_PROCESS_H_
