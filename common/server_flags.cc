#include "common/server_flags.h"

#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, host, "127.0.0.1", "address to listen on (IPv4, IPv6 or a name)");
ABSL_FLAG(netbench::ServerModel, model, netbench::DefaultServerModel(),
          "concurrency model: threads (a thread per connection, blocking I/O), poll, epoll "
          "(Linux), or uring (io_uring, Linux 6.1 on)");
ABSL_FLAG(int, threads, 1,
          "event loops for --model=poll/epoll, each with its own listener on Linux (elsewhere they "
          "share one)");
ABSL_FLAG(int, max_connections, 100000, "connections over this many are closed at once");
ABSL_FLAG(int, max_pending_output_kib, 1024,
          "output queued per connection: stop reading a client (and answering its pipelined "
          "requests) while more than this much of its output is unsent (KiB). It paces, it "
          "refuses nothing: one reply larger than this (an echoed message, a page) still goes "
          "out whole");
ABSL_FLAG(int, max_pending_input_kib, 256,
          "input buffered per connection (a request head or frame header not yet whole, pipelined "
          "requests not yet answered): stop reading a client while this much of its input waits; "
          "a head larger than this closes the connection (KiB). Where a program's own flag needs "
          "more (the WebSocket echo server's --max_message_size), that flag wins over this "
          "one's default and raises it, saying so; given both, too small, the program refuses to "
          "start");

ABSL_FLAG(bool, check, false,
          "check the flags, and that --model can run on this machine (io_uring can be refused by "
          "the kernel.io_uring_disabled sysctl or a container's seccomp filter), print the "
          "configuration and exit without serving: 0 where the server would start, 2 naming what "
          "is wrong (the suite asks this before it runs a contestant on --model=uring)");

namespace netbench {

bool StopAfterCheck(const ServerOptions& options) {
  if (!absl::GetFlag(FLAGS_check)) return false;
  std::printf("check: would listen on %s:%d model=%s threads=%d%s\n", options.host.c_str(),
              options.port, ServerModelName(options.model),
              options.model == ServerModel::kThreads ? 1 : options.threads,
              options.tls != nullptr ? " tls" : "");
  std::fflush(stdout);
  return true;
}

absl::StatusOr<ServerOptions> ServerOptionsFromFlags(int port) {
  ServerOptions options;
  options.host = absl::GetFlag(FLAGS_host);
  options.port = port;
  options.model = absl::GetFlag(FLAGS_model);
  options.threads = absl::GetFlag(FLAGS_threads);
  options.max_connections = absl::GetFlag(FLAGS_max_connections);
  int pending_kib = absl::GetFlag(FLAGS_max_pending_output_kib);
  int input_kib = absl::GetFlag(FLAGS_max_pending_input_kib);
  if (port < 0 || port > 65535) return absl::InvalidArgumentError("--port must be in 0..65535");
  if (options.model == ServerModel::kUring) {
    // Refused here, with exit 2, rather than when the server starts.
    if (absl::Status support = UringSupport(); !support.ok()) {
      return absl::FailedPreconditionError(absl::StrCat("--model=uring: ", support.message()));
    }
  }
  if (options.threads < 1) return absl::InvalidArgumentError("--threads must be >= 1");
  if (options.max_connections < 1) {
    return absl::InvalidArgumentError("--max_connections must be >= 1");
  }
  if (pending_kib < 1) return absl::InvalidArgumentError("--max_pending_output_kib must be >= 1");
  options.max_pending_output = static_cast<size_t>(pending_kib) * 1024;
  // An HTTP request head (up to 64 KiB, else 431) and a WebSocket handshake must fit whole.
  if (input_kib < 64) {
    return absl::InvalidArgumentError(
        "--max_pending_input_kib must be >= 64 (a request head of up to 64 KiB, answered 431 past "
        "that, must fit whole)");
  }
  options.max_pending_input = static_cast<size_t>(input_kib) * 1024;
  return options;
}

absl::Status SetTimeoutsFromFlags(absl::Duration idle, absl::Duration head,
                                  absl::string_view head_flag, ServerOptions& options) {
  if (idle < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--idle_timeout must be >= 0 (0: never)");
  }
  if (head < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat("--", head_flag, " must be >= 0 (0: never)"));
  }
  options.idle_timeout_nanos = absl::ToInt64Nanoseconds(idle);
  options.head_timeout_nanos = absl::ToInt64Nanoseconds(head);
  return absl::OkStatus();
}

FlagSetting MaxPendingInputFlag() { return SettingOf(FLAGS_max_pending_input_kib); }

void IncludeServerFlagsInHelp() {
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view file) {
    if (absl::EndsWith(file, "common/server_flags.cc")) return true;
    // Abseil's own rule is the file named <program> or <program>_main, which needs the program's
    // name (glibc's program_invocation_short_name, BSD's getprogname). Each program links exactly
    // one *_main.cc, so the suffix alone finds it, on every system.
    absl::string_view base = file.substr(file.rfind('/') + 1);
    return absl::EndsWith(base.substr(0, base.find('.')), "_main");
  };
  absl::SetFlagsUsageConfig(config);
}

}  // namespace netbench
