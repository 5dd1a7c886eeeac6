#include "common/internal/transport_connection.h"

#include <algorithm>
#include <utility>

namespace netbench {
namespace internal {

TransportConnection::TransportConnection(Timers& timers, const ServerOptions& options,
                                         ServerCounters& counters,
                                         std::unique_ptr<Transport> transport,
                                         std::unique_ptr<ConnectionHandler> handler, Rules rules)
    : ServerConnection(timers, options, counters, std::move(handler)),
      transport_(std::move(transport)),
      fd_(transport_->fd()),
      rules_(rules) {}

bool TransportConnection::Begin() {
  StartIdleTimer();
  if (!ContinueHandshake()) return false;
  // A TLS handshake is a head too: it must be whole within the head timeout, however its bytes
  // trickle in (ContinueHandshake cancels this once it is).
  if (handshaking_ && options_.head_timeout_nanos > 0) ArmHeadTimer();
  return !HoldsReadableInput() || ReadAndHandle();
}

bool TransportConnection::ContinueHandshake() {
  if (rules_.count_handshake) ServerCounters::Add(counters_.system_calls, 1);
  IoResult r = transport_->Handshake();
  switch (r.status) {
    case IoStatus::kOk:
      handshaking_ = false;
      CancelHeadTimer();
      return true;
    case IoStatus::kWantRead:
      handshake_wants_write_ = false;
      return true;
    case IoStatus::kWantWrite:
      handshake_wants_write_ = true;
      return true;
    default:
      Close(/*graceful=*/false);
      return false;
  }
}

bool TransportConnection::OnReady(bool readable, bool writable, bool hangup) {
  if (handshaking_) {
    if (!ContinueHandshake()) return false;
    if (handshaking_) return true;
    // The client's first bytes may have come with its last handshake flight, and the transport
    // may have taken them off the socket already.
    readable = true;
  }
  // Writing first frees output room, which may let this same wakeup read again.
  if (writable || (readable && write_wants_read_)) {
    if (!Flush()) return false;
  }
  // Input the transport holds counts as readable: no readiness will announce it. It matters most
  // here after a flush that ended backpressure.
  if (readable || hangup || (writable && read_wants_write_) || HoldsReadableInput()) {
    return ReadAndHandle();
  }
  return true;
}

// One turn: input the handler left for lack of output room, offered again, or a read; then more
// only while either can go on without the socket (the transport holds input, or the handler has
// room again), up to read_size bytes consumed or read in all. Plain TCP holds nothing, so it reads
// once per wakeup and level triggering brings it back for the rest of the socket. TLS hands out a
// record per read and may have taken several off the socket at once; what a full turn leaves
// inside is owed another turn.
bool TransportConnection::ReadAndHandle() {
  size_t budget = options_.read_size;
  bool more;  // HoldsReadableInput(), asked once per step
  do {
    if (reoffer_ && CanHandle()) {
      const size_t before = input_.size();
      if (!Handle()) return false;
      budget -= std::min(before - input_.size(), budget);
    } else {
      if (!CanRead()) return true;  // backpressure: a flush brings reading back
      size_t bytes = 0;
      if (!ReadOnce(&bytes)) return false;
      if (bytes == 0) return true;  // the transport wants the socket, or the peer has finished
      budget -= std::min(bytes, budget);
    }
    more = HoldsReadableInput();
  } while (budget > 0 && more);
  if (more) OweTurn();
  return true;
}

bool TransportConnection::ReadOnce(size_t* bytes) {
  read_wants_write_ = false;
  // Never past the input bound: a peer that sends faster than the handler consumes fills it and
  // then waits in the kernel.
  const size_t room = std::min(options_.read_size, options_.max_pending_input - input_.size());
  // One per Read: an upper bound, since a Read the transport serves from records it read ahead
  // makes no system call (perf stat counts exactly).
  ServerCounters::Add(counters_.system_calls, 1);
  IoResult r = transport_->Read(input_.WritableSpace(room), room);
  switch (r.status) {
    case IoStatus::kOk:
      break;
    case IoStatus::kWantRead:
      return true;
    case IoStatus::kWantWrite:
      read_wants_write_ = true;
      return true;
    case IoStatus::kEof:
      handler_->OnPeerClosed(output_);
      closing_ = true;
      return !rules_.write_at_once || Flush();
    case IoStatus::kError:
      Close(/*graceful=*/false);
      return false;
  }
  *bytes = r.bytes;
  input_.CommitWrite(r.bytes);
  ServerCounters::Add(counters_.bytes_read, r.bytes);
  NoteActivity();
  return Handle();
}

bool TransportConnection::Handle() {
  ServerCounters::Max(counters_.peak_pending_input, input_.size());
  HandlerResult result = handler_->OnData(input_.view(), output_);
  input_.Consume(result.consumed);
  if (InputFull() && result.consumed == 0) {
    Close(/*graceful=*/false);  // it needs more input than the bound allows: it never will have it
    return false;
  }
  reoffer_ = result.consumed > 0 && !input_.empty() && OutputFull();
  ServerCounters::Max(counters_.peak_pending_output, output_.size());
  Settle(result);
  return !rules_.write_at_once || Flush();
}

bool TransportConnection::Flush() {
  if (held_) return true;
  write_wants_read_ = false;
  while (!output_.empty()) {
    ServerCounters::Add(counters_.system_calls, 1);
    IoResult r = transport_->Write(output_.data(), output_.size());
    if (r.status == IoStatus::kOk) {
      output_.Consume(r.bytes);
      ServerCounters::Add(counters_.bytes_written, r.bytes);
      NoteActivity();
    } else if (r.status == IoStatus::kWantWrite) {
      return true;
    } else if (r.status == IoStatus::kWantRead) {
      write_wants_read_ = true;
      return true;
    } else {
      Close(/*graceful=*/false);
      return false;
    }
  }
  if (closing_) {
    Close(/*graceful=*/true);
    return false;
  }
  return true;
}

void TransportConnection::OnHoldOver() {
  if (!Flush()) return;
  if (HoldsReadableInput() && !ReadAndHandle()) return;  // held back by the output until now
  Rewatch();
}

}  // namespace internal
}  // namespace netbench
