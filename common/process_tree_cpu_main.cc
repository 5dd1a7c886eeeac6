// Reads CPU time with the scheduler's clock on the host it runs on, for the suite's programs there
// (bench/running/ssh.py copies it like the programs under test):
//
//   process_tree_cpu --pid=1234        cpu_ns=N processes=P threads=T cpus=C  (1234 and its tree)
//   process_tree_cpu --check           the same of itself: exit 0 where this host can read the clock
//   process_tree_cpu --run -- PROGRAM ARGS...
//       runs PROGRAM, passes SIGINT, SIGTERM and SIGHUP on to it, and once it exits prints
//       "netbench-remote-cpu-ns N" on stderr (wait4: its CPU time, children it waited for
//       included, to the microsecond) and exits with its status (128 + the signal that killed it).
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "common/platform.h"
#include "common/process_tree_cpu.h"

ABSL_FLAG(int, pid, 0, "the process whose tree's CPU time to print");
ABSL_FLAG(bool, check, false,
          "print this process's own, to check that this host can read the clock");
ABSL_FLAG(bool, run, false, "run the program after -- and print its CPU time when it exits");

namespace {

volatile sig_atomic_t child_pid = 0;

void PassOn(int signal_number) {
  if (child_pid > 0) kill(child_pid, signal_number);
}

int PrintTree(pid_t pid) {
  absl::StatusOr<netbench::ProcessTree> tree = netbench::ReadProcessTree(pid);
  if (!tree.ok()) {
    fprintf(stderr, "process_tree_cpu: %s\n", tree.status().ToString().c_str());
    return 1;
  }
  printf("cpu_ns=%lld processes=%d threads=%d cpus=%d\n", static_cast<long long>(tree->cpu_nanos),
         tree->processes, tree->threads, tree->cpus);
  return 0;
}

int Run(std::vector<char*> argv) {
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    perror("process_tree_cpu: fork");
    return 125;
  }
  if (child == 0) {
    netbench::KillWhenParentExits();  // this wrapper killed outright takes the program with it
    if (getppid() != parent) _exit(125);
    execvp(argv[0], argv.data());
    fprintf(stderr, "process_tree_cpu: %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  child_pid = child;
  struct sigaction action = {};
  action.sa_handler = PassOn;
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal_number, &action, nullptr);
  int status = 0;
  rusage usage = {};
  while (wait4(child, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  auto nanos = [](const timeval& tv) {
    return int64_t{tv.tv_sec} * 1000000000 + int64_t{tv.tv_usec} * 1000;
  };
  fprintf(stderr, "netbench-remote-cpu-ns %lld\n",
          static_cast<long long>(nanos(usage.ru_utime) + nanos(usage.ru_stime)));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_run)) {
    if (rest.size() < 2) {
      fprintf(stderr, "process_tree_cpu: --run needs -- PROGRAM ARGS...\n");
      return 125;
    }
    return Run(std::vector<char*>(rest.begin() + 1, rest.end()));
  }
  if (absl::GetFlag(FLAGS_check)) return PrintTree(getpid());
  if (absl::GetFlag(FLAGS_pid) <= 0) {
    fprintf(stderr, "process_tree_cpu: --pid=PID, --check or --run -- PROGRAM ARGS...\n");
    return 2;
  }
  return PrintTree(absl::GetFlag(FLAGS_pid));
}
