// The built //echo:client program against the built //echo:server: its summary, its series line
// and last line (the Go spammer's "rate: N msgs/s"), its JSON report, and its exit status when it
// cannot connect, when its peer never answers, or when it is given bad flags.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/client_driver.h"
#include "common/platform.h"
#include "common/server.h"
#include "common/socket.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "testing/black_hole.h"
#include "testing/child_process.h"
#if NETBENCH_LINUX
#include "testing/refuse_io_uring.h"
#endif

namespace netbench {
namespace {

const char kClient[] = "echo/client";
const char kServer[] = "echo/server";

std::string LastLine(const std::string& output) {
  std::vector<std::string> lines = absl::StrSplit(output, '\n', absl::SkipEmpty());
  return lines.empty() ? "" : lines.back();
}

// The line that starts with `prefix`, whole; "" when there is none.
std::string LineStartingWith(const std::string& output, absl::string_view prefix) {
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (absl::StartsWith(line, prefix)) return std::string(line);
  }
  return "";
}

uint64_t SumOf(const nlohmann::json& values) {
  uint64_t sum = 0;
  for (const auto& value : values) sum += value.get<uint64_t>();
  return sum;
}

TEST(EchoClientMainTest, LoadsTheServerAndEndsWithTheSpammersRateLine) {
  ChildProcess server({kServer, "--port=0"});  // the default model: epoll where it is built
  const std::string ready = server.ReadLine();
  ASSERT_TRUE(absl::StartsWith(ready, "listening on 127.0.0.1:")) << ready;
  const std::string port = std::to_string(ReadyPort(ready));

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
  // The JSON carries figures rounded to 9 significant digits.
  const double per_message = report["counts"]["system_calls"].get<double>() / 3000;
  EXPECT_NEAR(report["metrics"]["system_calls_per_message"]["value"].get<double>(), per_message,
              per_message * 1e-8);
  EXPECT_TRUE(absl::StrContains(output, " system calls, ")) << output;

  // The series line, before the rate line: the messages written and echoed per 0.1 s, which add up
  // to the summary's count of messages written, in the line and in the JSON report.
  const std::string series = LineStartingWith(output, "series: ");
  ASSERT_TRUE(std::regex_match(
      series, std::regex(R"(series: \{"interval_s": 0\.1, "last_s": [0-9.e-]+, )"
                         R"("sent": \[\d+(, \d+)*\], "received": \[\d+(, \d+)*\]\})")))
      << output;
  EXPECT_LT(output.find(series), output.find(last)) << output;
  const nlohmann::json line = nlohmann::json::parse(series.substr(strlen("series: ")));
  EXPECT_EQ(line["sent"].size(), line["received"].size());
  // "written: 3,000 msgs in ..."
  const std::string written = LineStartingWith(output, "written: ");
  absl::string_view written_count = absl::StripPrefix(written, "written: ");
  written_count = written_count.substr(0, written_count.find(' '));
  EXPECT_EQ(absl::StrCat(SumOf(line["sent"])), absl::StrReplaceAll(written_count, {{",", ""}}))
      << output;
  EXPECT_EQ(SumOf(report["series"]["messages_written"]["values"]), SumOf(line["sent"]));
  EXPECT_EQ(SumOf(report["series"]["messages_echoed"]["values"]), SumOf(line["received"]));
  EXPECT_EQ(report["series"]["messages_written"]["interval_s"], 0.1);

  // --series_interval=0: no series.
  ChildProcess quiet(
      {kClient, "--port=" + port, "--messages=300", "--series_interval=0", "--progress=false"});
  const std::string quiet_output = quiet.ReadRest();
  EXPECT_EQ(quiet.Wait(), 0) << quiet_output;
  EXPECT_FALSE(absl::StrContains(quiet_output, "series:")) << quiet_output;

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

// --tls: the same load over TLS, against the server's --tls on every model it has (uring
// included), from every client model, every echo back. 3000 messages in a stream are enough for
// TLS to read ahead more records than an event loop reads in one turn: the epoll and poll clients
// once waited for a readable socket while those records sat in TLS, and lost the stream's tail.
TEST(EchoClientMainTest, LoadsATlsServerOnEveryModel) {
  for (ServerModel built : AvailableServerModels()) {
    const std::string model = ServerModelName(built);
    ChildProcess server({kServer, "--port=0", "--tls", "--model=" + model});
    const std::string fingerprint = server.ReadLine();
    ASSERT_TRUE(absl::StartsWith(fingerprint, "tls certificate sha256")) << fingerprint;
    const std::string ready = server.ReadLine();
    ASSERT_TRUE(absl::StartsWith(ready, "listening on 127.0.0.1:")) << ready;
    const std::string port = std::to_string(ReadyPort(ready));
    int runs = 0;
    for (ClientModel client_built : AvailableClientModels()) {
      const std::string client_model = ServerModelName(client_built);
      for (const char* mode : {"--mode=stream", "--mode=pingpong"}) {
        ChildProcess client({kClient, "--port=" + port, "--tls", "--insecure", "--clients=3",
                             "--messages=3000", mode, "--model=" + client_model,
                             "--progress=false"});
        const std::string output = client.ReadRest();
        EXPECT_EQ(client.Wait(), 0)
            << model << " <- " << client_model << " " << mode << ": " << output;
        EXPECT_TRUE(absl::StartsWith(LastLine(output), "rate: ")) << output;
        ++runs;
      }
    }
    server.Signal(SIGINT);
    const std::string stopped = server.ReadRest();
    EXPECT_EQ(server.Wait(), 0) << stopped;
    // Every run, every byte: 3000 messages of 22 bytes each way.
    const std::string bytes = absl::StrCat(runs * 3000 * 22);
    EXPECT_TRUE(absl::StrContains(stopped, bytes + " bytes read, " + bytes + " bytes written"))
        << stopped;
  }
}

TEST(EchoClientMainTest, RejectsBadFlagsWithAMessage) {
  for (const auto& [flag, expected] : std::vector<std::pair<std::string, std::string>>{
           {"--mode=fibers", "fibers"},
           {"--clients=0", "--clients"},
           {"--model=green", "green"},
           {"--mode=pingpong --rate=100", "--rate"},
           {"--pipeline=4 --mode=stream", "--pipeline"},
           {"--insecure", "--tls"},
           {"--series_interval=5ms", "--series_interval"},
           {"--series_interval=-1s", "--series_interval"}}) {
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

#if NETBENCH_LINUX
// Where a seccomp filter refuses io_uring (as container runtimes' default profiles do),
// --model=uring is a usage error naming the cause, before any connection is tried.
TEST(EchoClientMainTest, ModelUringWhereIoUringIsRefusedExitsTwoNamingTheCause) {
  if (!UringSupport().ok())
    GTEST_SKIP() << "io_uring must work here for this test to mean anything";
  const RefusedRun client = RunWithIoUringRefused([] {
    execl(kClient, kClient, "--model=uring", "--port=1", "--progress=false", nullptr);
    return std::string("exec failed");
  });
  EXPECT_EQ(client.exit_status, 2) << client.output;
  EXPECT_TRUE(
      absl::StrContains(client.output, "--model: io_uring is not available to this process"))
      << client.output;
  EXPECT_TRUE(absl::StrContains(client.output, "io_uring_setup failed with EPERM"))
      << client.output;
}
#endif

}  // namespace
}  // namespace netbench
