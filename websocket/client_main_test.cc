// The built //websocket:client program: against the built //websocket:server, its series line and
// JSON report; a --series_interval it refuses; and when its peer never answers: a SYN-dropping
// address, a listener that never reads (the upgrade is never answered), the same over wss (the TLS
// handshake is never answered). On every model it gives up at its --timeout, exits 1 and says in
// which phase and how far the connections got; the test's own time limit is what bounds it.
#include <signal.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/server.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "testing/black_hole.h"
#include "testing/child_process.h"

namespace netbench {
namespace {

const char kClient[] = "websocket/client";
const char kServer[] = "websocket/server";

uint64_t SumOf(const nlohmann::json& values) {
  uint64_t sum = 0;
  for (const auto& value : values) sum += value.get<uint64_t>();
  return sum;
}

std::string RunClient(const std::string& url, const char* model, int* status) {
  ChildProcess client({kClient, absl::StrCat("--url=", url), "--clients=3", "--messages=100",
                       "--timeout=1s", "--insecure", absl::StrCat("--model=", model),
                       "--progress=false"});
  std::string output = client.ReadRest();
  *status = client.Wait();
  return output;
}

// The series line, before the last line ("rate: R msgs/s"): the messages sent and received per
// 0.1 s, adding up to the write-up's "Sent N", in the line and in the JSON report.
TEST(WebSocketClientMainTest, PrintsTheSendPhasesSeriesBeforeItsRateLine) {
  ChildProcess server({kServer, "--port=0"});  // echo mode
  const std::string ready = server.ReadLineStartingWith("listening on 127.0.0.1:");
  ASSERT_FALSE(ready.empty());
  const std::string port = std::to_string(ReadyPort(ready));

  const std::string json_path = ::testing::TempDir() + "/websocket_client_main_test.json";
  ChildProcess client({kClient, absl::StrCat("--url=ws://127.0.0.1:", port, "/echo"), "--clients=2",
                       "--messages=500", "--mode=echo", "--progress=false", "--json=" + json_path});
  const std::string output = client.ReadRest();
  EXPECT_EQ(client.Wait(), 0) << output;
  std::vector<std::string> lines = absl::StrSplit(output, '\n', absl::SkipEmpty());
  ASSERT_GE(lines.size(), 2u) << output;
  EXPECT_TRUE(absl::StartsWith(lines.back(), "rate: ")) << output;
  const std::string& series = lines[lines.size() - 2];
  ASSERT_TRUE(std::regex_match(
      series, std::regex(R"(series: \{"interval_s": 0\.1, "last_s": [0-9.e-]+, )"
                         R"("sent": \[\d+(, \d+)*\], "received": \[\d+(, \d+)*\]\})")))
      << output;
  const nlohmann::json line = nlohmann::json::parse(series.substr(std::strlen("series: ")));
  EXPECT_EQ(line["sent"].size(), line["received"].size());
  EXPECT_TRUE(absl::StrContains(output, absl::StrCat("Sent ", SumOf(line["sent"]), " in ")))
      << output;
  EXPECT_EQ(SumOf(line["sent"]), 1000u);
  EXPECT_EQ(SumOf(line["received"]), 1000u);  // echo mode: the send phase ends with the last echo

  std::ifstream json_file(json_path);
  const nlohmann::json report = nlohmann::json::parse(json_file);
  EXPECT_EQ(report["series"]["messages_sent"]["values"], line["sent"]);
  EXPECT_EQ(report["series"]["messages_received"]["values"], line["received"]);

  server.Signal(SIGINT);
  server.ReadRest();
  EXPECT_EQ(server.Wait(), 0);
}

TEST(WebSocketClientMainTest, ASeriesIntervalUnder10msIsAUsageError) {
  for (const char* interval : {"--series_interval=1ms", "--series_interval=-1s"}) {
    ChildProcess client({kClient, "--url=ws://127.0.0.1:1/", interval, "--progress=false"});
    const std::string output = client.ReadRest();
    EXPECT_EQ(client.Wait(), 2) << interval;
    EXPECT_TRUE(absl::StrContains(output, "--series_interval")) << output;
  }
}

TEST(WebSocketClientMainTest, EveryModelStopsAtItsTimeoutWhenThePeerNeverAnswers) {
  SynDroppingListener drop;
  SilentListener silent;
  for (ServerModel built : AvailableServerModels()) {
    const char* model = ServerModelName(built);
    int status = 0;
    std::string output =
        RunClient(absl::StrCat("ws://127.0.0.1:", drop.port(), "/"), model, &status);
    EXPECT_EQ(status, 1) << model;
    EXPECT_TRUE(absl::StrContains(output, "0 of 3 open (3 still connecting)")) << output;

    output = RunClient(absl::StrCat("ws://127.0.0.1:", silent.port(), "/"), model, &status);
    EXPECT_EQ(status, 1) << model;
    EXPECT_TRUE(absl::StrContains(output, "0 of 3 open (3 still opening)")) << output;

    output = RunClient(absl::StrCat("wss://127.0.0.1:", silent.port(), "/"), model, &status);
    EXPECT_EQ(status, 1) << model;
    EXPECT_TRUE(absl::StrContains(output, "0 of 3 open (3 still in the TLS handshake)")) << output;
  }
}

}  // namespace
}  // namespace netbench
