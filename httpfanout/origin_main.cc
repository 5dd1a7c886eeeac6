// The origin server for the fan-out benchmark: `bazel run //httpfanout:origin -- --port=9080`. See
// --help.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/platform.h"
#include "common/server.h"
#include "common/server_flags.h"
#include "common/tls.h"
#include "httpfanout/origin_handler.h"

ABSL_FLAG(int, port, 9080, "TCP port; 0 picks a free one (the 'listening on' line says which)");
ABSL_FLAG(int64_t, body_size, 25600,
          "bytes in the page (default 25 KB, the size of a real home page)");
ABSL_FLAG(
    absl::Duration, latency, absl::ZeroDuration(),
    "hold each response this long after its request arrived, to emulate a remote site (e.g. 50ms)");
ABSL_FLAG(absl::Duration, idle_timeout, absl::Seconds(60),
          "close a connection on which no byte has moved either way for this long, between "
          "requests or with responses unread (0: never; nginx's keepalive_timeout is 75s)");
ABSL_FLAG(absl::Duration, head_timeout, absl::Seconds(10),
          "close a connection whose request head began and has not arrived whole this long after "
          "(0: never; nginx's client_header_timeout is 60s); with TLS, also one whose TLS "
          "handshake is not done this long after it connected");
ABSL_FLAG(bool, chunked, false,
          "send the page with Transfer-Encoding: chunked instead of Content-Length");
ABSL_FLAG(int64_t, chunk_size, 8192, "bytes per chunk with --chunked");
ABSL_FLAG(bool, tls, false,
          "serve HTTPS; without --cert/--key a self-signed certificate is made at start-up");
ABSL_FLAG(std::string, cert, "", "certificate chain PEM file (with --key; implies --tls)");
ABSL_FLAG(std::string, key, "", "private key PEM file (with --cert)");
ABSL_FLAG(std::string, write_cert, "",
          "write the certificate PEM here, for clients to trust (--cacert)");

namespace netbench {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "origin: %s\n", message.c_str());
  return 2;
}

int Run() {
  absl::StatusOr<ServerOptions> flags = ServerOptionsFromFlags(absl::GetFlag(FLAGS_port));
  if (!flags.ok()) return Fail(std::string(flags.status().message()));
  ServerOptions options = *std::move(flags);
  if (absl::Status status =
          SetTimeoutsFromFlags(absl::GetFlag(FLAGS_idle_timeout), absl::GetFlag(FLAGS_head_timeout),
                               "head_timeout", options);
      !status.ok()) {
    return Fail(std::string(status.message()));
  }
  OriginOptions origin;
  int64_t body_size = absl::GetFlag(FLAGS_body_size);
  if (body_size < 0 || body_size > (int64_t{1} << 30))
    return Fail("--body_size must be in 0..1073741824");
  origin.body_size = static_cast<size_t>(body_size);
  absl::Duration latency = absl::GetFlag(FLAGS_latency);
  if (latency < absl::ZeroDuration() || latency > absl::Hours(1))
    return Fail("--latency must be in 0..1h");
  origin.latency_nanos = absl::ToInt64Nanoseconds(latency);
  origin.chunked = absl::GetFlag(FLAGS_chunked);
  int64_t chunk_size = absl::GetFlag(FLAGS_chunk_size);
  if (chunk_size < 1 || chunk_size > (int64_t{1} << 30)) return Fail("--chunk_size must be >= 1");
  origin.chunk_size = static_cast<size_t>(chunk_size);

  std::string cert = absl::GetFlag(FLAGS_cert);
  std::string key = absl::GetFlag(FLAGS_key);
  if (cert.empty() != key.empty()) return Fail("--cert and --key go together");
  std::unique_ptr<TlsServerContext> tls;
  if (absl::GetFlag(FLAGS_tls) || !cert.empty()) {
    absl::StatusOr<std::unique_ptr<TlsServerContext>> context =
        cert.empty() ? TlsServerContext::SelfSigned() : TlsServerContext::FromFiles(cert, key);
    if (!context.ok()) return Fail(std::string(context.status().message()));
    tls = *std::move(context);
    options.tls = tls.get();
  }
  std::string write_cert = absl::GetFlag(FLAGS_write_cert);
  if (!write_cert.empty()) {
    if (tls == nullptr) return Fail("--write_cert needs --tls");
    std::ofstream out(write_cert, std::ios::binary | std::ios::trunc);
    out << tls->certificate_pem();
    if (!out.good()) return Fail("cannot write " + write_cert);
  }

  if (StopAfterCheck(options)) return 0;
  auto content = std::make_shared<const OriginContent>(origin);
  BlockTerminationSignals();
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start(options, OriginHandlerFactory(content));
  if (!server.ok()) return Fail(std::string(server.status().message()));
  if (std::string note = ConnectionSpreadNote(options); !note.empty()) {
    std::fprintf(stderr, "origin: %s\n", note.c_str());
  }
  // Benchmark scripts wait for this line, so it goes out at once.
  std::printf("listening on %s model=%s threads=%d body=%zu latency=%s%s%s\n",
              (*server)->address().ToString().c_str(), ServerModelName(options.model),
              options.model == ServerModel::kThreads ? 1 : options.threads, origin.body_size,
              absl::FormatDuration(latency).c_str(), origin.chunked ? " chunked" : "",
              tls ? " tls" : "");
  // After the ready line: a reader that waits for it with select() + readline() would not see a
  // line that came in the same read and sits in its buffer.
  if (tls != nullptr) {
    std::printf("tls certificate sha256 %s%s\n", tls->Sha256Fingerprint().c_str(),
                cert.empty() ? " (self-signed)" : "");
  }
  std::fflush(stdout);

  absl::StatusOr<std::string> stop = ServeUntilTerminated(**server);
  if (!stop.ok()) {
    // The server printed the error when it happened; this line ends the run for scripts.
    std::fprintf(stderr, "origin: stopped: %s\n", stop.status().ToString().c_str());
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
      "HTTP/1.1 origin server for the fan-out benchmark: every GET gets one deterministic page. "
      "Prints "
      "'listening on HOST:PORT ...' and serves until SIGINT/SIGTERM.\n"
      "  origin --port=9080 --body_size=25600 --latency=50ms [--chunked] [--tls "
      "--write_cert=/tmp/origin.pem]");
  netbench::IncludeServerFlagsInHelp();
  absl::ParseCommandLine(argc, argv);
  // With --latency every connection holds its whole response (25 KB by default) until it is due, so
  // a burst of 500 requests holds 12 MB at once. glibc gives such a heap top back to the kernel
  // when the burst is over, and the next burst page-faults all of it in again (5 faults per
  // request). Keeping it measured 180 -> 95 us of origin CPU per request at 50 ms latency, and
  // 0.107 -> 0.082 s for the 500-GET fan-out.
  netbench::RetainFreedHeap(size_t{256} << 20, size_t{64} << 20);
  return netbench::Run();
}
