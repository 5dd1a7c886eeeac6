#include "httpfanout/fanout_client.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace netbench {

absl::StatusOr<FanoutModel> ParseFanoutModel(absl::string_view name) {
  std::string lower = absl::AsciiStrToLower(name);
  if (lower == "threads") return FanoutModel::kThreads;
  if (lower == "poll") return FanoutModel::kPoll;
  if (lower == "epoll") return FanoutModel::kEpoll;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown model \"", name, "\" (want threads, poll or epoll)"));
}

const char* FanoutModelName(FanoutModel model) {
  switch (model) {
    case FanoutModel::kThreads:
      return "threads";
    case FanoutModel::kPoll:
      return "poll";
    case FanoutModel::kEpoll:
      return "epoll";
  }
  return "?";
}

bool AbslParseFlag(absl::string_view text, FanoutModel* model, std::string* error) {
  absl::StatusOr<FanoutModel> parsed = ParseFanoutModel(text);
  if (!parsed.ok()) {
    *error = std::string(parsed.status().message());
    return false;
  }
  *model = *parsed;
  return true;
}

std::string AbslUnparseFlag(FanoutModel model) { return FanoutModelName(model); }

FanoutClient::FanoutClient(const FanoutOptions& options, SocketAddress address,
                           int64_t resolve_nanos)
    : options_(options), address_(address), resolve_nanos_(resolve_nanos) {
  // Without keep-alive the request asks the server to close: the server then holds TIME_WAIT, not
  // the client, whose ephemeral ports are the scarcer budget over repeated runs.
  request_ =
      absl::StrCat("GET ", options_.url.target, " HTTP/1.1\r\nHost: ", options_.url.HostHeader(),
                   "\r\nUser-Agent: ", options_.user_agent, "\r\nAccept: */*\r\n",
                   options_.keepalive ? "" : "Connection: close\r\n", "\r\n");
}

absl::StatusOr<std::unique_ptr<FanoutClient>> FanoutClient::Create(const FanoutOptions& options) {
  if (options.requests < 1) return absl::InvalidArgumentError("requests must be >= 1");
  if (options.concurrency < 0) return absl::InvalidArgumentError("concurrency must be >= 0");
  if (options.connect_timeout_nanos <= 0 || options.timeout_nanos <= 0) {
    return absl::InvalidArgumentError("timeouts must be positive");
  }
  if (options.url.tls() && options.tls == nullptr) {
    return absl::InvalidArgumentError("an https URL needs a TLS client context");
  }
  Stopwatch watch;
  absl::StatusOr<std::vector<SocketAddress>> addresses =
      Resolve(options.url.host, options.url.port);
  if (!addresses.ok()) return addresses.status();
  int64_t resolve_nanos = watch.ElapsedNanos();
  if (options.model == FanoutModel::kThreads) {
    return MakeThreadFanoutClient(options, addresses->front(), resolve_nanos);
  }
  std::unique_ptr<FanoutClient> client =
      MakeLoopFanoutClient(options, addresses->front(), resolve_nanos);
  if (client == nullptr) return absl::InternalError("could not create the event loop");
  return client;
}

std::string FanoutClient::tls_description() const {
  std::lock_guard<std::mutex> lock(tls_mutex_);
  return tls_description_;
}

void FanoutClient::NoteTls(const Transport& transport) {
  if (tls_noted_.load(std::memory_order_relaxed)) return;
  const TlsTransport* tls = AsTls(transport);
  if (tls == nullptr) return;
  std::lock_guard<std::mutex> lock(tls_mutex_);
  if (tls_noted_.load(std::memory_order_relaxed)) return;
  tls_description_ = absl::StrCat(tls->version(), " ", tls->cipher());
  tls_noted_.store(true, std::memory_order_relaxed);
}

void FanoutClient::Record(int index, const HttpExchange* exchange, const ExchangeError* failure,
                          const ExchangeTiming& t, RepetitionResult& result) const {
  RequestOutcome& outcome = result.outcomes[index];
  if (failure != nullptr) {
    outcome.ok = false;
    outcome.error = *failure;
    ++result.failed;
    ++result.errors[failure->cause];
  } else {
    outcome.ok = true;
    outcome.status = exchange->status();
    outcome.body_bytes = exchange->body_bytes();
    outcome.checksum = exchange->checksum();
    ++result.ok;
    ++result.status_counts[outcome.status];
    result.body_bytes += outcome.body_bytes;
  }
  if (exchange != nullptr) result.bytes_read += exchange->bytes_read();
  if (t.connected > 0) result.connect.Record(t.connected - t.start);
  if (t.handshake_done > 0) result.tls.Record(t.handshake_done - t.connected);
  if (t.request_sent > 0) {
    result.write.Record(t.request_sent - std::max({t.start, t.connected, t.handshake_done}));
  }
  if (t.first_byte > 0) result.ttfb.Record(t.first_byte - t.request_sent);
  if (t.done > 0) {
    result.body.Record(t.done - t.first_byte);
    result.total.Record(t.done - t.start);
  }
}

}  // namespace netbench
