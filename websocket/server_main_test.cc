// The built //websocket:server program and the flags that bound a message (server_bounds.h):
// --max_message_size given alone raises the input bound and says so in the start line, and a 1 MiB
// text and binary message is then echoed whole on every model; given with a --max_pending_input_kib
// too small for it, the program refuses to start (exit 2) naming both flags and what would work.
#include <signal.h>
#include <unistd.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "common/byte_buffer.h"
#include "common/server.h"
#include "common/socket.h"
#include "gtest/gtest.h"
#include "testing/child_process.h"
#include "testing/socket_io.h"
#include "websocket/frame_writer.h"
#include "websocket/handshake.h"
#include "websocket/message_reader.h"

namespace netbench::websocket {
namespace {

const char kServer[] = "websocket/server";

// Opens a WebSocket on `fd`, sends one masked message and returns the first event the server
// sends back (kNone at EOF), its payload in `payload`.
WebSocketEvent EchoOnce(int fd, std::string& pending, MessageReader& reader, Opcode opcode,
                        const std::string& message, std::string* payload) {
  ByteBuffer out;
  AppendFrame(out, opcode, message, /*fin=*/true, /*masked=*/true, 0x0badf00d);
  if (!WriteAll(fd, out.view())) return {};
  while (true) {
    WebSocketEvent event;
    const size_t used = reader.Read(pending, &event);
    if (event.type != EventType::kNone) {
      *payload = std::string(event.payload);
      pending.erase(0, used);
      return event;
    }
    pending.erase(0, used);
    char buf[65536];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return {};
    pending.append(buf, n);
  }
}

TEST(WebSocketServerMainTest, MaxMessageSizeAloneRaisesTheInputBoundAndA1MiBMessageIsEchoed) {
  const std::string text(1 << 20, 't');
  std::string binary(1 << 20, '\0');
  for (size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>(i * 7);
  for (ServerModel built : AvailableServerModels()) {
    const std::string model = ServerModelName(built);
    ChildProcess server(
        {kServer, "--port=0", "--mode=echo", "--model=" + model, "--max_message_size=67108864"});
    const std::string ready = server.ReadLine();
    ASSERT_TRUE(absl::StartsWith(ready, "listening on 127.0.0.1:")) << ready;
    EXPECT_TRUE(absl::StrContains(ready,
                                  " max_message_size=67108864; --max_pending_input_kib "
                                  "raised from 256 to 65536 to hold "
                                  "--max_message_size=67108864"))
        << ready;
    absl::StatusOr<UniqueFd> fd = Connect("127.0.0.1", ReadyPort(ready));
    ASSERT_TRUE(fd.ok()) << fd.status();
    const std::string key = GenerateHandshakeKey();
    ASSERT_TRUE(WriteAll(fd->get(), BuildHandshakeRequest("127.0.0.1", "/echo", key)));
    std::string pending;
    while (true) {
      char buf[4096];
      const ssize_t n = ::read(fd->get(), buf, sizeof buf);
      ASSERT_GT(n, 0) << model;
      pending.append(buf, n);
      absl::Status error;
      const int used = ParseHandshakeResponse(pending, key, &error);
      ASSERT_NE(used, kHandshakeError) << error;
      if (used > 0) {
        pending.erase(0, used);
        break;
      }
    }
    MessageReader reader({.role = Role::kClient, .max_message_size = 1 << 21});
    std::string payload;
    WebSocketEvent event = EchoOnce(fd->get(), pending, reader, Opcode::kText, text, &payload);
    ASSERT_EQ(event.type, EventType::kMessage) << model << " close code " << event.close_code;
    EXPECT_EQ(event.opcode, Opcode::kText);
    EXPECT_TRUE(payload == text) << model;
    event = EchoOnce(fd->get(), pending, reader, Opcode::kBinary, binary, &payload);
    ASSERT_EQ(event.type, EventType::kMessage) << model << " close code " << event.close_code;
    EXPECT_EQ(event.opcode, Opcode::kBinary);
    EXPECT_TRUE(payload == binary) << model;
    fd->reset();

    server.Signal(SIGINT);
    const std::string summary = server.ReadRest();
    EXPECT_TRUE(absl::StrContains(summary, "2 messages received (2097152 payload bytes)"))
        << summary;
    EXPECT_TRUE(absl::StrContains(summary, "0 protocol errors")) << summary;
    EXPECT_EQ(server.Wait(), 0) << model;
  }
}

TEST(WebSocketServerMainTest, MaxMessageSizeOverAGivenInputBoundRefusesToStart) {
  ChildProcess server({kServer, "--port=0", "--mode=echo", "--max_message_size=67108864",
                       "--max_pending_input_kib=512"});
  const std::string output = server.ReadRest();
  EXPECT_EQ(server.Wait(), 2);
  EXPECT_EQ(output,
            "websocket server: --max_pending_input_kib=512 cannot hold "
            "--max_message_size=67108864 (echo mode reassembles a message whole within the input "
            "bound): give --max_pending_input_kib >= 65536, or --max_message_size <= 524288\n");
}

TEST(WebSocketServerMainTest, ASinkKeepsNoMessageSoTheTwoFlagsAreIndependent) {
  ChildProcess server({kServer, "--port=0", "--mode=sink", "--max_message_size=67108864",
                       "--max_pending_input_kib=512"});
  const std::string ready = server.ReadLine();
  EXPECT_TRUE(absl::StartsWith(ready, "listening on 127.0.0.1:")) << ready;
  EXPECT_TRUE(absl::EndsWith(ready, " max_message_size=67108864")) << ready;
  server.Signal(SIGINT);
  server.ReadRest();
  EXPECT_EQ(server.Wait(), 0);
}

}  // namespace
}  // namespace netbench::websocket
