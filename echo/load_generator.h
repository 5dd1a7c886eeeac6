// The echo load generator: N connections to an echo server, each sending the write-up's 22-byte
// message, checking every echoed byte, and measuring messages/s, round-trip latency and its own CPU
// per message.
//
// Modes:
//   stream    the reference "spammer": the message in a tight loop, one write() per message
//             (--batch messages per write), without waiting; the echoes are read back beside it.
//             With `rate` the sender is paced (open loop) and latency counts from each message's
//             intended send time, correcting coordinated omission as wrk2 does.
//   pipeline  `pipeline` messages in flight per connection, each answered before the next is sent;
//             1 is ping-pong. Every round trip is timed.
// Models: those of every netbench client and server (common/client_driver.h): threads (a thread
// per connection, and a writer thread beside it in stream mode, like the Go spammer's goroutines),
// poll and epoll (`threads` event loops over all connections).
//
//   LoadOptions options;
//   options.port = server_port;
//   options.clients = 3;
//   options.messages = 100000;           // or duration_nanos
//   LoadResult result = RunLoad(options);
//   if (!result.ok()) std::cerr << result.failure << "\n";
//   std::cout << "rate: " << result.written_per_second() << " msgs/s\n";
//
// RunLoad always stops by itself: `timeout_nanos` bounds the whole run, connecting included; the
// sending phase is bounded by `messages` or `duration_nanos`, and echoes still in flight get
// `drain_timeout_nanos`.
#ifndef NETBENCH_ECHO_LOAD_GENERATOR_H_
#define NETBENCH_ECHO_LOAD_GENERATOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/client_driver.h"
#include "common/clock.h"
#include "common/cpu_time.h"
#include "common/flag_agreement.h"
#include "common/histogram.h"

