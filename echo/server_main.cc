// The echo server: `bazel run //echo:server -- --model=epoll --port=7000`. See --help.
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/server.h"
#include "common/server_flags.h"
#include "common/tls.h"
#include "echo/echo_handler.h"

ABSL_FLAG(int, port, 7000, "TCP port; 0 picks a free one (the 'listening on' line says which)");
ABSL_FLAG(bool, tls, false, "serve TLS with a fresh self-signed certificate (prints its SHA-256)");
ABSL_FLAG(absl::Duration, idle_timeout, absl::ZeroDuration(),
          "close a connection on which no byte has moved either way for this long; 0 = never, the "
          "default: the write-up's server this one follows never timed out a connection, and the "
          "comparison keeps to it");

namespace netbench {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "echo server: %s\n", message.c_str());
  return 2;
}

int Run() {
  absl::StatusOr<ServerOptions> flags = ServerOptionsFromFlags(absl::GetFlag(FLAGS_port));
  if (!flags.ok()) return Fail(std::string(flags.status().message()));
  ServerOptions options = *std::move(flags);
  if (absl::Status status = SetTimeoutsFromFlags(absl::GetFlag(FLAGS_idle_timeout),
                                                 absl::ZeroDuration(), "", options);
      !status.ok()) {
    return Fail(std::string(status.message()));
  }

  std::unique_ptr<TlsServerContext> tls;
  if (absl::GetFlag(FLAGS_tls)) {
    absl::StatusOr<std::unique_ptr<TlsServerContext>> context = TlsServerContext::SelfSigned();
    if (!context.ok()) return Fail(std::string(context.status().message()));
    tls = *std::move(context);
    options.tls = tls.get();
    std::printf("tls certificate sha256 %s\n", tls->Sha256Fingerprint().c_str());
  }

  if (StopAfterCheck(options)) return 0;
  BlockTerminationSignals();  // before any thread starts: a signal now waits for the waiter below
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(options, EchoHandlerFactory());
  if (!server.ok()) {
    std::fprintf(stderr, "echo server: %s\n", std::string(server.status().message()).c_str());
    return 1;
  }
  if (std::string note = ConnectionSpreadNote(options); !note.empty()) {
    std::fprintf(stderr, "echo server: %s\n", note.c_str());
  }
  // Benchmark scripts wait for this line, so it goes out at once.
  std::printf("listening on %s model=%s threads=%d%s\n", (*server)->address().ToString().c_str(),
              ServerModelName(options.model),
              options.model == ServerModel::kThreads ? 1 : options.threads, tls ? " tls" : "");
  std::fflush(stdout);

  absl::StatusOr<std::string> stop = ServeUntilTerminated(**server);
  if (!stop.ok()) {
    // The server printed the error when it happened; this line ends the run for scripts.
    std::fprintf(stderr, "echo server: stopped: %s\n", stop.status().ToString().c_str());
    return 1;
  }
  std::printf("%s\n", stop->c_str());
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
  netbench::IncludeServerFlagsInHelp();
  absl::ParseCommandLine(argc, argv);
  return netbench::Run();
}
