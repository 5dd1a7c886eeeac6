// The built //echo:client program against the built //echo:server: its summary and last line (the
// Go spammer's "rate: N msgs/s"), its JSON report, and its exit status when it cannot connect or is
// given bad flags.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/socket.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace netbench {
namespace {

const char kClient[] = "echo/client";
const char kServer[] = "echo/server";

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
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      Wait();
    }
    if (out_ != nullptr) fclose(out_);
  }

  std::string ReadLine() {
    char line[4096];
    if (fgets(line, sizeof(line), out_) == nullptr) return "";
    std::string s(line);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  // Everything until the child closes its output.
  std::string ReadAll() {
    std::string s;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), out_)) > 0) s.append(buffer, n);
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

std::string LastLine(const std::string& output) {
  std::vector<std::string> lines = absl::StrSplit(output, '\n', absl::SkipEmpty());
  return lines.empty() ? "" : lines.back();
}

TEST(EchoClientMainTest, LoadsTheServerAndEndsWithTheSpammersRateLine) {
  Child server({kServer, "--port=0", "--model=epoll"});
  const std::string ready = server.ReadLine();
  ASSERT_TRUE(absl::StartsWith(ready, "listening on 127.0.0.1:")) << ready;
  std::string port = ready.substr(strlen("listening on 127.0.0.1:"));
  port = port.substr(0, port.find(' '));

  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string json_path =
      absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/echo_client_main_test.json");
  Child client(
      {kClient, "--port=" + port, "--clients=3", "--messages=3000", "--json=" + json_path});
  const std::string output = client.ReadAll();
  EXPECT_EQ(client.Wait(), 0) << output;
  const std::string last = LastLine(output);
  ASSERT_TRUE(absl::StartsWith(last, "rate: ")) << output;
  ASSERT_TRUE(absl::EndsWith(last, " msgs/s")) << output;
  int64_t rate = 0;
  EXPECT_TRUE(absl::SimpleAtoi(last.substr(6, last.size() - 6 - 7), &rate)) << last;
  EXPECT_GT(rate, 0);
  EXPECT_TRUE(absl::StrContains(output, "client CPU:")) << output;

  std::ifstream json_file(json_path);
  nlohmann::json report = nlohmann::json::parse(json_file);
  EXPECT_EQ(report["program"], "echo-client");
  EXPECT_EQ(report["counts"]["total_written"], 3000);
  EXPECT_EQ(report["counts"]["total_echoed"], 3000);
  EXPECT_EQ(report["counts"]["errors"], 0);
  EXPECT_GT(report["metrics"]["msgs_per_s"]["value"].get<double>(), 0);

  server.Signal(SIGINT);
  server.ReadAll();
  EXPECT_EQ(server.Wait(), 0);
}

TEST(EchoClientMainTest, ClosedPortExitsNonZeroNamingTheCause) {
  int port;
  {
    absl::StatusOr<Listener> listener = Listen({.host = "127.0.0.1", .port = 0});
    ASSERT_TRUE(listener.ok());
    port = listener->port;
  }
  Child client({kClient, absl::StrCat("--port=", port), "--messages=10"});
  const std::string output = client.ReadAll();
  EXPECT_EQ(client.Wait(), 1);
  EXPECT_TRUE(absl::StrContains(output, "connect.ECONNREFUSED x3")) << output;
}

TEST(EchoClientMainTest, RejectsBadFlagsWithAMessage) {
  for (const auto& [flag, expected] : std::vector<std::pair<std::string, std::string>>{
           {"--mode=fibers", "fibers"},
           {"--clients=0", "--clients"},
           {"--model=green", "green"},
           {"--mode=pingpong --rate=100", "--rate"},
           {"--pipeline=4 --mode=stream", "--pipeline"}}) {
    std::vector<std::string> args = {kClient};
    for (absl::string_view part : absl::StrSplit(flag, ' ')) args.emplace_back(part);
    Child client(args);
    const std::string output = client.ReadAll();
    EXPECT_NE(client.Wait(), 0) << flag;
    EXPECT_TRUE(absl::StrContains(output, expected)) << flag << ": " << output;
  }
}

}  // namespace
}  // namespace netbench
