// The built //echo:server program: its ready line, its echo, its clean stop on SIGINT, and its
// refusal of bad flags.
#include <signal.h>
#include <unistd.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "common/server.h"
#include "common/socket.h"
#include "gtest/gtest.h"
#include "testing/child_process.h"

namespace netbench {
namespace {

const char kServer[] = "echo/server";

TEST(EchoServerMainTest, PrintsAddressEchoesAndStopsCleanlyOnSigint) {
  for (ServerModel built : AvailableServerModels()) {
    const std::string model = ServerModelName(built);
    ChildProcess server({kServer, "--port=0", "--model=" + model});
    std::string ready = server.ReadLine();
    // "listening on 127.0.0.1:PORT model=epoll threads=1"
    ASSERT_TRUE(absl::StartsWith(ready, "listening on 127.0.0.1:")) << ready;
    EXPECT_TRUE(absl::EndsWith(ready, std::string(" model=") + model + " threads=1")) << ready;
    const int port = ReadyPort(ready);
    ASSERT_GT(port, 0) << ready;

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
    ChildProcess server({kServer, "--model=fibers"});
    std::string output = server.ReadRest();
    EXPECT_NE(server.Wait(), 0);
    EXPECT_TRUE(absl::StrContains(output, "fibers")) << output;
  }
  {
    ChildProcess server({kServer, "--port=70000"});
    std::string output = server.ReadRest();
    EXPECT_NE(server.Wait(), 0);
    EXPECT_TRUE(absl::StrContains(output, "--port")) << output;
  }
}

// --check answers whether the server would start, and serves nothing: the suite asks it before a
// contestant on --model=uring, so that a machine that refuses io_uring skips those rows saying why.
TEST(EchoServerMainTest, CheckSaysWhatWouldBeServedAndExits) {
  for (ServerModel built : AvailableServerModels()) {
    const std::string model = ServerModelName(built);
    ChildProcess server({kServer, "--port=0", "--model=" + model, "--check"});
    std::string output = server.ReadRest();
    EXPECT_EQ(server.Wait(), 0) << output;
    EXPECT_TRUE(absl::StrContains(output, "check: would listen on 127.0.0.1:0 model=" + model))
        << output;
    EXPECT_FALSE(absl::StrContains(output, "listening on")) << output;
    // TLS on every model, uring included.
    ChildProcess tls({kServer, "--port=0", "--model=" + model, "--tls", "--check"});
    output = tls.ReadRest();
    EXPECT_EQ(tls.Wait(), 0) << output;
    EXPECT_TRUE(absl::StrContains(output, "tls certificate sha256")) << output;
  }
  ChildProcess bad({kServer, "--port=70000", "--check"});
  std::string output = bad.ReadRest();
  EXPECT_EQ(bad.Wait(), 2) << output;
  EXPECT_TRUE(absl::StrContains(output, "--port")) << output;
}

}  // namespace
}  // namespace netbench
