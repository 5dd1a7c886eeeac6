#include "common/socket.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"

namespace netbench {
namespace {

// Sends a few bytes one way and back over an accepted connection: proves both ends are real.
void ExpectRoundTrip(int client, int server) {
  ASSERT_EQ(write(client, "ping", 4), 4);
  char buffer[4];
  ASSERT_EQ(read(server, buffer, 4), 4);
  EXPECT_EQ(std::string(buffer, 4), "ping");
  ASSERT_EQ(write(server, "pong", 4), 4);
  ASSERT_EQ(read(client, buffer, 4), 4);
  EXPECT_EQ(std::string(buffer, 4), "pong");
}

class LoopbackTest : public testing::TestWithParam<const char*> {};

TEST_P(LoopbackTest, ListenOnPortZeroThenConnect) {
  absl::StatusOr<Listener> listener = Listen({.host = GetParam(), .port = 0});
  if (!listener.ok() && absl::IsInvalidArgument(listener.status())) {
    GTEST_SKIP() << "address family not available here: " << listener.status();
  }
  ASSERT_TRUE(listener.ok()) << listener.status();
  EXPECT_GT(listener->port, 0);
  EXPECT_EQ(*LocalPort(listener->fd.get()), listener->port);

  absl::StatusOr<UniqueFd> client = Connect(GetParam(), listener->port);
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<UniqueFd> server = Accept(listener->fd.get(), /*non_blocking=*/false);
  ASSERT_TRUE(server.ok()) << server.status();
  ExpectRoundTrip(client->get(), server->get());
}

INSTANTIATE_TEST_SUITE_P(Families, LoopbackTest, testing::Values("127.0.0.1", "::1", "[::1]", "localhost"));

TEST(SocketTest, ConnectToClosedPortReportsRefused) {
  // Find a port that is free by binding and closing it.
  int port;
  {
    absl::StatusOr<Listener> listener = Listen({.host = "127.0.0.1", .port = 0});
    ASSERT_TRUE(listener.ok());
    port = listener->port;
  }
  absl::StatusOr<UniqueFd> client = Connect("127.0.0.1", port);
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.status().message().find("ECONNREFUSED"), std::string::npos) << client.status();
}

TEST(SocketTest, NonBlockingConnectCompletes) {
  absl::StatusOr<Listener> listener = Listen({.host = "127.0.0.1", .port = 0});
  ASSERT_TRUE(listener.ok());
  absl::StatusOr<UniqueFd> client = StartConnect(listener->address);
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<UniqueFd> server = Accept(listener->fd.get(), false);
  ASSERT_TRUE(server.ok());
  EXPECT_TRUE(ConnectResult(client->get()).ok());
  ASSERT_TRUE(SetNonBlocking(client->get(), false).ok());
  ExpectRoundTrip(client->get(), server->get());
}

TEST(SocketTest, NonBlockingAcceptWithNothingPendingWouldBlock) {
  absl::StatusOr<Listener> listener = Listen({.host = "127.0.0.1", .port = 0, .non_blocking = true});
  ASSERT_TRUE(listener.ok());
  absl::StatusOr<UniqueFd> accepted = Accept(listener->fd.get(), true);
  ASSERT_FALSE(accepted.ok());
  EXPECT_NE(accepted.status().message().find("EAGAIN"), std::string::npos) << accepted.status();
}

TEST(SocketTest, ReusePortAllowsTwoListenersOnOnePort) {
  absl::StatusOr<Listener> first = Listen({.host = "127.0.0.1", .port = 0, .reuse_port = true});
  ASSERT_TRUE(first.ok());
  absl::StatusOr<Listener> second =
      Listen({.host = "127.0.0.1", .port = first->port, .reuse_port = true});
  ASSERT_TRUE(second.ok()) << second.status();
  absl::StatusOr<Listener> third = Listen({.host = "127.0.0.1", .port = first->port});
  EXPECT_FALSE(third.ok());
}

TEST(SocketTest, BadInputsAreClearErrors) {
  EXPECT_FALSE(Resolve("127.0.0.1", 70000).ok());
  EXPECT_FALSE(Resolve("", 80).ok());
  EXPECT_FALSE(Resolve("no-such-host.invalid", 80).ok());
}

TEST(SocketTest, AddressToStringBracketsIpv6) {
  absl::StatusOr<std::vector<SocketAddress>> v4 = Resolve("127.0.0.1", 7000);
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ((*v4)[0].ToString(), "127.0.0.1:7000");
  absl::StatusOr<std::vector<SocketAddress>> v6 = Resolve("[::1]", 7000);
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ((*v6)[0].ToString(), "[::1]:7000");
}

}  // namespace
}  // namespace netbench
