#include "testing/child_process.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <system_error>

#include "common/platform.h"

extern char** environ;

namespace netbench {

ChildProcess::ChildProcess(std::vector<std::string> args) {
  int fds[2];
  // Close-on-exec, so that children started later do not hold this pipe open; dup2 gives the
  // child its own stdout and stderr without the flag.
  if (OpenPipe(fds, /*non_blocking=*/false) != 0) return;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);  // the child holds the write end now: EOF comes when it is done
  out_ = fds[0];
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    Wait();
  }
  if (out_ >= 0) close(out_);
}

bool ChildProcess::ReadMore(int timeout_ms) {
  if (out_ < 0) return false;
  pollfd readable{out_, POLLIN, 0};
  int ready;
  do {
    ready = poll(&readable, 1, timeout_ms);
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) return false;
  char chunk[4096];
  ssize_t n;
  do {
    n = read(out_, chunk, sizeof(chunk));
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return false;
  unread_.append(chunk, static_cast<size_t>(n));
  return true;
}

std::string ChildProcess::ReadLine(int timeout_ms) {
  size_t end;
  while ((end = unread_.find('\n')) == std::string::npos) {
    if (!ReadMore(timeout_ms)) {
      std::string rest;
      rest.swap(unread_);
      return rest;
    }
  }
  std::string line = unread_.substr(0, end);
  unread_.erase(0, end + 1);
  return line;
}

std::string ChildProcess::ReadLineStartingWith(const std::string& prefix, int timeout_ms) {
  while (true) {
    const bool complete = unread_.find('\n') != std::string::npos;
    if (!complete && !ReadMore(timeout_ms)) return "";
    if (!complete) continue;
    std::string line = ReadLine(timeout_ms);
    if (line.compare(0, prefix.size(), prefix) == 0) return line;
  }
}

std::string ChildProcess::ReadUntil(const std::string& text, int timeout_ms) {
  while (unread_.find(text) == std::string::npos && ReadMore(timeout_ms)) {
  }
  std::string all;
  all.swap(unread_);
  return all;
}

std::string ChildProcess::ReadRest() {
  while (ReadMore(kNoTimeout)) {
  }
  std::string all;
  all.swap(unread_);
  return all;
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

int ReadyPort(const std::string& line) {
  static const std::string kReady = "listening on ";
  if (line.compare(0, kReady.size(), kReady) != 0) return -1;
  const std::string address = line.substr(kReady.size(), line.find(' ', kReady.size()) - kReady.size());
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return -1;
  const char* first = address.data() + colon + 1;
  const char* last = address.data() + address.size();
  int port = -1;
  const std::from_chars_result parsed = std::from_chars(first, last, port);
  // The whole rest a number of a port: "80x", "", "-1" and "99999" are not.
  if (parsed.ec != std::errc() || parsed.ptr != last || port < 0 || port > 65535) return -1;
  return port;
}

}  // namespace netbench
