// The protocol side of a client connection, independent of the concurrency model that drives it:
// the client's counterpart of connection_handler.h, as wrk's request/response callbacks are to its
// one connection state machine.
//
// The driver (client_driver.h) connects, runs TLS, and then moves bytes; the session says what to
// send and recognises what comes back. Its life:
//
//   opening  OpeningRequest() is written, and OnOpeningData() sees the answer until it says the
//            connection is open (the WebSocket upgrade). Sessions without an opening skip it.
//   load     OnStart() says which connection it got and when its set-up ended; NextOutput() says
//            what to send next; OnInput() consumes what arrived. The driver calls NextOutput()
//            again only once the previous output was written in full.
//   end      OnInput() or OnPeerClosed() says the session is finished; OnEnd() hears how it ended
//            (finished, or failed and why). The driver closes the socket, or keeps it for the next
//            session when the run has a ConnectionPool and reusable() says it may.
//
//   class PingSession : public ClientSession {
//     Output NextOutput() override {
//       if (sent_) return {.sending_finished = true};
//       sent_ = true;
//       return {.data = "ping"};
//     }
//     InputResult OnInput(absl::string_view input) override {
//       return {.consumed = input.size(), .finished = input.size() >= 4};
//     }
//     bool sent_ = false;
//   };
//
// Threading: a session is driven from one thread, except a duplex() session in the threads model,
// whose sending side (NextOutput, OnSendingFinished) runs on a thread of its own beside the
// receiving side (the rest), as the Go spammer runs a writer goroutine beside its reader. Such a
// session keeps the state the two sides share in atomics.
#ifndef NETBENCH_COMMON_CLIENT_SESSION_H_
#define NETBENCH_COMMON_CLIENT_SESSION_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace netbench {

class Transport;  // common/transport.h

// The connection a session runs on, and when its set-up steps ended (MonotonicNanos()), for
// sessions that time them per phase as a fan-out does.
struct ConnectionInfo {
  int fd = -1;
  // TLS details through AsTls (common/tls.h); valid during the call that passes it.
  const Transport* transport = nullptr;
  bool reused = false;          // an idle connection from the ConnectionPool: no connect, no TLS
  int64_t begin_nanos = 0;      // the driver began connecting, or took it from the pool
  int64_t connected_nanos = 0;  // TCP connected; 0 when reused or never connected
  int64_t tls_nanos = 0;        // the TLS handshake finished; 0 without one
};

// How a session ended, for OnEnd.
struct SessionEnd {
  bool finished = false;
  // Why it failed, empty when it finished: the driver's cause ("connect.ECONNREFUSED",
  // "read.ECONNRESET", "tls", "session_timeout", "connect_timeout", "timeout" for the run's
  // deadline, ...) or the session's own (an InputResult error, an OnPeerClosed cause).
  absl::string_view cause;
  absl::string_view text;     // for the user
  int error_number = 0;       // the errno behind the cause; 0 when none
  ConnectionInfo connection;  // the connection it ended on, as far as that got
};

class ClientSession {
 public:
  virtual ~ClientSession() = default;

  struct OpeningResult {
    size_t consumed = 0;
    bool open = false;  // the opening is done; bytes after `consumed` belong to the load phase
    std::string
        error;  // non-empty: the opening failed; said to the user ("the server answered 403")
  };
  // The opening request, sent once the connection is up (TLS included); empty: none.
  virtual std::string OpeningRequest() { return {}; }
  // Bytes of the server's answer to the opening request, all that arrived and was not consumed yet.
  virtual OpeningResult OnOpeningData(absl::string_view /*input*/) {
    OpeningResult open;
    open.open = true;
    return open;
  }

  // True when the session sends without waiting for answers (a stream, a sink), so that in the
  // threads model its sending side needs a thread of its own.
  virtual bool duplex() const { return false; }

  // The load starts on `connection`: its socket, for options a protocol needs (SO_RCVLOWAT), and
  // its set-up times. Called again after a Restart(), for the fresh connection.
  virtual void OnStart(const ConnectionInfo& /*connection*/) {}

  struct Output {
    // Bytes to send now; they must stay valid until the next NextOutput() call, which comes once
    // they have been written in full.
    absl::string_view data;
    // Nothing to send before this MonotonicNanos() time (a paced sender); 0: not paced.
    int64_t not_before = 0;
    // The sending side is done (everything sent, or the run said stop).
    bool sending_finished = false;
  };
  // What to send next. Empty data without `not_before` or `sending_finished`: nothing until more
  // input. Sessions read the clock themselves where they need it: a stream sender does not.
  virtual Output NextOutput() = 0;
  // The sending side ended (after the `sending_finished` output, or because the run was stopped).
  // In the threads model a duplex session's receiving side may be blocked at this moment; see
  // IsFinished.
  virtual void OnSendingFinished(int /*fd*/) {}

  struct InputResult {
    size_t consumed = 0;
    bool finished = false;  // the session is complete (it may still have output to flush)
    // Non-empty: the connection cannot go on ("protocol_1002"); counted by this cause, and closed.
    // Errors the session can live with it counts in its own ClientStats.
    std::string error;
    std::string error_text;  // for the user: what the server did
  };
  // Bytes that arrived: everything received and not consumed yet. The view is valid during the call
  // only: what the session does not consume the driver keeps, and offers again with more.
  virtual InputResult OnInput(absl::string_view input) = 0;
  // The peer closed its side. Returns the error cause to count, or "" when the session was
  // complete.
  virtual std::string OnPeerClosed() = 0;
  // Asked while the receiving side waits for input: true once the session has nothing left to
  // receive (every answer is in, and the sending side is done). Thread-safe for duplex sessions.
  virtual bool IsFinished() const = 0;

  // Asked once the session finished, when the run has a ConnectionPool: whether its connection may
  // carry another session (an HTTP response that did not ask to close it).
  virtual bool reusable() const { return false; }

  // The connection this session took from the pool failed before any byte arrived: the server had
  // closed it while it sat idle, a race every keep-alive client meets. Return true, having reset
  // what it sends, to run once more on a fresh connection; only for sessions whose requests are
  // safe to send twice (an idempotent GET), as Go's net/http retries them.
  virtual bool Restart() { return false; }

  // The session ended (finished, failed, or cut short by the run): the last chance to count what
  // never came back. Called once, on the receiving side's thread, after the sending side stopped.
  virtual void OnEnd(const SessionEnd& /*end*/) {}

  // Messages sent and answered so far, for progress and the measured phase. Thread-safe (atomics).
  virtual uint64_t messages_sent() const = 0;
  virtual uint64_t messages_received() const = 0;
};

}  // namespace netbench

#endif  // NETBENCH_COMMON_CLIENT_SESSION_H_
