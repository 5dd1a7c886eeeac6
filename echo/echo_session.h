// The echo load generator's protocol part (common/client_session.h): what one connection sends and
// how it checks what comes back. The driver (common/client_driver.h) runs it on any model.
//
//   stream    EchoStreamSession: sends without waiting (duplex), as the Go spammer's writer
//             goroutine does; paced when LoadOptions::rate is set (open loop, wrk2's correction)
//   pipeline  EchoPipelineSession: `pipeline` messages in flight, each answered before the next
//             goes; 1 is ping-pong
//
// Every echoed byte is checked against the stream of repeated messages (EchoPattern), one memcmp
// per read.
#ifndef NETBENCH_ECHO_ECHO_SESSION_H_
#define NETBENCH_ECHO_ECHO_SESSION_H_

#include <cstdint>
#include <memory>
#include <string>

#include "common/client_driver.h"
#include "common/client_session.h"
#include "echo/load_generator.h"
#include "echo/message.h"

namespace netbench {
namespace echo {

// Read-only state every session of a run shares.
struct EchoRun {
  EchoRun(const LoadOptions& options, int connections);

  const LoadOptions& options;
  const int connections;
  const std::string message;
  const std::string batch_buffer;  // the message repeated max(batch, pipeline) times
  const EchoPattern pattern;
  const double rate_interval_nanos;  // rate mode: between two messages of one connection
  // Messages connection `index` may send: its share of LoadOptions::messages, or unbounded.
  uint64_t Budget(int index) const;
};

// The latency histograms a run records, by name (see LoadResult::latency).
void AddLatencyHistograms(const LoadOptions& options, ClientStats& stats);

std::unique_ptr<ClientSession> MakeEchoSession(const EchoRun& run, const SessionContext& context);

}  // namespace echo
}  // namespace netbench

#endif  // NETBENCH_ECHO_ECHO_SESSION_H_
