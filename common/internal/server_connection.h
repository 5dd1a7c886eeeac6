// What every connection of the loop-driven server models keeps beside its socket
// (event_loop_server.cc, uring_server.cc): its handler and the handler's bounds, closing, and the
// timers its loop runs for it: the idle timer (lazy, as nginx's and Redis' are: I/O only notes the
// time, and the timer, when it fires early, re-arms itself for the deadline that time implies), the
// head timer (armed while the handler waits for a request head, or the TLS handshake is not done),
// and the hold of a reply's send_not_before_nanos. A model derives and says how the connection
// leaves its loop (OnClose) and what it does when a hold is over (OnHoldOver).
//
//   class MyConnection final : public ServerConnection {
//     void OnClose(bool graceful) override { ...shut the socket, leave the loop... }
//     void OnHoldOver() override { ...send what was held... }
//   };
//   // in the model's read path:
//   HandlerResult result = handler_->OnData(input, output);
//   ...
//   Settle(result);  // head timer, close, hold
#ifndef NETBENCH_COMMON_INTERNAL_SERVER_CONNECTION_H_
#define NETBENCH_COMMON_INTERNAL_SERVER_CONNECTION_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "common/clock.h"
#include "common/connection_handler.h"
#include "common/internal/server_models.h"
#include "common/server.h"

namespace netbench {
namespace internal {

class ServerConnection {
 public:
  // The loop a connection's timers run on (its model's); it outlives the connection.
  class Timers {
   public:
    // Runs `callback` on the loop's thread at or after `when_nanos` (MonotonicNanos()); an id.
    virtual uint64_t AddTimer(int64_t when_nanos, std::function<void()> callback) = 0;
    virtual void CancelTimer(uint64_t id) = 0;

   protected:
    ~Timers() = default;
  };

  ServerConnection(Timers& timers, const ServerOptions& options, ServerCounters& counters,
                   std::unique_ptr<ConnectionHandler> handler);
  ServerConnection(const ServerConnection&) = delete;
  ServerConnection& operator=(const ServerConnection&) = delete;
  // Cancels its timers.
  virtual ~ServerConnection();

  bool closed() const { return closed_; }
  // Cancels the timers and closes (OnClose); again: nothing. The model may destroy the connection
  // in OnClose: callers return at once.
  void Close(bool graceful);
  // A buffer the system refused to grow (ByteBuffer throws std::bad_alloc) ends this connection
  // alone, as in every model.
  void CloseOutOfMemory();

 protected:
  // The model's part of Close: the socket, and the connection leaving its loop.
  virtual void OnClose(bool graceful) = 0;
  // send_not_before_nanos has come (held_ is false again): what was held may be sent.
  virtual void OnHoldOver() = 0;

  // With an idle timeout: the connection starts now.
  void StartIdleTimer();
  void NoteActivity() {
    if (options_.idle_timeout_nanos > 0) last_active_ = MonotonicNanos();
  }
  // After a handler call: the head timer armed or cancelled, closing_, the hold of the reply.
  // Inline: it runs once per handler call, and mostly finds nothing to do.
  void Settle(const HandlerResult& result) {
    if (options_.head_timeout_nanos > 0) WatchHead();
    if (result.close) closing_ = true;
    if (result.send_not_before_nanos > 0) HoldUntil(result.send_not_before_nanos);
  }
  // The head timer: closes the connection head_timeout after it is armed.
  void ArmHeadTimer();
  void CancelHeadTimer() {
    if (head_timer_ != 0) CancelHeadTimerNow();
  }
  // Whether a bound stops reading now; counts a read pause as one begins.
  void SetPaused(bool over) {
    if (over && !paused_) ServerCounters::Add(counters_.read_pauses, 1);
    paused_ = over;
  }

  const ServerOptions& options_;
  ServerCounters& counters_;
  std::unique_ptr<ConnectionHandler> handler_;
  bool closing_ = false;  // close once the output is written
  bool closed_ = false;
  bool held_ = false;        // the output waits for send_not_before_nanos
  bool reoffer_ = false;     // the handler stopped for lack of output room with input left
  int64_t last_active_ = 0;  // when a byte last moved, with an idle timeout

 private:
  // Arms the head timer while the handler waits for a head, else cancels it.
  void WatchHead() {
    if (!handler_->AwaitingHead()) {
      CancelHeadTimer();
    } else if (head_timer_ == 0) {
      ArmHeadTimer();
    }
  }
  // Holds the output until `until_nanos`, unless that has passed.
  void HoldUntil(int64_t until_nanos);
  void OnHoldExpired();
  void OnIdleTimer();
  void TimeOut();
  void CancelHeadTimerNow();
  void CancelTimers();

  Timers& timers_;
  bool paused_ = false;
  int64_t hold_until_ = 0;
  uint64_t hold_timer_ = 0;
  uint64_t idle_timer_ = 0;
  uint64_t head_timer_ = 0;
};

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_SERVER_CONNECTION_H_
