// The built //echo:server program: its ready line, its echo, its clean stop on SIGINT, and its
// refusal of bad flags.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "common/socket.h"
#include "gtest/gtest.h"

extern char** environ;

namespace netbench {
namespace {

// A child process whose stdout and stderr come back through one pipe.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    out_ = fdopen(fds[0], "r");
  }
  ~Child() {
    if (pid_ > 0) Wait();
    if (out_ != nullptr) fclose(out_);
  }

  // The next output line without its newline; "" at EOF.
  std::string ReadLine() {
    char line[1024];
    if (fgets(line, sizeof(line), out_) == nullptr) return "";
    std::string s(line);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  std::string ReadRest() {
    std::string s, line;
    while (!(line = ReadLine()).empty()) s += line + "\n";
    return s;
  }
  void Signal(int sig) { kill(pid_, sig); }
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
};

const char kServer[] = "echo/server";

TEST(EchoServerMainTest, PrintsAddressEchoesAndStopsCleanlyOnSigint) {
  for (const char* model : {"threads", "poll", "epoll"}) {
    Child server({kServer, "--port=0", std::string("--model=") + model});
    std::string ready = server.ReadLine();
    // "listening on 127.0.0.1:PORT model=epoll threads=1"
    ASSERT_TRUE(absl::StartsWith(ready, "listening on 127.0.0.1:")) << ready;
    EXPECT_TRUE(absl::EndsWith(ready, std::string(" model=") + model + " threads=1")) << ready;
    std::string port_text = ready.substr(strlen("listening on 127.0.0.1:"));
    port_text = port_text.substr(0, port_text.find(' '));
    int port = 0;
    ASSERT_TRUE(absl::SimpleAtoi(port_text, &port)) << ready;

    absl::StatusOr<UniqueFd> client = Connect("127.0.0.1", port);
    ASSERT_TRUE(client.ok()) << client.status();
    ASSERT_EQ(write(client->get(), "hello, friend\n", 14), 14);
    char echo[14];
    size_t got = 0;
    while (got < sizeof(echo)) {
      ssize_t n = read(client->get(), echo + got, sizeof(echo) - got);
      ASSERT_GT(n, 0);
      got += n;
    }
    EXPECT_EQ(std::string(echo, 14), "hello, friend\n");
    client->reset();

    server.Signal(SIGINT);
    std::string summary = server.ReadRest();
    EXPECT_TRUE(absl::StrContains(summary, "stopped by signal 2")) << summary;
    EXPECT_TRUE(absl::StrContains(summary, "1 connections")) << summary;
    EXPECT_TRUE(absl::StrContains(summary, "14 bytes read")) << summary;
    EXPECT_EQ(server.Wait(), 0) << model;
  }
}

TEST(EchoServerMainTest, RejectsBadFlagsWithAMessage) {
  {
    Child server({kServer, "--model=fibers"});
    std::string output = server.ReadRest();
    EXPECT_NE(server.Wait(), 0);
    EXPECT_TRUE(absl::StrContains(output, "fibers")) << output;
  }
  {
    Child server({kServer, "--port=70000"});
    std::string output = server.ReadRest();
    EXPECT_NE(server.Wait(), 0);
    EXPECT_TRUE(absl::StrContains(output, "--port")) << output;
  }
}

}  // namespace
}  // namespace netbench
