// One slot's connection state machine, written once for every model (client_driver.h): opening
// (connect, TLS, the session's opening exchange, or a connection taken from the pool) and then
// moving bytes between the socket and the session; with replace_sessions, the same slot then runs
// its next session. Event loops call it when the socket is ready; the threads model calls it on a
// blocking socket, where each call blocks at most one socket timeout.
//
// Steps return what the connection waits for; they never block longer than the socket lets them.
// A session's life on a slot:
//
//   BeginOpen, ContinueOpen...  until kDone (open) or kFailed
//   Start, PumpOutput/PumpInput...  until the session finished or failed (or the run abandons it)
//   Restart?  true: BeginOpen again, same session, on a fresh connection
//   EndSession  OnEnd, statistics, the connection into the pool or closed
//   BeginSession(next)  when the factory made one
#ifndef NETBENCH_COMMON_INTERNAL_CLIENT_CONNECTION_H_
#define NETBENCH_COMMON_INTERNAL_CLIENT_CONNECTION_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/base/attributes.h"
#include "absl/strings/string_view.h"
#include "common/byte_buffer.h"
#include "common/client_driver.h"
#include "common/client_session.h"
#include "common/transport.h"
#include "common/unique_fd.h"

namespace netbench {
namespace internal {

// A read takes what a loopback socket usually holds at once.
inline constexpr size_t kReadSize = 64 * 1024;

// Where a runner's thread reads: what the session consumes at once never touches the connection's
// own buffer, so that a connection holds memory only for what it left unconsumed (a split frame or
// head), as wrk reads into its thread's buffer.
struct ReadScratch {
  std::unique_ptr<char[]> bytes{new char[kReadSize]};
};

enum class Step {
  kWantRead,   // wait until the socket is readable (blocking socket: a timeout passed)
  kWantWrite,  // wait until the socket is writable
  kIdle,       // nothing to send until more input arrives or not_before() passes
  kYield,      // more to do, but others get a turn first
  kDone,       // the opening, the sending side or the session (by the call) is done
  kFailed,     // error_cause() says why; the session is over
};

// What a slot's ended sessions add up to; written by the slot's runner thread, read after the run.
struct SlotTally {
  int sessions = 0;
  int reached[kConnectionPhaseCount] = {};
  int finished = 0;
  int failed = 0;
  int connections_opened = 0;
  std::string first_error;  // the text of the first failure
};

class ClientConnection {
 public:
  ClientConnection(int slot, std::unique_ptr<ClientSession> session, ClientStats* stats,
                   const ClientDriverOptions& options);

  // Opening, on a non-blocking socket: an idle connection from the options' pool when there is one
  // (never for a restart), otherwise a connect.
  Step BeginOpen();
  Step ContinueOpen();

  // The load begins: tells the session its connection, hands it any bytes that came after its
  // opening answer.
  Step Start();
  // Writes what the session has to send (TakeOutput, MarkWritten), at most `max_writes` writes.
  Step PumpOutput(int max_writes);
  // Reads and hands what arrives to the session, at most `max_reads` reads, into `scratch` (the
  // calling thread's) while nothing is left over from earlier reads.
  Step PumpInput(int max_reads, ReadScratch& scratch);

  // Moving bytes between the session and a socket that someone else reads and writes: the uring
  // runner's load phase on plain TCP (uring_client_runner.cc), where the ring does; PumpOutput's
  // writes through the transport too (TakeOutput, MarkWritten):
  //   DeliverReceived  bytes the ring received (valid during the call): kFailed, kDone (the
  //                    session finished) or kIdle
  //   ReceivedEof, ReceiveFailed  the receive ended with the peer's close, or with `error`
  //   TakeOutput       what is to be written next, into `data` (valid until MarkWritten
  //                    has marked all of it): kIdle with nothing (see not_before()), kDone when
  //                    the sending side is done, kWantWrite with bytes to send
  //   MarkWritten      a send wrote `bytes` of it: kDone once the sending side is done, else
  //                    kIdle; WriteFailed: it failed with `error`
  Step DeliverReceived(absl::string_view bytes);
  Step ReceivedEof();
  Step ReceiveFailed(int error);
  Step TakeOutput(absl::string_view& data);
  Step MarkWritten(size_t bytes);
  Step WriteFailed(int error);

  // Marks the session finished once it says it has nothing left to receive; true then.
  bool CheckFinished();
  // The run ended this session before it finished.
  void Abandon(absl::string_view cause);
  // The socket stays open until the session ends, so that no other thread's fd reuses it.
  void Fail(std::string cause, std::string text, int error_number = 0);

  // The session's nearest deadline (MonotonicNanos(); 0: none), and whether it passed: then the
  // session has failed, by the deadline's cause.
  int64_t deadline() const;
  bool CheckDeadlines(int64_t now);
  int64_t session_deadline() const { return session_deadline_; }
  int64_t connect_deadline() const { return connect_deadline_; }

