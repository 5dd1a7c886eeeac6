#include "httpfanout/fanout_session.h"

#include <errno.h>

#include <algorithm>
#include <atomic>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/errno_status.h"
#include "httpfanout/body_reader.h"
#include "httpfanout/http_error.h"
#include "httpfanout/origin_body.h"
#include "httpfanout/response_parser.h"

namespace netbench {
namespace {

class FanoutSession final : public ClientSession {
 public:
  FanoutSession(FanoutRequests& requests, const SessionContext& context)
      : requests_(requests), outcome_((*requests.outcomes)[context.sequence]) {}

  void OnStart(const ConnectionInfo& connection) override {
    started_ = true;
    if (start_ == 0) start_ = connection.begin_nanos;  // a restart keeps the request's start
    if (connection.tls_nanos > 0 && requests_.on_handshake) {
      requests_.on_handshake(*connection.transport);
    }
  }

  Output NextOutput() override {
    if (sent_) return {.sending_finished = true};
    sent_ = true;
    return {.data = *requests_.request, .sending_finished = true};
  }

  void OnSendingFinished(int /*fd*/) override {
    request_sent_ = MonotonicNanos();
    messages_sent_.store(1, std::memory_order_relaxed);
  }

  InputResult OnInput(absl::string_view input) override;

  std::string OnPeerClosed() override {
    if (state_ == State::kBody && body_.OnEof()) {  // a body delimited by the close
      keep_alive_ = false;
      Done();
      return "";
    }
    if (first_byte_ == 0) {
      return Own("eof_before_response", "connection closed before any response");
    }
    return Own("truncated",
               state_ == State::kHead
                   ? "connection closed inside the response head"
                   : absl::StrCat("connection closed after ", body_.body_bytes(), " body bytes"));
  }

  bool IsFinished() const override { return state_ == State::kDone; }
  bool reusable() const override { return keep_alive_; }

  // A GET is idempotent: sent again on a fresh connection when the kept-alive one was dead.
  bool Restart() override {
    started_ = false;
    sent_ = false;
    request_sent_ = 0;
    first_byte_ = 0;
    state_ = State::kHead;
    last_len_ = 0;
    unconsumed_ = 0;
    keep_alive_ = false;
    own_cause_.clear();
    messages_sent_.store(0, std::memory_order_relaxed);
    return true;
  }

  void OnEnd(const SessionEnd& end) override;

  uint64_t messages_sent() const override { return messages_sent_.load(std::memory_order_relaxed); }
  uint64_t messages_received() const override {
    return state_done_.load(std::memory_order_relaxed) ? 1 : 0;
  }

 private:
  enum class State { kHead, kBody, kDone };

  InputResult Fail(std::string cause, std::string text) {
    keep_alive_ = false;
    return {.error = std::move(cause), .error_text = std::move(text)};
  }
  // A cause of the session's own making, whose text OnEnd reports (the driver's is generic).
  std::string Own(std::string cause, std::string text) {
    own_cause_ = cause;
    own_text_ = std::move(text);
    return cause;
  }
  void Done() {
    done_ = MonotonicNanos();
    state_ = State::kDone;
    state_done_.store(true, std::memory_order_relaxed);
  }
  RequestError Describe(const SessionEnd& end) const;
  // Where the request was when it ended, for a timeout's message.
  const char* Phase(const ConnectionInfo& connection) const;

