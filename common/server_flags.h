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
#include "common/flag_agreement.h"
#include "common/server.h"

namespace netbench {

absl::StatusOr<ServerOptions> ServerOptionsFromFlags(int port);

// A program's timeout flags into `options` (each program defines its own --idle_timeout and head
// timeout, since their defaults differ): 0 stays 0 (never); a negative value is an error naming the
// flag, --idle_timeout or --`head_flag`.
//
//   absl::Status status = SetTimeoutsFromFlags(absl::GetFlag(FLAGS_idle_timeout),
//                                              absl::GetFlag(FLAGS_head_timeout), "head_timeout",
//                                              options);
absl::Status SetTimeoutsFromFlags(absl::Duration idle, absl::Duration head,
                                  absl::string_view head_flag, ServerOptions& options);

// --max_pending_input_kib as read, with whether the command line gave it, for a program whose own
// flags bound the same input and must agree with it (common/flag_agreement.h): the WebSocket echo
// server's --max_message_size.
FlagSetting MaxPendingInputFlag();

// --check: true when the program is to exit 0 after its checks instead of serving, having printed
// the configuration it would serve (a program calls it once every flag has been read and checked,
// just before Server::Start). Where the model cannot run here, ServerOptionsFromFlags has already
// failed, naming why, and the program exited 2.
bool StopAfterCheck(const ServerOptions& options);

// Makes --help list the shared flags beside the program's own (Abseil's --help shows only flags
// defined in the program's main file). Call before absl::ParseCommandLine.
void IncludeServerFlagsInHelp();

}  // namespace netbench

#endif  // NETBENCH_COMMON_SERVER_FLAGS_H_
