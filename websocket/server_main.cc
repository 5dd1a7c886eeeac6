// The WebSocket server: `bazel run //websocket:server -- --mode=sink --model=epoll`. See --help.
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "common/flag_agreement.h"
#include "common/server.h"
#include "common/server_flags.h"
#include "common/tls.h"
#include "websocket/server_bounds.h"
#include "websocket/server_handler.h"

ABSL_FLAG(int, port, 8080, "TCP port; 0 picks a free one (the 'listening on' line says which)");
ABSL_FLAG(std::string, path, "/echo", "the WebSocket endpoint; other paths are answered 404");
ABSL_FLAG(std::string, mode, "echo",
          "echo: send every message back; sink: read and drop messages (the write-up's server)");
ABSL_FLAG(int64_t, max_message_size, 16 << 20,
          "largest message accepted, in bytes; a frame announcing more is closed with 1009. In "
          "echo mode a message is reassembled whole within the input bound before it goes back, "
          "so this and --max_pending_input_kib must agree: given alone, this flag wins and "
          "raises the input bound to hold it (the start line says so); given with a "
          "--max_pending_input_kib too small for it, the server refuses to start (exit 2); not "
          "given, it is what the input bound holds (256 KiB by default)");
ABSL_FLAG(std::string, cert, "", "wss: certificate chain (PEM file); needs --key");
ABSL_FLAG(std::string, key, "", "wss: private key (PEM file); needs --cert");
ABSL_FLAG(bool, tls, false, "wss with a fresh self-signed certificate (prints its SHA-256)");
ABSL_FLAG(absl::Duration, idle_timeout, absl::ZeroDuration(),
          "close a connection on which no byte has moved either way for this long; 0 = never, the "
          "default: the write-up's server this one follows never timed out a connection, and the "
          "comparison keeps to it");
ABSL_FLAG(absl::Duration, handshake_timeout, absl::Seconds(10),
          "close a connection whose opening handshake began and has not arrived whole this long "
          "after (0: never); with TLS (wss), also one whose TLS handshake is not done this long "
          "after it connected");

namespace netbench::websocket {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "websocket server: %s\n", message.c_str());
  return 2;
}

int Run() {
  absl::StatusOr<ServerOptions> flags = ServerOptionsFromFlags(absl::GetFlag(FLAGS_port));
  if (!flags.ok()) return Fail(std::string(flags.status().message()));
  ServerOptions options = *std::move(flags);
  if (absl::Status status = SetTimeoutsFromFlags(absl::GetFlag(FLAGS_idle_timeout),
                                                 absl::GetFlag(FLAGS_handshake_timeout),
                                                 "handshake_timeout", options);
      !status.ok()) {
    return Fail(std::string(status.message()));
  }

  WebSocketServerOptions ws;
  ws.path = absl::GetFlag(FLAGS_path);
  if (ws.path.empty() || ws.path[0] != '/') return Fail("--path must start with '/'");
  absl::StatusOr<WebSocketServerMode> mode = ParseWebSocketServerMode(absl::GetFlag(FLAGS_mode));
  if (!mode.ok()) return Fail(std::string(mode.status().message()));
  ws.mode = *mode;
  if (absl::GetFlag(FLAGS_max_message_size) < 1) return Fail("--max_message_size must be >= 1");
  absl::StatusOr<MessageBounds> bounds =
      AgreeMessageBounds(ws.mode, SettingOf(FLAGS_max_message_size), MaxPendingInputFlag());
  if (!bounds.ok()) return Fail(std::string(bounds.status().message()));
  ws.max_message_size = bounds->max_message_size;
  options.max_pending_input = bounds->max_pending_input;

  const std::string cert = absl::GetFlag(FLAGS_cert), key = absl::GetFlag(FLAGS_key);
  if (cert.empty() != key.empty()) return Fail("--cert and --key go together");
  std::unique_ptr<TlsServerContext> tls;
  if (!cert.empty() || absl::GetFlag(FLAGS_tls)) {
    absl::StatusOr<std::unique_ptr<TlsServerContext>> context =
        cert.empty() ? TlsServerContext::SelfSigned() : TlsServerContext::FromFiles(cert, key);
    if (!context.ok()) return Fail(std::string(context.status().message()));
    tls = *std::move(context);
    options.tls = tls.get();
    std::printf("tls certificate sha256 %s\n", tls->Sha256Fingerprint().c_str());
  }

  if (StopAfterCheck(options)) return 0;
  WebSocketServerCounters counters;
  BlockTerminationSignals();  // before any thread starts: a signal now waits for the waiter below
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start(options, WebSocketHandlerFactory(ws, &counters));
  if (!server.ok()) {
    std::fprintf(stderr, "websocket server: %s\n", std::string(server.status().message()).c_str());
    return 1;
  }
  if (std::string note = ConnectionSpreadNote(options); !note.empty()) {
    std::fprintf(stderr, "websocket server: %s\n", note.c_str());
  }
  // Benchmark scripts wait for this line, so it goes out at once.
  const std::string address = (*server)->address().ToString();
  std::printf("listening on %s %s://%s%s mode=%s model=%s threads=%d max_message_size=%llu%s%s\n",
              address.c_str(), tls ? "wss" : "ws", address.c_str(), ws.path.c_str(),
              WebSocketServerModeName(ws.mode), ServerModelName(options.model),
              options.model == ServerModel::kThreads ? 1 : options.threads,
              static_cast<unsigned long long>(ws.max_message_size),
              bounds->note.empty() ? "" : "; ", bounds->note.c_str());
  std::fflush(stdout);

  const absl::StatusOr<std::string> stop = ServeUntilTerminated(**server);
  if (!stop.ok()) {
    // The server printed the error when it happened; this line ends the run for scripts.
    std::fprintf(stderr, "websocket server: stopped: %s\n", stop.status().ToString().c_str());
    return 1;
  }
  const auto u = [](const std::atomic<uint64_t>& v) {
    return static_cast<unsigned long long>(v.load());
  };
  std::printf(
      "%s; %llu handshakes (%llu refused), %llu messages received (%llu payload bytes), %llu "
      "pings, "
      "%llu closes, %llu protocol errors\n",
      stop->c_str(), u(counters.handshakes), u(counters.rejected_handshakes), u(counters.messages),
      u(counters.payload_bytes), u(counters.pings), u(counters.closes),
      u(counters.protocol_errors));
  std::fflush(stdout);
  return 0;
}

}  // namespace
}  // namespace netbench::websocket

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "WebSocket (RFC 6455) server on ws://HOST:PORT/echo. Prints 'listening on HOST:PORT ...', "
      "serves until SIGINT/SIGTERM, then prints what it served.\n"
      "  server --port=8080 --mode=sink --model=epoll --threads=1 [--tls | --cert=C --key=K]");
  netbench::IncludeServerFlagsInHelp();
  absl::ParseCommandLine(argc, argv);
  return netbench::websocket::Run();
}
