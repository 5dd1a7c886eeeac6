// The fan-out's protocol part (common/client_session.h): one GET and its response, read whole with
// the response parser and body reader, on a connection the driver opened for it or took from its
// pool. The driver (common/client_driver.h) runs a session per request, on any model; the session
// times the request's phases and writes its outcome.
//
//   FanoutRequests requests{.request = &head, .outcomes = &outcomes, .timeout_nanos = timeout};
//   RunClientDriver(options, [&](const SessionContext& context) -> std::unique_ptr<ClientSession> {
//     if (context.sequence >= requests.outcomes->size()) return nullptr;  // all sent
//     return MakeFanoutSession(requests, context);
//   });
//
// Request number `context.sequence` writes only outcomes[sequence] (its phases' latencies
// included), so no lock is taken per request and no thread keeps histograms of its own.
#ifndef NETBENCH_HTTPFANOUT_FANOUT_SESSION_H_
#define NETBENCH_HTTPFANOUT_FANOUT_SESSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/client_driver.h"
#include "common/client_session.h"
#include "common/transport.h"
#include "httpfanout/request_outcome.h"

namespace netbench {

// What the requests of one repetition share.
struct FanoutRequests {
  const std::string* request = nullptr;             // the request head, sent as is
  std::vector<RequestOutcome>* outcomes = nullptr;  // one per request, indexed by sequence
  int64_t timeout_nanos = 0;                        // the whole request's, for its error message
  bool verify_checksum = false;                     // hash every body (a pass over the bytes)
  // Each completed TLS handshake, for the protocol and cipher in the report; thread-safe.
  std::function<void(const Transport&)> on_handshake;
};

std::unique_ptr<ClientSession> MakeFanoutSession(FanoutRequests& requests,
                                                 const SessionContext& context);

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_FANOUT_SESSION_H_
