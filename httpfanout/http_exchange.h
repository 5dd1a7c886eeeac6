// One HTTP/1.1 GET on a connected Transport (plain TCP or TLS), as a resumable state machine
// written once for every concurrency model: event loops call Advance() when the socket is ready;
// the threads model calls it on a blocking socket, where it runs to the end in one call.
//
//   HttpExchange exchange;
//   exchange.Start(transport.get(), &request_bytes, /*handshake=*/true, MonotonicNanos());
//   HttpExchange::Step step = exchange.Advance();
//   // kWantRead / kWantWrite: wait for that readiness and call Advance() again.
//   // kDone: exchange.status(), exchange.body_bytes(), exchange.keep_alive(), exchange.timing().
//   // kFailed: exchange.error() says why (errno and text).
#ifndef NETBENCH_HTTPFANOUT_HTTP_EXCHANGE_H_
#define NETBENCH_HTTPFANOUT_HTTP_EXCHANGE_H_

#include <cstdint>
#include <string>

#include "common/byte_buffer.h"
#include "common/transport.h"
#include "httpfanout/body_reader.h"
#include "httpfanout/response_parser.h"

namespace netbench {

// When each phase of one request ended (MonotonicNanos()); 0 for a phase that did not happen.
struct ExchangeTiming {
  int64_t start = 0;           // the request was begun (before connect)
  int64_t connected = 0;       // TCP connected
  int64_t handshake_done = 0;  // TLS handshake finished (0 for plain TCP or a reused connection)
  int64_t request_sent = 0;    // the last request byte was written
  int64_t first_byte = 0;      // the first response byte arrived
  int64_t done = 0;            // the body has been read whole
};

// Why a request failed: a class for counting, the errno when the system gave one, and the text.
struct ExchangeError {
  std::string cause;  // "ECONNRESET", "tls", "http.bad_status_line", "truncated", "timeout", ...
  int err = 0;        // errno, or 0
  std::string message;
  bool before_response = false;  // no response byte had arrived: a reused connection may be retried
};

class HttpExchange {
 public:
  enum class Step { kWantRead, kWantWrite, kDone, kFailed };

  // Read size: a 25 KB page arrives in one or two reads; the buffer is kept across requests.
  static constexpr size_t kReadSize = 32 * 1024;

  // Begins a request on `transport` (not owned). `request` is the whole request head and must
  // outlive the exchange. `handshake`: drive Transport::Handshake first (a new TLS connection).
  // `verify_checksum`: compute a FNV-1a checksum of the body (tests; costs a pass over the bytes).
  void Start(Transport* transport, const std::string* request, bool handshake,
             bool verify_checksum);

  Step Advance();

  int status() const { return head_.status; }
  uint64_t body_bytes() const { return body_.body_bytes(); }
  uint64_t checksum() const { return checksum_; }
  uint64_t bytes_read() const { return bytes_read_; }
  // The connection can carry the next request.
  bool keep_alive() const { return keep_alive_; }
  const ExchangeError& error() const { return error_; }
  ExchangeTiming& timing() { return timing_; }
  const ExchangeTiming& timing() const { return timing_; }

 private:
  enum class State { kHandshake, kWrite, kReadHead, kReadBody, kDone, kFailed };

  Step Fail(std::string cause, int err, std::string message);
  Step FailIo(const IoResult& r, const char* what);
  // Parses what is buffered; returns kDone/kFailed, or kWantRead for more.
  Step Consume();

  Transport* transport_ = nullptr;
  const std::string* request_ = nullptr;
  size_t written_ = 0;
  State state_ = State::kDone;
  bool verify_checksum_ = false;
  bool keep_alive_ = false;
  bool any_response_byte_ = false;
  ByteBuffer in_;
  size_t last_len_ = 0;
  ResponseHead head_;
  BodyReader body_;
  uint64_t checksum_ = 0;
  uint64_t bytes_read_ = 0;
  ExchangeError error_;
  ExchangeTiming timing_;
};

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_HTTP_EXCHANGE_H_
