// //echo:client's load generator against netbench's own echo server, on every server model: zero
// errors and exactly the messages sent come back, in every mode and with both client models.
#include <memory>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "common/server.h"
#include "echo/echo_handler.h"
#include "echo/load_generator.h"
#include "gtest/gtest.h"

namespace netbench {
namespace echo {
namespace {

enum class Load { kStream, kBatched, kPingPong, kPipeline, kRate };

const char* LoadName(Load load) {
  switch (load) {
    case Load::kStream:
      return "stream";
    case Load::kBatched:
      return "batched";
    case Load::kPingPong:
      return "pingpong";
    case Load::kPipeline:
      return "pipeline";
    case Load::kRate:
      return "rate";
  }
  return "?";
}

using Param = std::tuple<ServerModel, ClientModel, Load>;

class ClientServerTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.port = 0;
    options.model = std::get<0>(GetParam());
    options.threads = 2;
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(options, EchoHandlerFactory());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  std::unique_ptr<Server> server_;
};

TEST_P(ClientServerTest, EveryMessageComesBackWithoutError) {
  const auto [server_model, client_model, load] = GetParam();
  LoadOptions options;
  options.port = server_->port();
  options.clients = 4;
  options.model = client_model;
  options.threads = 2;
  options.messages = 20000;
  options.timeout_nanos = 60 * kNanosPerSecond;
  switch (load) {
    case Load::kStream:
      break;
    case Load::kBatched:
      options.batch = 10;
      break;
    case Load::kPingPong:
      options.mode = LoadMode::kPipeline;
      options.messages = 2000;
      break;
    case Load::kPipeline:
      options.mode = LoadMode::kPipeline;
      options.pipeline = 32;
      break;
    case Load::kRate:
      options.rate = 40000;
      options.messages = 4000;
      break;
  }
  LoadResult result = RunLoad(options);
  EXPECT_TRUE(result.ok()) << result.failure;
  EXPECT_EQ(result.error_count(), 0u);
  EXPECT_EQ(result.connections, 4);
  EXPECT_EQ(result.aborted_connections, 0);
  EXPECT_EQ(result.total_written, static_cast<uint64_t>(options.messages));
  EXPECT_EQ(result.total_echoed, static_cast<uint64_t>(options.messages));
  for (const auto& [name, histogram] : result.latency) {
    if (name != "rtt_sampled") {
      EXPECT_EQ(histogram.count(), options.messages) << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, ClientServerTest,
                         ::testing::Combine(::testing::ValuesIn(AvailableServerModels()),
                                            ::testing::ValuesIn(AvailableClientModels()),
                                            ::testing::Values(Load::kStream, Load::kBatched,
                                                              Load::kPingPong, Load::kPipeline,
                                                              Load::kRate)),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return absl::StrCat(ServerModelName(std::get<0>(info.param)), "_",
                                               ServerModelName(std::get<1>(info.param)), "_",
                                               LoadName(std::get<2>(info.param)));
                         });

// Many connections at once, each server model: every message comes back.
class ManyClientsTest : public ::testing::TestWithParam<ServerModel> {};

TEST_P(ManyClientsTest, SixtyFourConnections) {
  ServerOptions server_options;
  server_options.port = 0;
  server_options.model = GetParam();
  server_options.threads = 2;
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start(server_options, EchoHandlerFactory());
  ASSERT_TRUE(server.ok()) << server.status();
  LoadOptions options;
  options.port = (*server)->port();
  options.clients = 64;
  options.model = DefaultServerModel();
  options.threads = 2;
  options.messages = 64 * 500;
  options.timeout_nanos = 60 * kNanosPerSecond;
  LoadResult result = RunLoad(options);
  EXPECT_TRUE(result.ok()) << result.failure;
  EXPECT_EQ(result.connections, 64);
  EXPECT_EQ(result.aborted_connections, 0);
  EXPECT_EQ(result.total_written, 64u * 500);
  EXPECT_EQ(result.total_echoed, 64u * 500);
}

INSTANTIATE_TEST_SUITE_P(AllModels, ManyClientsTest, ::testing::ValuesIn(AvailableServerModels()),
                         [](const auto& info) { return std::string(ServerModelName(info.param)); });

}  // namespace
}  // namespace echo
}  // namespace netbench
