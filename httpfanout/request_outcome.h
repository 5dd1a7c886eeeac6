// What happened to one GET of a fan-out: its status and body, or why it failed, in the words the
// fan-out counts errors by ("ECONNREFUSED", "timeout", "connect_timeout", "tls",
// "http.bad_status_line", "truncated", ...).
//
//   for (const RequestOutcome& o : rep.outcomes) {
//     if (!o.ok) std::printf("%s: %s\n", o.error.cause.c_str(), o.error.message.c_str());
//   }
#ifndef NETBENCH_HTTPFANOUT_REQUEST_OUTCOME_H_
#define NETBENCH_HTTPFANOUT_REQUEST_OUTCOME_H_

#include <cstdint>
#include <string>

namespace netbench {

// Why a request failed: a class for counting, the errno when the system gave one, and the text.
struct RequestError {
  // The errno's name ("ECONNREFUSED", "ECONNRESET"), "timeout" (the whole request),
  // "connect_timeout", "tls", "eof_in_handshake", "eof_before_response", "truncated", "http.<parse
  // error>", ...
  std::string cause;
  int err = 0;  // errno (ETIMEDOUT for the timeouts), or 0
  std::string message;
  bool before_response = false;  // no response byte had arrived
};

// How long each phase of a request took (ns), as hey reports them: connect (TCP), tls (handshake),
// write (the request), ttfb (request written to first response byte), body (first byte to last),
// total (start to last byte). -1: a phase the request did not go through (no connect on a kept
// connection, no handshake for http, nothing after a failure).
struct RequestPhases {
  int64_t connect = -1;
  int64_t tls = -1;
  int64_t write = -1;
  int64_t ttfb = -1;
  int64_t body = -1;
  int64_t total = -1;
};

struct RequestOutcome {
  bool ok = false;  // a complete response was read (any status code)
  int status = 0;
  uint64_t body_bytes = 0;
  uint64_t checksum = 0;    // FNV-1a of the body, with FanoutOptions::verify_checksum
  uint64_t bytes_read = 0;  // heads and framing included (TLS: decrypted)
  RequestError error;       // when !ok
  RequestPhases phases;
};

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_REQUEST_OUTCOME_H_
