// The WebSocket server's --max_message_size against the server model's input bound
// (--max_pending_input_kib): in echo mode a message is reassembled whole, within the input bound,
// before it goes back, so the two bound the same thing and must agree (common/flag_agreement.h).
// --max_message_size given alone raises the input bound to hold it; given with a
// --max_pending_input_kib too small for it, the server refuses to start; not given, it is lowered
// to what the input bound holds. A sink keeps no message bytes, so there the two are independent.
//
//   absl::StatusOr<MessageBounds> bounds = AgreeMessageBounds(
//       WebSocketServerMode::kEcho, SettingOf(FLAGS_max_message_size), MaxPendingInputFlag());
//   options.max_pending_input = bounds->max_pending_input;
//   ws.max_message_size = bounds->max_message_size;
//   if (!bounds->note.empty()) ...  // "--max_pending_input_kib raised from 256 to 65536 to hold ..."
//
// The output bound (--max_pending_output_kib) needs no such agreement: it decides when a connection
// stops being read, never refuses a reply, so an echoed message larger than it still goes out whole
// (common/connection_handler.h).
#ifndef NETBENCH_WEBSOCKET_SERVER_BOUNDS_H_
#define NETBENCH_WEBSOCKET_SERVER_BOUNDS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "common/flag_agreement.h"
#include "websocket/server_handler.h"

namespace netbench::websocket {

struct MessageBounds {
  uint64_t max_message_size = 0;  // bytes
  size_t max_pending_input = 0;   // bytes (ServerOptions::max_pending_input)
  std::string note;               // "" or a line for the start line
};

// `max_message_size` in bytes, `max_pending_input_kib` in KiB, each with whether it was given. An
// error (exit 2) names both flags and the values that would agree.
absl::StatusOr<MessageBounds> AgreeMessageBounds(WebSocketServerMode mode,
                                                 const FlagSetting& max_message_size,
                                                 const FlagSetting& max_pending_input_kib);

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_SERVER_BOUNDS_H_
