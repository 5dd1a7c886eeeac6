// The built //echo:client program against the built //echo:server: its summary and last line (the
// Go spammer's "rate: N msgs/s"), its JSON report, and its exit status when it cannot connect, when
// its peer never answers, or when it is given bad flags.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/server.h"
#include "common/socket.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "testing/black_hole.h"
#include "testing/child_process.h"

namespace netbench {
namespace {

const char kClient[] = "echo/client";
const char kServer[] = "echo/server";

std::string LastLine(const std::string& output) {
  std::vector<std::string> lines = absl::StrSplit(output, '\n', absl::SkipEmpty());
  return lines.empty() ? "" : lines.back();
}

TEST(EchoClientMainTest, LoadsTheServerAndEndsWithTheSpammersRateLine) {
  ChildProcess server({kServer, "--port=0"});  // the default model: epoll where it is built
  const std::string ready = server.ReadLine();
  ASSERT_TRUE(absl::StartsWith(ready, "listening on 127.0.0.1:")) << ready;
  std::string port = ready.substr(strlen("listening on 127.0.0.1:"));
  port = port.substr(0, port.find(' '));

  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string json_path =
      absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/echo_client_main_test.json");
  ChildProcess client(
      {kClient, "--port=" + port, "--clients=3", "--messages=3000", "--json=" + json_path});
  const std::string output = client.ReadRest();
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
  // Each message is written and read back: well over one system call per 3 messages, even
  // batched and coalesced.
  EXPECT_GT(report["counts"]["system_calls"].get<int64_t>(), 1000);
  EXPECT_DOUBLE_EQ(report["metrics"]["system_calls_per_message"]["value"].get<double>(),
                   report["counts"]["system_calls"].get<double>() / 3000);
  EXPECT_TRUE(absl::StrContains(output, " system calls, ")) << output;

  server.Signal(SIGINT);
  server.ReadRest();
  EXPECT_EQ(server.Wait(), 0);
}

TEST(EchoClientMainTest, ClosedPortExitsNonZeroNamingTheCause) {
  int port;
  {
    absl::StatusOr<Listener> listener = Listen({.host = "127.0.0.1", .port = 0});
    ASSERT_TRUE(listener.ok());
    port = listener->port;
  }
  ChildProcess client({kClient, absl::StrCat("--port=", port), "--messages=10"});
  const std::string output = client.ReadRest();
  EXPECT_EQ(client.Wait(), 1);
  EXPECT_TRUE(absl::StrContains(output, "connect.ECONNREFUSED x3")) << output;
}

// A peer that drops SYNs, or accepts and never reads: on every model the client gives up at its
// --timeout (a blocking connect would wait out the kernel's SYN retries, minutes), exits 1, and
// says in which phase and how far the connections got. The test's own time limit is what bounds it.
TEST(EchoClientMainTest, EveryModelStopsAtItsTimeoutWhenThePeerNeverAnswers) {
  SynDroppingListener drop;
  SilentListener silent;
  for (ServerModel built : AvailableServerModels()) {
    if (built == ServerModel::kUring) continue;  // a server model only: the client refuses it
    const char* model = ServerModelName(built);
    ChildProcess dropped({kClient, absl::StrCat("--port=", drop.port()), "--timeout=1s",
                          "--messages=1000", absl::StrCat("--model=", model), "--progress=false"});
    std::string output = dropped.ReadRest();
    EXPECT_EQ(dropped.Wait(), 1) << model;
    EXPECT_TRUE(absl::StrContains(output, "timed out after 1.0 s opening connections")) << output;
    EXPECT_TRUE(absl::StrContains(output, "0 of 3 open (3 still connecting)")) << output;

    // A --messages run: a --duration run's --timeout must hold the duration and the drain, so
    // only a peer that stops reading mid-run meets it.
    ChildProcess ignored({kClient, absl::StrCat("--port=", silent.port()), "--timeout=1s",
                          "--messages=100000000", absl::StrCat("--model=", model),
                          "--progress=false"});
    output = ignored.ReadRest();
    EXPECT_EQ(ignored.Wait(), 1) << model;
    EXPECT_TRUE(absl::StrContains(output, "timed out after 1.0 s while sending")) << output;
    EXPECT_TRUE(absl::StrContains(output, "0 of 3 connections finished")) << output;
  }
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
    ChildProcess client(args);
    const std::string output = client.ReadRest();
    EXPECT_EQ(client.Wait(), 2) << flag;
    EXPECT_TRUE(absl::StrContains(output, expected)) << flag << ": " << output;
  }
}

// --timeout bounds the run that --warmup, --duration and --drain_timeout make: given both and too
// short, the client refuses to start, naming both flags and the --timeout that would hold the run.
TEST(EchoClientMainTest, ATimeoutThatCannotHoldTheGivenDurationRefusesToStart) {
  ChildProcess client({kClient, "--port=1", "--timeout=8s", "--duration=12s", "--progress=false"});
  const std::string output = client.ReadRest();
  EXPECT_EQ(client.Wait(), 2);
  EXPECT_EQ(output,
            "echo-client: --timeout=8s cannot hold --duration=12s (a run lasts --warmup + "
            "--duration + --drain_timeout, 0 + 12s + 5s): give --timeout >= 17s, or --duration <= "
            "3s\n");
}

}  // namespace
}  // namespace netbench
