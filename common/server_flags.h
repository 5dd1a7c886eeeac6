// The command-line flags every netbench server shares (--host, --model, --threads,
// --max_connections, --max_pending_output_kib, --max_pending_input_kib), defined once and read into
// ServerOptions with checks that name the flag. Each program keeps its own --port (their defaults
// differ: echo 7000, websocket 8080, origin 9080).
//
//   ABSL_FLAG(int, port, 7000, "TCP port; 0 picks a free one");
//   ...
//   absl::StatusOr<ServerOptions> options = ServerOptionsFromFlags(absl::GetFlag(FLAGS_port));
//   if (!options.ok()) return Fail(options.status().message());   // "--threads must be >= 1"
#ifndef NETBENCH_COMMON_SERVER_FLAGS_H_
#define NETBENCH_COMMON_SERVER_FLAGS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/server.h"

namespace netbench {

absl::StatusOr<ServerOptions> ServerOptionsFromFlags(int port);

// A program's timeout flag (--idle_timeout, --head_timeout: their defaults differ per program) as
// ServerOptions nanoseconds: 0 stays 0 (never); a negative value is an error naming `flag`.
absl::StatusOr<int64_t> TimeoutFlagNanos(absl::Duration value, absl::string_view flag);

// Makes --help list the shared flags beside the program's own (Abseil's --help shows only flags
// defined in the program's main file). Call before absl::ParseCommandLine.
void IncludeServerFlagsInHelp();

}  // namespace netbench

#endif  // NETBENCH_COMMON_SERVER_FLAGS_H_
