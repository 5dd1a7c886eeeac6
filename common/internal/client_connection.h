// One client connection's state machine, written once for every model (client_driver.h): opening
// (connect, TLS, the session's opening exchange) and then moving bytes between the socket and the
// session. Event loops call it when the socket is ready; the threads model calls it on a blocking
// socket, where each call blocks at most one socket timeout.
//
// Steps return what the connection waits for, as HttpExchange does; they never block longer than
// the socket lets them.
#ifndef NETBENCH_COMMON_INTERNAL_CLIENT_CONNECTION_H_
#define NETBENCH_COMMON_INTERNAL_CLIENT_CONNECTION_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "common/byte_buffer.h"
#include "common/client_driver.h"
#include "common/client_session.h"
#include "common/transport.h"
#include "common/unique_fd.h"

namespace netbench {
namespace internal {

enum class Step {
  kWantRead,   // wait until the socket is readable (blocking socket: a timeout passed)
  kWantWrite,  // wait until the socket is writable
  kIdle,       // nothing to send until more input arrives or not_before() passes
  kYield,      // more to do, but others get a turn first
  kDone,       // the opening, the sending side or the session (by the call) is done
  kFailed,     // error_cause() says why; the connection is over
};

class ClientConnection {
 public:
  ClientConnection(int index, std::unique_ptr<ClientSession> session, ClientStats* stats);

  // Opening, on a non-blocking socket.
  Step BeginOpen(const ClientDriverOptions& options);
  Step ContinueOpen();

  // The load begins: hands the session the socket and any bytes that came after its opening answer.
  Step Start();
  // Writes what the session has to send, at most `max_writes` writes.
  Step PumpOutput(int max_writes);
  // Reads and hands what arrives to the session, at most `max_reads` reads.
  Step PumpInput(int max_reads);

  // Marks the connection finished once the session says it has nothing left to receive; true then.
  bool CheckFinished();
  // The run ended this connection before it finished.
  void Abandon(absl::string_view cause);
  // The socket stays open until the connection is destroyed, so that no other thread's fd reuses
  // it.
  void Fail(std::string cause, std::string text);

  int index() const { return index_; }
  int fd() const { return fd_; }
  ClientSession& session() { return *session_; }
  const ClientSession& session() const { return *session_; }
  ClientStats& stats() { return *stats_; }
  Transport* transport() { return transport_.get(); }
  ConnectionPhase phase() const { return phase_.load(std::memory_order_acquire); }
  bool sending_done() const { return sending_done_; }
  bool finished() const { return phase() == ConnectionPhase::kFinished; }
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  bool ended() const { return finished() || failed(); }
  int64_t not_before() const { return not_before_; }
  const std::string& error_cause() const { return error_cause_; }
  const std::string& error_text() const { return error_text_; }

 private:
  Step FailIo(const IoResult& r, const char* operation);
  // Hands what was received to the session: kFailed, kDone (the session finished) or kIdle.
  Step DeliverInput();
  Step BeginOpeningExchange();
  void SetPhase(ConnectionPhase phase) { phase_.store(phase, std::memory_order_release); }

  const int index_;
  std::unique_ptr<ClientSession> session_;
  ClientStats* stats_;
  const ClientDriverOptions* options_ = nullptr;
  int fd_ = -1;
  UniqueFd connecting_;  // the socket until a transport owns it
  std::unique_ptr<Transport> transport_;
  std::atomic<ConnectionPhase> phase_{ConnectionPhase::kConnecting};
  std::atomic<bool> failed_{false};
  ByteBuffer in_;
  std::string opening_request_;
  absl::string_view pending_;  // output being written
  bool finish_after_pending_ = false;
  bool sending_done_ = false;
  int64_t not_before_ = 0;
  std::string error_cause_;
  std::string error_text_;
};

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_CLIENT_CONNECTION_H_
