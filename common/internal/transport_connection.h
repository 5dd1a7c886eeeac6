// A server connection whose Transport reads and writes the socket itself: every connection of the
// event-loop models (event_loop_server.cc) and the uring model's TLS ones (uring_server.cc). It
// runs the turn they share, and its model keeps only how it waits:
//
//   - Begin: the idle timer, the TLS handshake (a head too: the head timer runs over it), and
//     what the transport already holds;
//   - OnReady, when the socket is: the handshake's next step; writing first (it frees output room,
//     which may let the same wakeup read again); then a turn: input the handler left for lack of
//     output room offered again, or a read of at most read_size (never past the input bound), and
//     more only while either can go on without the socket, up to read_size bytes in all;
//   - bounds: while more than max_pending_output bytes wait to be sent, or max_pending_input wait
//     to be consumed, the connection is not read (Wants() says so);
//   - the handler's replies are written as it gives them, or (Rules::write_at_once false) gather
//     until the model calls Flush.
//
// Input the transport holds (Transport::Pending(): TLS records read ahead) is announced by no
// readiness: a turn that stopped at its budget with some left calls OweTurn, and the model gives
// the connection another turn (TakeTurn) without waiting for the socket. A timer that changed what
// the connection waits for calls Rewatch.
//
//   class LoopConnection final : public FdHandler, public TransportConnection {
//     void OnEvents(int fd, int events) override {
//       if (OnReady(events & kReadable, events & kWritable, events & kHangup)) Watch(Wants());
//     }
//     void OweTurn() override { ...TakeTurn() after this pass... }
//     void Rewatch() override { Watch(Wants()); }
//     void OnClose(bool graceful) override { ... }
//   };
#ifndef NETBENCH_COMMON_INTERNAL_TRANSPORT_CONNECTION_H_
#define NETBENCH_COMMON_INTERNAL_TRANSPORT_CONNECTION_H_

#include <cstddef>
#include <memory>

#include "common/byte_buffer.h"
#include "common/connection_handler.h"
#include "common/internal/server_connection.h"
#include "common/internal/server_models.h"
#include "common/server.h"
#include "common/transport.h"

namespace netbench {
namespace internal {

class TransportConnection : public ServerConnection {
 public:
  // Where the models differ in what the turn does, rather than in how they wait.
  struct Rules {
    // Replies are written as soon as the handler gives them (the event-loop models); else they
    // gather until the model calls Flush (uring: one TLS record and one send per pass).
    bool write_at_once = true;
    // A handshake step counts as a system call in ServerStats (uring's count; the event-loop
    // models' does not).
    bool count_handshake = false;
  };

  TransportConnection(Timers& timers, const ServerOptions& options, ServerCounters& counters,
                      std::unique_ptr<Transport> transport,
                      std::unique_ptr<ConnectionHandler> handler, Rules rules);

  // What the connection waits for from its socket now.
  struct Interest {
    bool readable = false;
    bool writable = false;
  };

 protected:
  // The model gives the connection another turn soon (TakeTurn), without waiting for the socket:
  // its transport holds input that no readiness will announce.
  virtual void OweTurn() = 0;
  // A timer changed what the connection waits for (Wants()).
  virtual void Rewatch() = 0;

  // The idle timer, the handshake (the head timer over it), what the transport holds already.
  // False once closed.
  bool Begin();
  // The socket is ready for what is true. False once closed.
  bool OnReady(bool readable, bool writable, bool hangup);
  // A turn without the socket, if the connection can still go on without it (backpressure may
  // have stopped it since it was owed). False once closed.
  bool TakeTurn() { return !HoldsReadableInput() || ReadAndHandle(); }
  // Writes as much of the output as the socket takes now. False once closed (on error, or when it
  // was closing and everything is out).
  bool Flush();
  // Work can go on without the socket: the transport holds input, or the handler left requests for
  // lack of output room that it now has.
  bool HoldsReadableInput() const {
    // The cheap test first: plain TCP never holds input, and this is asked on every turn.
    return (reoffer_ && CanHandle()) || (transport_->Pending() > 0 && CanRead());
  }
  // What to wait for now; a bound reached counts a read pause (ServerStats::read_pauses).
  Interest Wants() {
    if (handshaking_) return Interest{!handshake_wants_write_, handshake_wants_write_};
    const bool over = OutputFull() || InputFull();
    SetPaused(over);
    return Interest{(!closing_ && !over) || write_wants_read_,
                    (!held_ && !output_.empty() && !write_wants_read_) || read_wants_write_};
  }
  bool handshaking() const { return handshaking_; }

  std::unique_ptr<Transport> transport_;
  const int fd_;

 private:
  void OnHoldOver() override;
  bool ContinueHandshake();
  // The handler can be called: there is room for output.
  bool CanHandle() const { return !handshaking_ && !closing_ && !closed_ && !OutputFull(); }
  bool CanRead() const { return CanHandle() && !InputFull(); }
  bool OutputFull() const { return output_.size() > options_.max_pending_output; }
  bool InputFull() const { return input_.size() >= options_.max_pending_input; }
  bool ReadAndHandle();
  // One read, handed to the handler; `*bytes` says how many (0: nothing came). False once closed.
  bool ReadOnce(size_t* bytes);
  // Offers input_ to the handler (and writes what it answers, with write_at_once). False once
  // closed.
  bool Handle();

  const Rules rules_;
  ByteBuffer input_;
  ByteBuffer output_;
  bool handshaking_ = true;
  bool handshake_wants_write_ = false;
  bool read_wants_write_ = false;  // TLS: a read needs the socket writable first
  bool write_wants_read_ = false;  // TLS: a write needs the socket readable first
};

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_TRANSPORT_CONNECTION_H_
