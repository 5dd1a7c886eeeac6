// The built //websocket:client program when its peer never answers: a SYN-dropping address, a
// listener that never reads (the upgrade is never answered), the same over wss (the TLS handshake
// is never answered). On every model it gives up at its --timeout, exits 1 and says in which phase
// and how far the connections got; the test's own time limit is what bounds it.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/server.h"
#include "gtest/gtest.h"
#include "testing/black_hole.h"
#include "testing/child_process.h"

namespace netbench {
namespace {

const char kClient[] = "websocket/client";

std::string RunClient(const std::string& url, const char* model, int* status) {
  ChildProcess client({kClient, absl::StrCat("--url=", url), "--clients=3", "--messages=100",
                       "--timeout=1s", "--insecure", absl::StrCat("--model=", model),
                       "--progress=false"});
  std::string output = client.ReadRest();
  *status = client.Wait();
  return output;
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