  FanoutRequests& requests_;
  RequestOutcome& outcome_;
  State state_ = State::kHead;
  bool started_ = false;  // the driver handed over the connection (connected, TLS done)
  bool sent_ = false;
  bool keep_alive_ = false;
  size_t last_len_ = 0;  // of the incomplete head at the last call (the parser's incremental hint)
  size_t unconsumed_ = 0;  // bytes left in the driver's buffer at the last call
  ResponseHead head_;
  BodyReader body_;
  int status_ = 0;
  uint64_t checksum_ = kFnv1a64Offset;
  uint64_t bytes_read_ = 0;
  int64_t start_ = 0;
  int64_t request_sent_ = 0;
  int64_t first_byte_ = 0;
  int64_t done_ = 0;
  std::string own_cause_;
  std::string own_text_;
  std::atomic<uint64_t> messages_sent_{0};
  std::atomic<bool> state_done_{false};
};

ClientSession::InputResult FanoutSession::OnInput(absl::string_view input) {
  if (first_byte_ == 0) first_byte_ = MonotonicNanos();
  bytes_read_ += input.size() - unconsumed_;
  size_t used = 0;
  while (state_ == State::kHead) {
    HttpError error;
    const int n =
        ParseResponseHead(input.data() + used, input.size() - used, last_len_, &head_, &error);
    if (n == kHttpNeedMore) {
      last_len_ = input.size() - used;
      unconsumed_ = last_len_;
      return {.consumed = used};
    }
    if (n == kHttpParseError) {
      return Fail(absl::StrCat("http.", HttpErrorName(error)),
                  absl::StrCat("bad response: ", HttpErrorText(error)));
    }
    used += n;
    last_len_ = 0;
    // Interim responses (100 Continue, 103 Early Hints) precede the real one.
    if (head_.status >= 100 && head_.status < 200 && head_.status != 101) continue;
    status_ = head_.status;
    body_.Start(head_.framing(), head_.content_length);
    keep_alive_ = head_.keep_alive();
    state_ = State::kBody;
  }
  const bool verify = requests_.verify_checksum;
  const ptrdiff_t n = body_.Feed(input.substr(used), [&](absl::string_view data) {
    if (verify) checksum_ = Fnv1a64Update(checksum_, data);
  });
  if (n < 0) {
    return Fail(absl::StrCat("http.", HttpErrorName(body_.error())),
                absl::StrCat("bad response body: ", HttpErrorText(body_.error())));
  }
  used += static_cast<size_t>(n);
  unconsumed_ = input.size() - used;
  if (!body_.done()) return {.consumed = used};
  // Bytes after the response were not asked for: the connection is not fit for another request.
  if (used < input.size()) keep_alive_ = false;
  Done();
  return {.consumed = used, .finished = true};
}

RequestError FanoutSession::Describe(const SessionEnd& end) const {
  RequestError error;
  error.before_response = first_byte_ == 0;
  error.message = std::string(end.text);
  if (!own_cause_.empty() && end.cause == own_cause_) {
    error.cause = own_cause_;
    error.message = own_text_;
  } else if (end.cause == "session_timeout" || end.cause == "timeout") {
    // The request's own deadline, or the run's (which only a stuck run reaches).
    error.cause = "timeout";
    error.err = ETIMEDOUT;
    error.message =
        absl::StrCat("no complete response within ", requests_.timeout_nanos / kNanosPerMilli,
                     " ms (", Phase(end.connection), ")");
  } else if (end.cause == "connect_timeout") {
    error.cause = "connect_timeout";
    error.err = ETIMEDOUT;
  } else if (end.error_number != 0) {
    error.cause = ErrnoName(end.error_number);
    error.err = end.error_number;
  } else if (end.cause == "tls.eof") {
    error.cause = "eof_in_handshake";
  } else if (absl::EndsWith(end.cause, ".tls")) {  // "read.tls", "write.tls"
    error.cause = "tls";
  } else {
    error.cause = std::string(end.cause);  // "tls", "http.bad_status_line", ...
  }
  return error;
}

const char* FanoutSession::Phase(const ConnectionInfo& connection) const {
  if (!connection.reused && connection.connected_nanos == 0) return "connecting";
  if (!started_) return "in the TLS handshake";  // the fan-out has no opening exchange
  if (request_sent_ == 0) return "writing the request";
  if (first_byte_ == 0) return "waiting for the response";
  if (state_ == State::kHead) return "reading the response head";
  return "reading the body";
}

void FanoutSession::OnEnd(const SessionEnd& end) {
  RequestOutcome& o = outcome_;
  o.bytes_read = bytes_read_;
  if (end.finished) {
    o.ok = true;
    o.status = status_;
    o.body_bytes = body_.body_bytes();
    o.checksum = checksum_;
  } else {
    o.error = Describe(end);
  }
  // The connection's phases are those of the one it ended on (the fresh one after a restart).
  const ConnectionInfo& c = end.connection;
  RequestPhases& p = o.phases;
  if (c.connected_nanos > 0) p.connect = c.connected_nanos - c.begin_nanos;
  if (c.tls_nanos > 0) p.tls = c.tls_nanos - c.connected_nanos;
  if (request_sent_ > 0) {
    p.write = request_sent_ - std::max({c.begin_nanos, c.connected_nanos, c.tls_nanos});
  }
  if (first_byte_ > 0 && request_sent_ > 0) p.ttfb = first_byte_ - request_sent_;
  if (done_ > 0) {
    p.body = done_ - first_byte_;
    p.total = done_ - (start_ != 0 ? start_ : c.begin_nanos);
  }
}

}  // namespace

std::unique_ptr<ClientSession> MakeFanoutSession(FanoutRequests& requests,
                                                 const SessionContext& context) {
  return std::make_unique<FanoutSession>(requests, context);
}

}  // namespace netbench
