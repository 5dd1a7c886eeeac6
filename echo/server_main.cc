// The echo server: `bazel run //echo:server -- --model=epoll --port=7000`. See --help.
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "common/clock.h"
#include "common/server.h"
#include "common/tls.h"
#include "echo/echo_handler.h"

ABSL_FLAG(std::string, host, "127.0.0.1", "address to listen on (IPv4, IPv6 or a name)");
ABSL_FLAG(int, port, 7000, "TCP port; 0 picks a free one (the 'listening on' line says which)");
ABSL_FLAG(netbench::ServerModel, model, netbench::DefaultServerModel(),
          "concurrency model: threads (a thread per connection, blocking I/O), poll, or epoll "
          "(Linux)");
ABSL_FLAG(int, threads, 1, "event loops for --model=poll/epoll, each with its own listener");
ABSL_FLAG(int, max_connections, 100000, "connections over this many are closed at once");
ABSL_FLAG(int, max_pending_output_kib, 1024,
          "stop reading a client while this much of its echo is unsent (KiB)");
ABSL_FLAG(bool, tls, false, "serve TLS with a fresh self-signed certificate (prints its SHA-256)");

namespace netbench {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "echo server: %s\n", message.c_str());
  return 2;
}

int Run() {
  ServerOptions options;
  options.host = absl::GetFlag(FLAGS_host);
  options.port = absl::GetFlag(FLAGS_port);
  options.model = absl::GetFlag(FLAGS_model);
  options.threads = absl::GetFlag(FLAGS_threads);
  options.max_connections = absl::GetFlag(FLAGS_max_connections);
  int pending_kib = absl::GetFlag(FLAGS_max_pending_output_kib);
  if (options.port < 0 || options.port > 65535) return Fail("--port must be in 0..65535");
  if (options.threads < 1) return Fail("--threads must be >= 1");
  if (options.max_connections < 1) return Fail("--max_connections must be >= 1");
  if (pending_kib < 1) return Fail("--max_pending_output_kib must be >= 1");
  options.max_pending_output = static_cast<size_t>(pending_kib) * 1024;

  std::unique_ptr<TlsServerContext> tls;
  if (absl::GetFlag(FLAGS_tls)) {
    absl::StatusOr<std::unique_ptr<TlsServerContext>> context = TlsServerContext::SelfSigned();
    if (!context.ok()) return Fail(std::string(context.status().message()));
    tls = *std::move(context);
    options.tls = tls.get();
    std::printf("tls certificate sha256 %s\n", tls->Sha256Fingerprint().c_str());
  }

  BlockTerminationSignals();  // before any thread starts: a signal now waits for the waiter below
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(options, EchoHandlerFactory());
  if (!server.ok()) {
    std::fprintf(stderr, "echo server: %s\n", std::string(server.status().message()).c_str());
    return 1;
  }
  // Benchmark scripts wait for this line, so it goes out at once.
  std::printf("listening on %s model=%s threads=%d%s\n", (*server)->address().ToString().c_str(),
              ServerModelName(options.model),
              options.model == ServerModel::kThreads ? 1 : options.threads, tls ? " tls" : "");
  std::fflush(stdout);

  Stopwatch watch;
  int signal_number = WaitForTerminationSignal();
  (*server)->Stop();
  double seconds = watch.ElapsedSeconds();
  ServerStats stats = (*server)->stats();
  std::printf(
      "stopped by signal %d after %.3f s: %llu connections (%llu rejected), %llu bytes read, %llu "
      "bytes written\n",
      signal_number, seconds, static_cast<unsigned long long>(stats.connections_accepted),
      static_cast<unsigned long long>(stats.connections_rejected),
      static_cast<unsigned long long>(stats.bytes_read),
      static_cast<unsigned long long>(stats.bytes_written));
  std::fflush(stdout);
  return 0;
}

}  // namespace
}  // namespace netbench

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "TCP echo server: every byte comes back in order. Prints 'listening on HOST:PORT model=M "
      "threads=N', serves until SIGINT/SIGTERM, then prints what it served.\n"
      "  server --port=7000 --model=epoll --threads=1");
  absl::ParseCommandLine(argc, argv);
  return netbench::Run();
}
