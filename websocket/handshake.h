// The WebSocket opening handshake (RFC 6455 section 4): the server parses the client's HTTP/1.1
// Upgrade request and answers 101 with Sec-WebSocket-Accept, or an HTTP error; the client builds
// the request with a random key and checks the server's answer.
//
// Server:
//   HandshakeRequest request;
//   int status;
//   int n = ParseHandshakeRequest(in.view(), &request, &status);
//   if (n == kHandshakeNeedMore) return;  // wait for the rest of the request
//   if (n == kHandshakeError) {
//     AppendHandshakeRejection(status, "bad request", out);
//     return CloseOnceWritten();
//   }
//   AppendHandshakeResponse(request.key, out);
//   in.Consume(n);  // frames may follow at once
//
// Client:
//   std::string key = GenerateHandshakeKey();  // 16 bytes from RAND_bytes, base64
//   Send(BuildHandshakeRequest("127.0.0.1:8080", "/echo", key));
//   absl::Status error;
//   int n = ParseHandshakeResponse(in.view(), key, &error);  // > 0: frames start at n
//
// Requests are bounded (kMaxHandshakeSize): a longer one is answered 400 without being buffered any
// further.
#ifndef NETBENCH_WEBSOCKET_HANDSHAKE_H_
#define NETBENCH_WEBSOCKET_HANDSHAKE_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/byte_buffer.h"

namespace netbench::websocket {

inline constexpr int kHandshakeNeedMore = -2;
inline constexpr int kHandshakeError = -1;
inline constexpr size_t kMaxHandshakeSize = 8192;
inline constexpr size_t kAcceptKeySize = 28;  // base64 of a 20-byte SHA-1

// Views into the parsed request.
struct HandshakeRequest {
  absl::string_view path;  // the request target, e.g. "/echo"
  absl::string_view host;
  absl::string_view key;        // Sec-WebSocket-Key
  absl::string_view origin;     // empty when absent
  absl::string_view protocols;  // Sec-WebSocket-Protocol, empty when absent
};

// Parses a client's opening handshake at the start of `data`. Returns the request's size in bytes
// (through the blank line), kHandshakeNeedMore, or kHandshakeError with *http_status set: 426 for a
// missing or unsupported Sec-WebSocket-Version, 400 for anything else (not GET, not HTTP/1.1,
// missing or wrong Host, Upgrade, Connection or key, a malformed or oversized request).
int ParseHandshakeRequest(absl::string_view data, HandshakeRequest* request, int* http_status,
                          size_t max_size = kMaxHandshakeSize);

// Writes base64(SHA-1(key + RFC 6455's GUID)) into `out` (kAcceptKeySize bytes, no terminator).
void ComputeAcceptKey(absl::string_view key, char* out);
std::string ComputeAcceptKey(absl::string_view key);

// The 101 Switching Protocols answer.
void AppendHandshakeResponse(absl::string_view key, ByteBuffer& out);
// An HTTP error answer with a short text body; 426 carries "Sec-WebSocket-Version: 13".
void AppendHandshakeRejection(int http_status, absl::string_view why, ByteBuffer& out);

// 16 random bytes from BoringSSL's RAND_bytes, base64-encoded.
std::string GenerateHandshakeKey();
// The client's Upgrade request. `host` is the Host header's value ("127.0.0.1:8080").
std::string BuildHandshakeRequest(absl::string_view host, absl::string_view path,
                                  absl::string_view key);
// Parses the server's answer to a request made with `key`: returns its size, kHandshakeNeedMore, or
// kHandshakeError with *error saying what was wrong (not 101, missing headers, a wrong accept
// value).
int ParseHandshakeResponse(absl::string_view data, absl::string_view key, absl::Status* error,
                           size_t max_size = kMaxHandshakeSize);

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_HANDSHAKE_H_