namespace netbench {
namespace echo {

enum class LoadMode { kStream, kPipeline };

// "stream", "pingpong" (pipeline of 1) or "pipeline"; pingpong sets *pipeline to 1.
absl::StatusOr<LoadMode> ParseLoadMode(absl::string_view name);
const char* LoadModeName(LoadMode mode);

// Progress once a second, from the thread that called RunLoad.
struct LoadProgress {
  int64_t elapsed_nanos = 0;  // since the start of the measured phase (negative while warming up)
  double written_per_second = 0;  // over the last second
  double echoed_per_second = 0;
  uint64_t written_total = 0;  // since the start of the measured phase
  uint64_t echoed_total = 0;
  uint64_t errors = 0;
};

struct LoadOptions {
  std::string host = "127.0.0.1";
  int port = 7000;
  int clients = 3;
  // Sending stops after `messages` messages in all (split evenly over the connections) or, when
  // messages == 0, after `duration_nanos` of measurement.
  int64_t messages = 0;
  int64_t duration_nanos = 10 * kNanosPerSecond;
  // Load before measuring (duration runs only): counters and histograms start after it.
  int64_t warmup_nanos = 0;
  int size = 22;
  LoadMode mode = LoadMode::kStream;
  int pipeline = 1;  // messages in flight per connection in kPipeline
  int batch = 1;     // messages per write in kStream
  ClientModel model = ClientModel::kThreads;
  int threads = 1;  // event loops for poll and epoll
  // Total messages/s, open loop (kStream only); 0: as fast as the server takes them.
  double rate = 0;
  bool no_delay = true;  // TCP_NODELAY, as Go sets by default
  // TLS when set (not owned): every connection's handshake is done before the load starts, and the
  // certificate is checked against `host`.
  TlsClientContext* tls = nullptr;
  // Stream mode as fast as possible: the reader asks the kernel to wake it only once this many
  // echoed bytes wait (SO_RCVLOWAT), not once per echoed segment. Each wakeup costs both ends CPU
  // (the server's write wakes the reader), and the reader needs no timing of its own in this mode;
  // "rtt_sampled" then includes up to this much coalescing. 0: wake on every segment.
  int read_coalesce_bytes = 16 * 1024;
  // After sending stops, a write blocked on a server that stopped reading gets this long to finish,
  // and echoes still missing this long after are counted as errors ("echo.missing").
  int64_t drain_timeout_nanos = 5 * kNanosPerSecond;
  // Bound on the whole run, connecting included; 0: warmup + duration + drain + 10 s, or 120 s for
  // a `messages` run.
  int64_t timeout_nanos = 0;
  std::function<void(const LoadProgress&)> progress;  // optional
  // Messages written and echoed per interval of this length over the measured phase
  // (LoadResult::series); 0: none, else at least kMinSeriesIntervalNanos.
  int64_t series_interval_nanos = 100 * kNanosPerMilli;
};

// The read coalescing a connection uses: options.read_coalesce_bytes in unpaced stream mode, else
// 0.
int ReadCoalesceBytes(const LoadOptions& options);

// Checks the options and says what is wrong with them, flag by flag.
absl::Status ValidateLoadOptions(const LoadOptions& options);

// --timeout against the run it bounds (common/flag_agreement.h): a --duration run lasts --warmup +
// --duration + --drain_timeout at most, and a given --timeout must hold that. Over a default
// --duration, --timeout wins and the duration is lowered to fit (the returned note says so); with
// --duration given too, or when --timeout does not even hold --warmup + --drain_timeout, an
// InvalidArgument error names both flags and the --timeout that would work. --timeout=0 (the
// default) derives the bound from the run, and --messages runs have no duration: both agree as they
// are. The values come from `options` (the settings say which flags were given); its
// duration_nanos may be lowered.
absl::StatusOr<std::string> AgreeRunTimeout(FlagSetting timeout, FlagSetting duration,
                                            LoadOptions& options);

struct LoadResult {
  int connections = 0;
  // Over the measured phase (after warmup, until sending stopped).
  int64_t elapsed_nanos = 0;
  uint64_t messages_written = 0;
  uint64_t messages_echoed = 0;
  // Over the whole run, after draining: every written message should have come back.
  uint64_t total_written = 0;
  uint64_t total_echoed = 0;
  // Connections still open when the drain timeout ran out, ended by the client (with their missing
  // echoes counted as errors). 0 in a healthy run: a connection ends by itself once all its echoes
  // are back.
  int aborted_connections = 0;
  uint64_t write_stalls = 0;  // writes that waited over 50 ms for socket space (not errors)
  CpuTimes cpu;               // this process over the measured phase
  // Per interval of the measured phase: `sent` messages written, `received` echoed; they add up to
  // messages_written and messages_echoed (client_series.h).
  ClientSeries series;
  // System calls the client driver made over the whole run, opening included (ClientStats).
  uint64_t system_calls = 0;
  // Round-trip times in ns: "rtt" (pipeline: every message), "rtt_sampled" (stream: 1 message in
  // 1024), "rtt_corrected" and "rtt_raw" (rate: from the intended and the actual send time of every
  // message).
  std::map<std::string, LatencyHistogram> latency;
  // Errors by cause: "connect.ECONNREFUSED", "read.ECONNRESET", "read.eof" (closed before echoing
  // all), "echo.mismatch" (messages with a wrong byte), "echo.missing", "echo.extra_bytes",
  // "timeout", ...
  std::map<std::string, int64_t> errors;
  // Why the run failed, in one line; empty when it did not.
  std::string failure;

  uint64_t error_count() const;
  bool ok() const { return failure.empty() && error_count() == 0; }
  double written_per_second() const;
  double echoed_per_second() const;
  double cpu_nanos_per_message() const;
  // system_calls over total_written: the whole run's calls per message sent.
  double system_calls_per_message() const;
};

LoadResult RunLoad(const LoadOptions& options);

}  // namespace echo
}  // namespace netbench

#endif  // NETBENCH_ECHO_LOAD_GENERATOR_H_
