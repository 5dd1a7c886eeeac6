#include "httpfanout/http_exchange.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/errno_status.h"
#include "httpfanout/origin_body.h"

namespace netbench {

void HttpExchange::Start(Transport* transport, const std::string* request, bool handshake,
                         bool verify_checksum) {
  transport_ = transport;
  request_ = request;
  written_ = 0;
  state_ = handshake ? State::kHandshake : State::kWrite;
  verify_checksum_ = verify_checksum;
  keep_alive_ = false;
  any_response_byte_ = false;
  in_.Clear();
  last_len_ = 0;
  head_.status = 0;
  body_.Start(BodyFraming::kNone, 0);
  checksum_ = kFnv1a64Offset;
  bytes_read_ = 0;
  error_ = ExchangeError();
}

HttpExchange::Step HttpExchange::Fail(std::string cause, int err, std::string message) {
  state_ = State::kFailed;
  error_.cause = std::move(cause);
  error_.err = err;
  error_.message = std::move(message);
  error_.before_response = !any_response_byte_;
  keep_alive_ = false;
  return Step::kFailed;
}

HttpExchange::Step HttpExchange::FailIo(const IoResult& r, const char* what) {
  if (r.error != 0) {
    return Fail(std::string(ErrnoName(r.error)), r.error, absl::StrCat(what, ": ", r.message));
  }
  return Fail(transport_->name() == absl::string_view("tls") ? "tls" : "io", 0,
              absl::StrCat(what, ": ", r.message));
}

HttpExchange::Step HttpExchange::Advance() {
  for (;;) {
    switch (state_) {
      case State::kHandshake: {
        IoResult r = transport_->Handshake();
        if (r.status == IoStatus::kWantRead) return Step::kWantRead;
        if (r.status == IoStatus::kWantWrite) return Step::kWantWrite;
        if (r.status != IoStatus::kOk) {
          if (r.status == IoStatus::kEof)
            return Fail("eof_in_handshake", 0, "TLS handshake: connection closed");
          return FailIo(r, "TLS handshake");
        }
        timing_.handshake_done = MonotonicNanos();
        state_ = State::kWrite;
        break;
      }
      case State::kWrite: {
        while (written_ < request_->size()) {
          IoResult r = transport_->Write(request_->data() + written_, request_->size() - written_);
          if (r.status == IoStatus::kOk) {
            written_ += r.bytes;
          } else if (r.status == IoStatus::kWantWrite) {
            return Step::kWantWrite;
          } else if (r.status == IoStatus::kWantRead) {
            return Step::kWantRead;
          } else {
            return FailIo(r, "write request");
          }
        }
        timing_.request_sent = MonotonicNanos();
        state_ = State::kReadHead;
        break;
      }
      case State::kReadHead:
      case State::kReadBody: {
        IoResult r = transport_->Read(in_.WritableSpace(kReadSize), kReadSize);
        if (r.status == IoStatus::kOk) {
          in_.CommitWrite(r.bytes);
          bytes_read_ += r.bytes;
          if (!any_response_byte_) {
            any_response_byte_ = true;
            timing_.first_byte = MonotonicNanos();
          }
          Step step = Consume();
          if (step != Step::kWantRead) return step;
          break;  // read again: a blocking socket waits there, a non-blocking one says kWantRead
        }
        if (r.status == IoStatus::kWantRead) return Step::kWantRead;
        if (r.status == IoStatus::kWantWrite) return Step::kWantWrite;
        if (r.status == IoStatus::kEof) {
          if (state_ == State::kReadBody && body_.OnEof()) {
            keep_alive_ = false;
            state_ = State::kDone;
            timing_.done = MonotonicNanos();
            return Step::kDone;
          }
          if (!any_response_byte_)
            return Fail("eof_before_response", 0, "connection closed before any response");
          return Fail("truncated", 0,
                      state_ == State::kReadHead ? "connection closed inside the response head"
                                                 : absl::StrCat("connection closed after ",
                                                                body_.body_bytes(), " body bytes"));
        }
        return FailIo(r, "read response");
      }
      case State::kDone:
        return Step::kDone;
      case State::kFailed:
        return Step::kFailed;
    }
  }
}

HttpExchange::Step HttpExchange::Consume() {
  while (state_ == State::kReadHead) {
    HttpError error;
    int n = ParseResponseHead(in_.data(), in_.size(), last_len_, &head_, &error);
    if (n == kHttpNeedMore) {
      last_len_ = in_.size();
      return Step::kWantRead;
    }
    if (n == kHttpParseError) {
      return Fail(absl::StrCat("http.", HttpErrorName(error)), 0,
                  absl::StrCat("bad response: ", HttpErrorText(error)));
    }
    in_.Consume(n);
    last_len_ = 0;
    // Interim responses (100 Continue, 103 Early Hints) precede the real one.
    if (head_.status >= 100 && head_.status < 200 && head_.status != 101) continue;
    body_.Start(head_.framing(), head_.content_length);
    keep_alive_ = head_.keep_alive();
    state_ = State::kReadBody;
  }
  ptrdiff_t n = body_.Feed(in_.view(), [this](absl::string_view data) {
    if (verify_checksum_) checksum_ = Fnv1a64Update(checksum_, data);
  });
  if (n < 0) {
    return Fail(absl::StrCat("http.", HttpErrorName(body_.error())), 0,
                absl::StrCat("bad response body: ", HttpErrorText(body_.error())));
  }
  in_.Consume(n);
  if (!body_.done()) return Step::kWantRead;
  // Bytes after the response were not asked for: the connection is not fit for another request.
  if (!in_.empty()) keep_alive_ = false;
  in_.Clear();
  state_ = State::kDone;
  timing_.done = MonotonicNanos();
  return Step::kDone;
}

}  // namespace netbench
