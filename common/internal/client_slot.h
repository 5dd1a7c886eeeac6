// One slot of the client driver's event-driven models, written once for the poll and epoll loops
// (loop_client_runner.cc) and the io_uring loop (uring_client_runner.cc): the slot's sessions one
// after another, each opened, held at the start latch, loaded and ended, and the run told of the
// slot once when its first connection opened (or failed to), once when its sending side is done
// and once when it ended (internal/client_runner.h). ClientConnection steps one connection; this is
// what drives the steps, as wrk's socket_connected/socket_readable drive its connections.
//
// A model says only what is its own: how a socket is watched for readiness, how timers are kept,
// what the load does when the model moves bytes itself (uring's ring receives and sends plain TCP),
// and when an ended session's socket is let go (uring waits for its requests to come back):
//
//   class EpollSlot final : public ClientSlot {
//     void Watch(bool readable, bool writable) override;  // epoll_ctl
//     uint64_t AddTimer(int64_t when_nanos, std::function<void()> callback) override;
//     void CancelTimer(uint64_t id) override;
//     bool ReleaseSocket() override;  // out of the epoll set; true
//     void SlotEnded() override;      // one slot fewer for the loop to wait for
//   };
//   // The loop, on its own thread: BeginOpen() for every slot; OnReady(readable) when a watched
//   // socket is ready; Go() when the latch opens; Abandon() when the run ends.
//
// Every call is made on the slot's loop thread.
#ifndef NETBENCH_COMMON_INTERNAL_CLIENT_SLOT_H_
#define NETBENCH_COMMON_INTERNAL_CLIENT_SLOT_H_

#include <cstdint>
#include <functional>
#include <string>

#include "common/internal/client_connection.h"
#include "common/internal/client_runner.h"

namespace netbench {
namespace internal {

class ClientSlot {
 public:
  // `scratch`: the loop thread's read buffer, shared by its slots.
  ClientSlot(RunState& run, ClientConnection& c, ReadScratch& scratch);
  virtual ~ClientSlot() = default;
  ClientSlot(const ClientSlot&) = delete;
  ClientSlot& operator=(const ClientSlot&) = delete;

  // The slot's session begins opening: at the loop's start, and again for a restart or the slot's
  // next session.
  void BeginOpen();
  // The start latch opened: a session that waits for it begins its load.
  void Go();
  // The run is over: the session ends where it is.
  void Abandon();
  // The loop cannot wait any more: the connection ends with `text`, and so does the slot.
  void Fail(const std::string& text);
  // The socket is ready as Watch asked: the opening goes on, or the transport reads (when
  // `readable`) and writes (Pump).
  void OnReady(bool readable);

 protected:
  // What the model does.
  // Waits for the socket to be readable and/or writable; neither: waits for nothing.
  virtual void Watch(bool readable, bool writable) = 0;
  virtual uint64_t AddTimer(int64_t when_nanos, std::function<void()> callback) = 0;
  virtual void CancelTimer(uint64_t id) = 0;
  // The session's load begins (its Start went well); by default the transport reads and writes.
  virtual void BeginLoad() { Pump(/*readable=*/false); }
  // ClientConnection::not_before() came (WaitForPace); by default the transport writes.
  virtual void OnPaced() { Pump(/*readable=*/false); }
  // The session is over: its socket is watched no more. False while the model's requests still
  // name the socket (the slot is then draining()): the model calls SessionOver again once they are
  // all back.
  virtual bool ReleaseSocket() = 0;
  // The slot ended: it runs no more sessions.
  virtual void SlotEnded() = 0;

  // What the model calls.
  // Reads when `readable`, then writes what the session has (PumpOutput finds out whether the
  // socket takes it), and watches for what the connection waits for next.
  void Pump(bool readable);
  // The session finished or failed: it runs again (Restart), the slot's next one begins, or the
  // slot ends. Every call is a tail call: a session that ends at once (a refused connect) loops
  // here rather than recursing.
  void SessionOver();
  // The session's sending side is done (reported to the run unless sessions are replaced).
  void SessionSendingDone();
  // The session sends nothing before ClientConnection::not_before(): OnPaced then.
  void WaitForPace();

  RunState& run() { return run_; }
  ClientConnection& connection() { return c_; }
  bool slot_ended() const { return slot_ended_; }
  bool waiting_for_go() const { return waiting_for_go_; }
  // The current session's load began (and it is not over).
  bool started() const { return started_; }
  // The session is over, its socket not let go yet (ReleaseSocket).
  bool draining() const { return draining_; }

 private:
  void ContinueOpen(Step step);
  void Start();
  // TLS may hold records it already took off the socket (Transport::Pending), which the socket no
  // longer signals: waiting for readability after a read that stopped at its budget could wait
  // forever (a stream's tail went missing). The rest is read on the loop's next turn, after the
  // other slots had theirs, as a timer due at once.
  void ResumeReadingSoon();
  void ArmDeadline();
  void OnDeadline();
  void CancelTimers();
  void DoneSending();
  void EndSlot();

  RunState& run_;
  ClientConnection& c_;
  ReadScratch& scratch_;
  bool go_;                      // the latch is open: an open session begins its load at once
  bool open_reported_ = false;   // the slot's first opening was reported to the run
  bool waiting_for_go_ = false;  // open, the start latch still closed
  bool started_ = false;         // the current session's load began
  bool loaded_ = false;          // any session of the slot's began its load
  bool draining_ = false;
  bool sending_reported_ = false;
  bool slot_ended_ = false;
  bool in_session_over_ = false;
  bool session_over_again_ = false;
  uint64_t timer_ = 0;           // a pending not_before wake-up, 0: none
  uint64_t resume_timer_ = 0;    // reading on after TLS held more than a turn's budget, 0: none
  uint64_t deadline_timer_ = 0;  // the session's nearest deadline, 0: none
  int64_t deadline_timer_at_ = 0;
};

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_CLIENT_SLOT_H_
