#include "httpfanout/origin_handler.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/clock.h"
#include "httpfanout/origin_body.h"
#include "httpfanout/request_parser.h"

namespace netbench {
namespace {

std::string ChunkedBody(const std::string& body, size_t chunk_size) {
  std::string out;
  for (size_t offset = 0; offset < body.size(); offset += chunk_size) {
    size_t n = std::min(chunk_size, body.size() - offset);
    absl::StrAppendFormat(&out, "%x\r\n", n);
    out.append(body, offset, n);
    out += "\r\n";
  }
  out += "0\r\n\r\n";
  return out;
}

std::string ErrorResponse(int status, const char* reason, absl::string_view why) {
  std::string body = absl::StrCat(status, " ", reason, ": ", why, "\n");
  return absl::StrCat("HTTP/1.1 ", status, " ", reason,
                      "\r\nServer: netbench-origin\r\nContent-Type: text/plain\r\nContent-Length: ",
                      body.size(), "\r\nConnection: close\r\n\r\n", body);
}

class OriginHandler : public ConnectionHandler {
 public:
  explicit OriginHandler(std::shared_ptr<const OriginContent> content)
      : content_(std::move(content)) {}

  HandlerResult OnData(absl::string_view input, ByteBuffer& output) override {
    HandlerResult result;
    size_t used = 0;
    bool answered = false;
    while (used < input.size()) {
      if (skip_body_ > 0) {  // a request body (Content-Length) is read and dropped
        size_t n = static_cast<size_t>(std::min<uint64_t>(skip_body_, input.size() - used));
        used += n;
        skip_body_ -= n;
        continue;
      }
      // Pipelined requests beyond the output bound wait unparsed, as input (which the server
      // bounds), until the responses before them have gone out.
      if (OutputFull(output)) break;
      HttpError error;
      int n = ParseRequestHead(input.data() + used, input.size() - used, last_len_, &head_, &error);
      if (n == kHttpNeedMore) {
        last_len_ = input.size() - used;
        break;
      }
      last_len_ = 0;
      if (n == kHttpParseError) {
        output.Append(
            error == HttpError::kHeadTooLarge
                ? ErrorResponse(431, "Request Header Fields Too Large", HttpErrorText(error))
                : ErrorResponse(400, "Bad Request", HttpErrorText(error)));
        result.consumed = input.size();
        result.close = true;
        return result;
      }
      used += n;
      if (head_.chunked) {
        output.Append(
            ErrorResponse(411, "Length Required", "chunked request bodies are not accepted"));
        result.consumed = input.size();
        result.close = true;
        return result;
      }
      if (head_.content_length > 0) skip_body_ = static_cast<uint64_t>(head_.content_length);
      const bool keep_alive = head_.keep_alive();
      const bool head_only = head_.method == "HEAD";
      output.Append(content_->Response(head_.minor_version, keep_alive, head_only));
      answered = true;
      if (!keep_alive) {
        result.close = true;
        used = input.size();
        break;
      }
    }
    result.consumed = used;
    if (answered && content_->options().latency_nanos > 0) {
      result.send_not_before_nanos = MonotonicNanos() + content_->options().latency_nanos;
    }
    return result;
  }

  // A partial head is buffered (the parser asked for more after seeing some of it).
  bool AwaitingHead() const override { return last_len_ > 0; }

 private:
  std::shared_ptr<const OriginContent> content_;
  RequestHead head_;
  size_t last_len_ = 0;
  uint64_t skip_body_ = 0;
};

}  // namespace

OriginContent::OriginContent(const OriginOptions& options)
    : options_(options), body_(MakeOriginBody(options.body_size)), body_checksum_(Fnv1a64(body_)) {
  if (options_.chunk_size == 0) options_.chunk_size = 8192;
  const std::string chunked = ChunkedBody(body_, options_.chunk_size);
  for (int http11 = 0; http11 < 2; ++http11) {
    for (int keep_alive = 0; keep_alive < 2; ++keep_alive) {
      for (int head_only = 0; head_only < 2; ++head_only) {
        // HTTP/1.0 clients cannot read chunked bodies: they always get Content-Length.
        bool use_chunked = options_.chunked && http11;
        std::string head = absl::StrCat(
            "HTTP/1.1 200 OK\r\nServer: netbench-origin\r\nContent-Type: text/html\r\n",
            use_chunked ? "Transfer-Encoding: chunked\r\n"
                        : absl::StrCat("Content-Length: ", body_.size(), "\r\n"),
            keep_alive ? (http11 ? "" : "Connection: keep-alive\r\n") : "Connection: close\r\n",
            "\r\n");
        if (!head_only) head += use_chunked ? chunked : body_;
        responses_[http11][keep_alive][head_only] = std::move(head);
      }
    }
  }
}

const std::string& OriginContent::Response(int minor_version, bool keep_alive,
                                           bool head_only) const {
  return responses_[minor_version >= 1 ? 1 : 0][keep_alive ? 1 : 0][head_only ? 1 : 0];
}

HandlerFactory OriginHandlerFactory(std::shared_ptr<const OriginContent> content) {
  return [content] { return std::make_unique<OriginHandler>(content); };
}

}  // namespace netbench
