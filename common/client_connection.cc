#include "common/internal/client_connection.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/clock.h"
#include "common/errno_status.h"
#include "common/platform.h"
#include "common/socket.h"
#include "common/tls.h"

namespace netbench {
namespace internal {
namespace {

std::string ErrnoCause(const char* operation, int err) {
  return absl::StrCat(operation, ".", ErrnoName(err));
}

}  // namespace

ClientConnection::ClientConnection(int slot, std::unique_ptr<ClientSession> session,
                                   ClientStats* stats, const ClientDriverOptions& options)
    : slot_(slot), options_(options), session_(std::move(session)), stats_(stats) {}

Step ClientConnection::BeginOpen() {
  const int64_t now = MonotonicNanos();
  info_ = ConnectionInfo();
  info_.begin_nanos = now;
  received_any_ = false;
  io_failure_ = false;
  // A restart keeps its session's deadline; the first sessions of a latched run start theirs with
  // the load.
  if (session_deadline_ == 0 && options_.session_timeout_nanos > 0 &&
      !(options_.open_before_start && first_session_)) {
    session_deadline_ = now + options_.session_timeout_nanos;
  }
  SetPhase(ConnectionPhase::kConnecting);
  if (options_.pool != nullptr && !restarted_) {
    if (std::unique_ptr<Transport> idle = options_.pool->Take()) {
      transport_ = std::move(idle);
      fd_ = transport_->fd();
      info_.reused = true;
      // The threads model may have left it blocking; event loops must not block.
      if (options_.model != ClientModel::kThreads) {
        CountSystemCalls(1);  // fcntl(F_GETFL); within one model's run it is non-blocking already
        SetNonBlocking(fd_, true).IgnoreError();
      }
      return BeginOpeningExchange();
    }
  }
  connect_deadline_ = options_.connect_timeout_nanos > 0 ? now + options_.connect_timeout_nanos : 0;
  const SocketAddress& address = options_.address;
  CountSystemCalls(1);
  connecting_ = UniqueFd(OpenStreamSocket(address.family(), /*non_blocking=*/true));
  if (!connecting_.valid()) {
    const int err = errno;
    Fail(ErrnoCause("socket", err), ErrnoStatus(err, "socket").ToString(), err);
    return Step::kFailed;
  }
  fd_ = connecting_.get();
  CountSystemCalls(2);  // setsockopt(TCP_NODELAY), connect
  SetNoDelay(fd_, options_.no_delay).IgnoreError();
  if (connect(fd_, address.get(), address.length) != 0 && errno != EINPROGRESS) {
    const int err = errno;
    Fail(ErrnoCause("connect", err),
         std::string(ErrnoStatus(err, absl::StrCat("connect ", address.ToString())).message()),
         err);
    return Step::kFailed;
  }
  // Loopback connects usually complete at once, but a pending one is finished in ContinueOpen.
  return Step::kWantWrite;
}

Step ClientConnection::ContinueOpen() {
  switch (phase()) {
    case ConnectionPhase::kConnecting: {
      int err = 0;
      socklen_t length = sizeof(err);
      CountSystemCalls(1);
      if (getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &length) != 0) err = errno;
      if (err != 0) {
        Fail(ErrnoCause("connect", err),
             std::string(
                 ErrnoStatus(err, absl::StrCat("connect ", options_.address.ToString())).message()),
             err);
        return Step::kFailed;
      }
      info_.connected_nanos = MonotonicNanos();
      connect_deadline_ = 0;
      ++tally_.connections_opened;
      if (options_.tls == nullptr) {
        transport_ = MakePlainTransport(std::move(connecting_));
        return BeginOpeningExchange();
      }
      absl::StatusOr<std::unique_ptr<Transport>> tls =
          options_.tls->Wrap(std::move(connecting_), options_.server_name);
      if (!tls.ok()) {
        Fail("tls", std::string(tls.status().message()));
        return Step::kFailed;
      }
      transport_ = *std::move(tls);
      SetPhase(ConnectionPhase::kTls);
      [[fallthrough]];
    }
    case ConnectionPhase::kTls: {
      CountSystemCalls(1);
      IoResult r = transport_->Handshake();
      if (r.status == IoStatus::kWantRead) return Step::kWantRead;
      if (r.status == IoStatus::kWantWrite) return Step::kWantWrite;
      if (r.status != IoStatus::kOk) {
        const bool eof = r.status == IoStatus::kEof;
        Fail(eof ? "tls.eof" : "tls",
             absl::StrCat("TLS handshake with ", options_.address.ToString(), ": ",
                          eof ? "connection closed" : r.message),
             r.error);
        return Step::kFailed;
      }
      info_.tls_nanos = MonotonicNanos();
      return BeginOpeningExchange();
    }
    case ConnectionPhase::kOpening: {
      while (!pending_.empty()) {
        CountSystemCalls(1);
        IoResult r = transport_->Write(pending_.data(), pending_.size());
        if (r.status == IoStatus::kOk) {
          pending_.remove_prefix(r.bytes);
          continue;
        }
        if (r.status == IoStatus::kWantWrite) return Step::kWantWrite;
        if (r.status == IoStatus::kWantRead) return Step::kWantRead;
        return FailIo(r, "opening.write");
      }
      while (true) {
        CountSystemCalls(1);
        IoResult r = transport_->Read(in_.WritableSpace(4096), 4096);
        if (r.status == IoStatus::kWantRead || r.status == IoStatus::kWantWrite) {
          return r.status == IoStatus::kWantRead ? Step::kWantRead : Step::kWantWrite;
        }
        if (r.status == IoStatus::kEof) {
          io_failure_ = true;
          Fail("opening.eof", "the server closed the connection before answering the opening");
          return Step::kFailed;
        }
        if (r.status != IoStatus::kOk) return FailIo(r, "opening.read");
        in_.CommitWrite(r.bytes);
        received_any_ = true;
        ClientSession::OpeningResult result = session_->OnOpeningData(in_.view());
        if (!result.error.empty()) {
          Fail("opening", result.error);
          return Step::kFailed;
        }
        in_.Consume(result.consumed);
        if (result.open) {
          SetPhase(ConnectionPhase::kOpen);
          return Step::kDone;
        }
      }
    }
    case ConnectionPhase::kOpen:
    case ConnectionPhase::kFinished:
      return Step::kDone;
  }
  return Step::kFailed;
}

Step ClientConnection::BeginOpeningExchange() {
  opening_request_ = session_->OpeningRequest();
  if (opening_request_.empty()) {
    SetPhase(ConnectionPhase::kOpen);
    return Step::kDone;
  }
  pending_ = opening_request_;
  SetPhase(ConnectionPhase::kOpening);
  return ContinueOpen();
}

Step ClientConnection::Start() {
  if (session_deadline_ == 0 && options_.session_timeout_nanos > 0) {
    session_deadline_ = MonotonicNanos() + options_.session_timeout_nanos;
  }
  info_.fd = fd_;
  info_.transport = transport_.get();
  session_->OnStart(info_);
  // Bytes that followed the opening answer (a server may send frames right after its 101).
  return in_.empty() ? Step::kIdle : DeliverInput(in_.view(), /*buffered=*/true);
}

Step ClientConnection::DeliverInput(absl::string_view input, bool buffered) {
  ClientSession::InputResult result = session_->OnInput(input);
  if (buffered) {
    in_.Consume(result.consumed);
  } else if (result.consumed < input.size()) {
    in_.Append(input.substr(result.consumed));
  }
  if (!result.error.empty()) {
    Fail(result.error, result.error_text);
    return Step::kFailed;
  }
  if (result.finished) {
    SetPhase(ConnectionPhase::kFinished);
    return Step::kDone;
  }
  return Step::kIdle;
}

inline Step ClientConnection::FillPending() {
  if (failed()) return Step::kFailed;
  if (!pending_.empty()) return Step::kWantWrite;
  if (sending_done_) return Step::kDone;
  ClientSession::Output output = session_->NextOutput();
  pending_ = output.data;
  finish_after_pending_ = output.sending_finished;
  not_before_ = output.not_before;
  if (!pending_.empty()) return Step::kWantWrite;
  if (!finish_after_pending_) return Step::kIdle;
  FinishSending();
  return Step::kDone;
}

inline bool ClientConnection::Wrote(size_t bytes) {
  pending_.remove_prefix(bytes);
  if (!pending_.empty() || !finish_after_pending_ || sending_done_) return false;
  FinishSending();
  return true;
}

void ClientConnection::FinishSending() {
  sending_done_ = true;
  session_->OnSendingFinished(fd_);
}

Step ClientConnection::PumpOutput(int max_writes) {
  for (int writes = 0; writes < max_writes; ++writes) {
    if (const Step step = FillPending(); step != Step::kWantWrite) return step;
    CountSendingSystemCalls(1);
    IoResult r = transport_->Write(pending_.data(), pending_.size());
    if (r.status == IoStatus::kOk) {
      if (Wrote(r.bytes)) return Step::kDone;
      continue;
    }
    if (r.status == IoStatus::kWantWrite || r.status == IoStatus::kWantRead)
      return Step::kWantWrite;
    return FailIo(r, "write");
  }
  return Step::kYield;
}

Step ClientConnection::PumpInput(int max_reads, ReadScratch& scratch) {
  for (int reads = 0; reads < max_reads; ++reads) {
    if (failed()) return Step::kFailed;
    const bool direct = in_.empty();
    CountSystemCalls(1);
    IoResult r =
        transport_->Read(direct ? scratch.bytes.get() : in_.WritableSpace(kReadSize), kReadSize);
    if (r.status == IoStatus::kOk) {
      received_any_ = true;
      absl::string_view input;
      if (direct) {
        input = absl::string_view(scratch.bytes.get(), r.bytes);
      } else {
        in_.CommitWrite(r.bytes);
        input = in_.view();
      }
      if (const Step step = DeliverInput(input, /*buffered=*/!direct); step != Step::kIdle) {
        return step;
      }
      // A short read emptied the socket, and TLS holds nothing more: reading again would only
      // return EAGAIN (one wasted syscall a wakeup).
      if (r.bytes < kReadSize && transport_->Pending() == 0) return Step::kWantRead;
      continue;
    }
    if (r.status == IoStatus::kWantRead || r.status == IoStatus::kWantWrite) return Step::kWantRead;
    if (r.status == IoStatus::kEof) return ReceivedEof();
    return FailIo(r, "read");
  }
  return Step::kYield;
}

Step ClientConnection::DeliverReceived(absl::string_view bytes) {
  if (failed()) return Step::kFailed;
  received_any_ = true;
  if (in_.empty()) return DeliverInput(bytes, /*buffered=*/false);
  in_.Append(bytes);
  return DeliverInput(in_.view(), /*buffered=*/true);
}

Step ClientConnection::ReceivedEof() {
  if (failed()) return Step::kFailed;
  std::string cause = session_->OnPeerClosed();
  if (cause.empty()) {
    SetPhase(ConnectionPhase::kFinished);
    return Step::kDone;
  }
  io_failure_ = true;
  Fail(cause, "the server closed the connection before the session was complete");
  return Step::kFailed;
}

Step ClientConnection::ReceiveFailed(int error) {
  io_failure_ = true;
  Fail(ErrnoCause("read", error), std::string(ErrnoStatus(error, "recv").message()), error);
  return Step::kFailed;
}

Step ClientConnection::TakeOutput(absl::string_view& data) {
  const Step step = FillPending();
  data = step == Step::kWantWrite ? pending_ : absl::string_view();
  return step;
}

Step ClientConnection::MarkWritten(size_t bytes) {
  Wrote(std::min(bytes, pending_.size()));
  return sending_done_ ? Step::kDone : Step::kIdle;
}

Step ClientConnection::WriteFailed(int error) {
  io_failure_ = true;
  Fail(ErrnoCause("write", error), std::string(ErrnoStatus(error, "send").message()), error);
  return Step::kFailed;
}

bool ClientConnection::CheckFinished() {
  if (finished()) return true;
  if (failed() || !session_->IsFinished()) return false;
  SetPhase(ConnectionPhase::kFinished);
  return true;
}

void ClientConnection::Abandon(absl::string_view cause) {
  if (ended()) return;
  Fail(std::string(cause),
       absl::StrCat("connection ", slot_, " was still ", ConnectionPhaseName(phase()),
                    " when the run ended (", cause, ")"));
}

void ClientConnection::Fail(std::string cause, std::string text, int error_number) {
  // The sending and receiving sides may fail at once (threads model); the first one says why.
  if (failed_.exchange(true, std::memory_order_acq_rel)) return;
  error_cause_ = std::move(cause);
  error_text_ = std::move(text);
  error_number_ = error_number;
}

Step ClientConnection::FailIo(const IoResult& r, const char* operation) {
  io_failure_ = true;
  Fail(r.error != 0 ? ErrnoCause(operation, r.error) : absl::StrCat(operation, ".tls"), r.message,
       r.error);
  return Step::kFailed;
}

int64_t ClientConnection::deadline() const {
  if (connect_deadline_ == 0) return session_deadline_;
  if (session_deadline_ == 0) return connect_deadline_;
  return std::min(connect_deadline_, session_deadline_);
}

bool ClientConnection::CheckDeadlines(int64_t now) {
  if (ended()) return false;
  if (connect_deadline_ != 0 && now >= connect_deadline_ &&
      phase() == ConnectionPhase::kConnecting) {
    Fail("connect_timeout",
         absl::StrFormat("connect %s: no answer within %d ms", options_.address.ToString(),
                         options_.connect_timeout_nanos / kNanosPerMilli));
    return true;
  }
  if (session_deadline_ != 0 && now >= session_deadline_) {
    Fail("session_timeout", absl::StrFormat("not done within %d ms (still %s)",
                                            options_.session_timeout_nanos / kNanosPerMilli,
                                            ConnectionPhaseName(phase())));
    return true;
  }
  return false;
}

bool ClientConnection::Restart() {
  // Only a connection from the pool that failed in its I/O before the server said anything: the
  // server had closed it. A deadline, the run, or the session's own verdict is no reason.
  if (!failed() || !info_.reused || received_any_ || !io_failure_ || restarted_) return false;
  if (!session_->Restart()) return false;
  restarted_ = true;
  CloseConnection();
  ResetState();
  return true;
}

void ClientConnection::EndSession() {
  SessionEnd end;
  end.finished = finished();
  if (!end.finished) {
    end.cause = error_cause_;
    end.text = error_text_;
    end.error_number = error_number_;
  }
  info_.fd = fd_;
  info_.transport = transport_.get();
  end.connection = info_;
  session_->OnEnd(end);
  // The sending side is done by now (a duplex session's writer thread was joined).
  stats_->system_calls += std::exchange(sending_system_calls_, 0);

  ++tally_.sessions;
  for (int p = 0; p <= static_cast<int>(phase()); ++p) ++tally_.reached[p];
  if (end.finished) ++tally_.finished;
  // Sessions closed because others could not open were never failures of their own.
  if (failed() && error_cause_ != "not_started") {
    ++tally_.failed;
    ++stats_->errors[error_cause_];
    if (tally_.first_error.empty()) tally_.first_error = error_text_;
  }

  if (end.finished && options_.pool != nullptr && transport_ != nullptr && in_.empty() &&
      pending_.empty() && session_->reusable()) {
    options_.pool->Put(std::move(transport_));
  }
  CloseConnection();
}

void ClientConnection::BeginSession(std::unique_ptr<ClientSession> session) {
  std::unique_ptr<ClientSession> old;
  {
    std::lock_guard<std::mutex> lock(session_mutex_);
    retired_.sent += session_->messages_sent();
    retired_.received += session_->messages_received();
    old = std::exchange(session_, std::move(session));
  }
  first_session_ = false;
  restarted_ = false;
  session_deadline_ = 0;
  ResetState();
}

ClientConnection::Counts ClientConnection::counts() const {
  std::lock_guard<std::mutex> lock(session_mutex_);
  return {retired_.sent + session_->messages_sent(),
          retired_.received + session_->messages_received()};
}

void ClientConnection::CloseConnection() {
  if (transport_ != nullptr || connecting_.valid()) CountSystemCalls(1);  // close
  transport_.reset();
  connecting_.reset();
  fd_ = -1;
}

void ClientConnection::ResetState() {
  SetPhase(ConnectionPhase::kConnecting);
  failed_.store(false, std::memory_order_release);
  error_cause_.clear();
  error_text_.clear();
  error_number_ = 0;
  in_.Clear();
  opening_request_.clear();
  pending_ = {};
  finish_after_pending_ = false;
  sending_done_ = false;
  not_before_ = 0;
  connect_deadline_ = 0;
}

}  // namespace internal
}  // namespace netbench
