#include "websocket/server_bounds.h"

namespace netbench::websocket {

absl::StatusOr<MessageBounds> AgreeMessageBounds(WebSocketServerMode mode,
                                                 const FlagSetting& max_message_size,
                                                 const FlagSetting& max_pending_input_kib) {
  MessageBounds bounds{.max_message_size = static_cast<uint64_t>(max_message_size.value),
                       .max_pending_input = static_cast<size_t>(max_pending_input_kib.value) * 1024,
                       .note = ""};
  if (mode != WebSocketServerMode::kEcho) return bounds;
  const absl::StatusOr<BoundAgreement> agreed =
      AgreeBound(max_pending_input_kib, max_message_size,
                 {.needed = (max_message_size.value + 1023) / 1024,
                  .held = max_pending_input_kib.value * 1024,
                  .why = "echo mode reassembles a message whole within the input bound"});
  if (!agreed.ok()) return agreed.status();
  bounds.max_message_size = static_cast<uint64_t>(agreed->bounded);
  bounds.max_pending_input = static_cast<size_t>(agreed->bound) * 1024;
  bounds.note = agreed->note;
  return bounds;
}

}  // namespace netbench::websocket
