// The origin server's protocol side: answers every GET (or HEAD) with one page, optionally chunked
// and after an emulated network latency, keeping connections alive as HTTP/1.1 allows. Runs on any
// server model (common/server.h).
//
//   auto content = std::make_shared<const OriginContent>(OriginOptions{.body_size = 25600});
//   absl::StatusOr<std::unique_ptr<Server>> server =
//       Server::Start({.port = 9080}, OriginHandlerFactory(content));
//
// A malformed request gets "400 Bad Request" (431 for oversize heads) and its connection is closed;
// other connections are not affected. Memory per connection stays bounded: a client that pipelines
// many requests without reading gets its answers up to a limit, then "Connection: close".
#ifndef NETBENCH_HTTPFANOUT_ORIGIN_HANDLER_H_
#define NETBENCH_HTTPFANOUT_ORIGIN_HANDLER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/connection_handler.h"

namespace netbench {

struct OriginOptions {
  size_t body_size = 25600;
  int64_t latency_nanos = 0;  // hold each response this long after its request arrived
  bool chunked = false;  // Transfer-Encoding: chunked (HTTP/1.1 clients) instead of Content-Length
  size_t chunk_size = 8192;
};

// The page and the response heads, built once and shared by every connection.
class OriginContent {
 public:
  explicit OriginContent(const OriginOptions& options);

  const OriginOptions& options() const { return options_; }
  const std::string& body() const { return body_; }
  uint64_t body_checksum() const { return body_checksum_; }

  // The complete response (head and body; the head alone for HEAD) for a request of HTTP/1.x
  // `minor_version`, keeping the connection alive or not.
  const std::string& Response(int minor_version, bool keep_alive, bool head_only) const;

 private:
  OriginOptions options_;
  std::string body_;
  uint64_t body_checksum_;
  // [chunked-capable][keep_alive][head_only]
  std::string responses_[2][2][2];
};

HandlerFactory OriginHandlerFactory(std::shared_ptr<const OriginContent> content);

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_ORIGIN_HANDLER_H_
