#include "common/internal/client_connection.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/errno_status.h"
#include "common/platform.h"
#include "common/socket.h"
#include "common/tls.h"

namespace netbench {
namespace internal {
namespace {

// A read takes what a loopback socket usually holds at once; the buffer is kept for the connection.
constexpr size_t kReadSize = 64 * 1024;

std::string ErrnoCause(const char* operation, int err) {
  return absl::StrCat(operation, ".", ErrnoName(err));
}

}  // namespace

ClientConnection::ClientConnection(int index, std::unique_ptr<ClientSession> session,
                                   ClientStats* stats)
    : index_(index), session_(std::move(session)), stats_(stats) {}

Step ClientConnection::BeginOpen(const ClientDriverOptions& options) {
  options_ = &options;
  SetPhase(ConnectionPhase::kConnecting);
  const SocketAddress& address = options.address;
  connecting_ = UniqueFd(OpenStreamSocket(address.family(), /*non_blocking=*/true));
  if (!connecting_.valid()) {
    const int err = errno;
    Fail(ErrnoCause("socket", err), std::string(ErrnoStatus(err, "socket").message()));
    return Step::kFailed;
  }
  fd_ = connecting_.get();
  SetNoDelay(fd_, options.no_delay).IgnoreError();
  if (connect(fd_, address.get(), address.length) != 0 && errno != EINPROGRESS) {
    const int err = errno;
    Fail(ErrnoCause("connect", err),
         std::string(ErrnoStatus(err, absl::StrCat("connect ", address.ToString())).message()));
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
      if (getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &length) != 0) err = errno;
      if (err != 0) {
        Fail(ErrnoCause("connect", err),
             std::string(ErrnoStatus(err, absl::StrCat("connect ", options_->address.ToString()))
                             .message()));
        return Step::kFailed;
      }
      if (options_->tls == nullptr) {
        transport_ = MakePlainTransport(std::move(connecting_));
        return BeginOpeningExchange();
      }
      absl::StatusOr<std::unique_ptr<Transport>> tls =
          options_->tls->Wrap(std::move(connecting_), options_->server_name);
      if (!tls.ok()) {
        Fail("tls", std::string(tls.status().message()));
        return Step::kFailed;
      }
      transport_ = *std::move(tls);
      SetPhase(ConnectionPhase::kTls);
      [[fallthrough]];
    }
    case ConnectionPhase::kTls: {
      IoResult r = transport_->Handshake();
      if (r.status == IoStatus::kWantRead) return Step::kWantRead;
      if (r.status == IoStatus::kWantWrite) return Step::kWantWrite;
      if (r.status != IoStatus::kOk) {
        Fail("tls", absl::StrCat("TLS handshake with ", options_->address.ToString(), ": ",
                                 r.status == IoStatus::kEof ? "connection closed" : r.message));
        return Step::kFailed;
      }
      return BeginOpeningExchange();
    }
    case ConnectionPhase::kOpening: {
      while (!pending_.empty()) {
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
        IoResult r = transport_->Read(in_.WritableSpace(4096), 4096);
        if (r.status == IoStatus::kWantRead || r.status == IoStatus::kWantWrite) {
          return r.status == IoStatus::kWantRead ? Step::kWantRead : Step::kWantWrite;
        }
        if (r.status == IoStatus::kEof) {
          Fail("opening.eof", "the server closed the connection before answering the opening");
          return Step::kFailed;
        }
        if (r.status != IoStatus::kOk) return FailIo(r, "opening.read");
        in_.CommitWrite(r.bytes);
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
  session_->OnStart(fd_);
  // Bytes that followed the opening answer (a server may send frames right after its 101).
  return in_.empty() ? Step::kIdle : DeliverInput();
}

Step ClientConnection::DeliverInput() {
  ClientSession::InputResult result = session_->OnInput(in_.view());
  in_.Consume(result.consumed);
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

Step ClientConnection::PumpOutput(int max_writes) {
  for (int writes = 0; writes < max_writes; ++writes) {
    if (failed()) return Step::kFailed;
    if (pending_.empty()) {
      if (sending_done_) return Step::kDone;
      ClientSession::Output output = session_->NextOutput();
      pending_ = output.data;
      finish_after_pending_ = output.sending_finished;
      not_before_ = output.not_before;
      if (pending_.empty()) {
        if (!finish_after_pending_) return Step::kIdle;
        sending_done_ = true;
        session_->OnSendingFinished(fd_);
        return Step::kDone;
      }
    }
    IoResult r = transport_->Write(pending_.data(), pending_.size());
    if (r.status == IoStatus::kOk) {
      pending_.remove_prefix(r.bytes);
      if (pending_.empty() && finish_after_pending_) {
        sending_done_ = true;
        session_->OnSendingFinished(fd_);
        return Step::kDone;
      }
      continue;
    }
    if (r.status == IoStatus::kWantWrite || r.status == IoStatus::kWantRead)
      return Step::kWantWrite;
    return FailIo(r, "write");
  }
  return Step::kYield;
}

Step ClientConnection::PumpInput(int max_reads) {
  for (int reads = 0; reads < max_reads; ++reads) {
    if (failed()) return Step::kFailed;
    IoResult r = transport_->Read(in_.WritableSpace(kReadSize), kReadSize);
    if (r.status == IoStatus::kOk) {
      in_.CommitWrite(r.bytes);
      if (const Step step = DeliverInput(); step != Step::kIdle) return step;
      // A short read emptied the socket, and TLS holds nothing more: reading again would only
      // return EAGAIN (one wasted syscall a wakeup).
      if (r.bytes < kReadSize && transport_->Pending() == 0) return Step::kWantRead;
      continue;
    }
    if (r.status == IoStatus::kWantRead || r.status == IoStatus::kWantWrite) return Step::kWantRead;
    if (r.status == IoStatus::kEof) {
      std::string cause = session_->OnPeerClosed();
      if (cause.empty()) {
        SetPhase(ConnectionPhase::kFinished);
        return Step::kDone;
      }
      Fail(cause, "the server closed the connection before the session was complete");
      return Step::kFailed;
    }
    return FailIo(r, "read");
  }
  return Step::kYield;
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
       absl::StrCat("connection ", index_, " was still ", ConnectionPhaseName(phase()),
                    " when the run ended (", cause, ")"));
}

void ClientConnection::Fail(std::string cause, std::string text) {
  // The sending and receiving sides may fail at once (threads model); the first one says why.
  if (failed_.exchange(true, std::memory_order_acq_rel)) return;
  error_cause_ = std::move(cause);
  error_text_ = std::move(text);
}

Step ClientConnection::FailIo(const IoResult& r, const char* operation) {
  Fail(r.error != 0 ? ErrnoCause(operation, r.error) : absl::StrCat(operation, ".tls"), r.message);
  return Step::kFailed;
}

}  // namespace internal
}  // namespace netbench
