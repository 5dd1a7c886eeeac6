#include "testing/child_process.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace netbench {

ChildProcess::ChildProcess(std::vector<std::string> args) {
  int fds[2];
  if (pipe(fds) != 0) return;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);  // the child holds the write end now: EOF comes when it is done
  out_ = fdopen(fds[0], "r");
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    Wait();
  }
  if (out_ != nullptr) fclose(out_);
}

std::string ChildProcess::ReadLine() {
  if (out_ == nullptr) return "";
  std::string line;
  int c;
  while ((c = fgetc(out_)) != EOF && c != '\n') line.push_back(static_cast<char>(c));
  return line;
}

std::string ChildProcess::ReadRest() {
  std::string rest;
  if (out_ == nullptr) return rest;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), out_)) > 0) rest.append(buffer, n);
  return rest;
}

void ChildProcess::Signal(int signal_number) {
  if (pid_ > 0) kill(pid_, signal_number);
}

int ChildProcess::Wait() {
  if (pid_ <= 0) return -1;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace netbench