  // After the session failed: true when it runs once more on a fresh connection (its pooled one
  // was closed by the server before answering; ClientSession::Restart); BeginOpen follows.
  bool Restart();
  // The session is over: it hears how (OnEnd), it is counted, and its connection goes into the
  // pool or is closed.
  void EndSession();
  // The slot's next session; the connection state starts over.
  void BeginSession(std::unique_ptr<ClientSession> session);

  // Messages of every session this slot ran; any thread.
  struct Counts {
    uint64_t sent = 0;
    uint64_t received = 0;
  };
  Counts counts() const;

  int slot() const { return slot_; }
  int fd() const { return fd_; }
  ClientSession& session() { return *session_; }
  ClientStats& stats() { return *stats_; }
  Transport* transport() { return transport_.get(); }
  const ConnectionInfo& info() const { return info_; }
  const SlotTally& tally() const { return tally_; }
  bool first_session() const { return first_session_; }
  ConnectionPhase phase() const { return phase_.load(std::memory_order_acquire); }
  bool sending_done() const { return sending_done_; }
  bool finished() const { return phase() == ConnectionPhase::kFinished; }
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  bool ended() const { return finished() || failed(); }
  int64_t not_before() const { return not_before_; }
  const std::string& error_cause() const { return error_cause_; }
  const std::string& error_text() const { return error_text_; }

  // System calls made for this slot (ClientStats::system_calls), counted where they are made, as
  // the servers count theirs: one per transport Read/Write/Handshake (a TLS record may take more or
  // fewer), one per socket, setsockopt, connect, fcntl, wait or close. The sending side counts
  // apart and is added at EndSession: a duplex session's writer thread sends beside the reader.
  void CountSystemCalls(uint64_t n) { stats_->system_calls += n; }
  void CountSendingSystemCalls(uint64_t n) { sending_system_calls_ += n; }

 private:
  Step FailIo(const IoResult& r, const char* operation);
  // What PumpOutput and TakeOutput share: the session's next output is made pending when nothing
  // is. kWantWrite with bytes in pending_, kIdle (nothing now; see not_before()), kDone (the
  // sending side is done) or kFailed. Always inlined: the epoll client's stream writes a message
  // per call.
  ABSL_ATTRIBUTE_ALWAYS_INLINE Step FillPending();
  // `bytes` of pending_ were written: true when that ended the sending side.
  ABSL_ATTRIBUTE_ALWAYS_INLINE bool Wrote(size_t bytes);
  void FinishSending();
  // Hands `input` to the session. Input that is in in_ (`buffered`) is consumed there; input read
  // straight into the thread's scratch buffer leaves what the session did not consume in in_.
  // kFailed, kDone (the session finished) or kIdle.
  Step DeliverInput(absl::string_view input, bool buffered);
  // Hands what was received to the session: kFailed, kDone (the session finished) or kIdle.
  Step DeliverInput();
  Step BeginOpeningExchange();
  void SetPhase(ConnectionPhase phase) { phase_.store(phase, std::memory_order_release); }
  // Drops the transport (or the socket still connecting).
  void CloseConnection();
  // Back to kConnecting, no failure, nothing buffered or pending: for a restart or the next
  // session.
  void ResetState();

  const int slot_;
  const ClientDriverOptions& options_;
  std::unique_ptr<ClientSession> session_;
  ClientStats* stats_;
  int fd_ = -1;
  UniqueFd connecting_;  // the socket until a transport owns it
  std::unique_ptr<Transport> transport_;
  ConnectionInfo info_;
  std::atomic<ConnectionPhase> phase_{ConnectionPhase::kConnecting};
  std::atomic<bool> failed_{false};
  ByteBuffer in_;  // what the session left unconsumed; kept across the slot's sessions
  std::string opening_request_;
  absl::string_view pending_;  // output being written
  bool finish_after_pending_ = false;
  bool sending_done_ = false;
  bool received_any_ = false;  // a byte arrived on this connection during this session
  bool io_failure_ = false;    // the session failed on a read, a write or the peer's close
  bool restarted_ = false;
  bool first_session_ = true;
  int64_t not_before_ = 0;
  int64_t session_deadline_ = 0;
  int64_t connect_deadline_ = 0;
  std::string error_cause_;
  std::string error_text_;
  int error_number_ = 0;
  SlotTally tally_;
  uint64_t sending_system_calls_ = 0;  // PumpOutput's thread only; into stats_ at EndSession

  // Guards session_ against the orchestrating thread's counts() while it is replaced.
  mutable std::mutex session_mutex_;
  Counts retired_;  // messages of the slot's earlier sessions
};

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_CLIENT_CONNECTION_H_
