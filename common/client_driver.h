// One client driver for every load generator: N connections over a concurrency model, as wrk's
// thread_main drives its connections whatever the protocol. The protocol is a ClientSession
// (client_session.h); the driver does everything else:
//
//   open     every connection connects, runs TLS and the session's opening (the WebSocket upgrade),
//            all under the run's one deadline; the run's clock starts once all are open (a start
//            latch), so that no connection's set-up is timed as load
//   load     sessions send and receive; a warmup, a duration and a drain are the driver's, and so
//            are progress once a second and the measured phase's messages per interval (a series,
//            client_series.h)
//   end      per-thread statistics are merged; a connection that failed is counted by cause, and a
//            run cut short by the deadline says in which phase and how far each connection got
//
// A client that times each request's set-up and makes many short exchanges (a fan-out of GETs)
// turns three options on: no start latch (open_before_start = false: connecting is timed work),
// slots whose sessions are replaced as they end (replace_sessions), and a ConnectionPool that keeps
// connections between sessions and runs; per-session deadlines bound each exchange.
//
// Models, the same vocabulary as the servers (server.h):
//   threads  a thread per connection with blocking I/O (a duplex session's sending side gets a
//            second thread, as the Go spammer's writer goroutine)
//   poll     `threads` event loops on poll(2) share the connections
//   epoll    the same on Linux's epoll
//   uring    `threads` loops on io_uring: on plain TCP a standing multishot receive per connection
//            and a send per pending output, all of a pass submitted by the one io_uring_enter that
//            waits (Linux 6.1 on, where UringSupport() says yes; uring_client_runner.cc)
//
//   ClientDriverOptions options;
//   options.address = *address;
//   options.connections = 3;
//   options.model = ClientModel::kEpoll;
//   ClientDriverResult result = RunClientDriver(options, [](const SessionContext& context) {
//     return std::make_unique<EchoSession>(context);
//   });
//   if (!result.ok()) std::cerr << result.failure << "\n";
#ifndef NETBENCH_COMMON_CLIENT_DRIVER_H_
#define NETBENCH_COMMON_CLIENT_DRIVER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "common/client_series.h"
#include "common/client_session.h"
#include "common/clock.h"
#include "common/connection_pool.h"
#include "common/cpu_time.h"
#include "common/histogram.h"
#include "common/server.h"
#include "common/socket.h"

namespace netbench {

class TlsClientContext;  // common/tls.h

// Clients and servers name their models alike: threads, poll, epoll, uring.
using ClientModel = ServerModel;

// The models the driver runs on in this build: threads, poll, epoll where it is built, and uring
// where it is built and this process may use io_uring (UringSupport()). Client tests loop over
// these.
std::vector<ClientModel> AvailableClientModels();
// ParseServerModel for a client's --model; "uring" where this process cannot use io_uring is
// refused with UringSupport()'s cause (FailedPrecondition: a client exits 2 with it).
absl::StatusOr<ClientModel> ParseClientModel(absl::string_view name);

// The run's phases, raised by the driver for sessions to look at (relaxed loads are enough).
struct RunSignals {
  std::atomic<bool> measuring{false};     // warmup is over: record latencies
  std::atomic<bool> stop_sending{false};  // the duration is over: finish what is being sent, stop
};

// What the sessions of one driver thread record; merged over threads at the end of the run, so
// that no histogram is shared while loading.
struct ClientStats {
  std::map<std::string, LatencyHistogram> latency;  // by name, e.g. "rtt"
  std::map<std::string, int64_t> errors;            // by cause, e.g. "read.ECONNRESET"
  uint64_t write_stalls = 0;  // threads model: writes that waited a socket timeout for space
  // System calls the driver made for these sessions, counted by the driver itself as the servers
  // count theirs (ServerStats::system_calls): connects, reads, writes, the loops' waits and watch
  // changes, io_uring enters. Over the whole run, opening included; divide by total_sent.
  uint64_t system_calls = 0;
  // uring: receives that ended for want of a free buffer (ClientDriverOptions::uring_buffers).
  uint64_t receive_buffer_shortages = 0;
  void Merge(const ClientStats& other);
  int64_t error_count() const;
};

// "read.eof x3, timeout x1": error counts by cause, for a one-line failure.
std::string DescribeErrorCounts(const std::map<std::string, int64_t>& errors);

// What a session is made with.
struct SessionContext {
  int slot = 0;  // 0..connections-1: the connection it runs on, or with replace_sessions its slot
  // Sessions made before this one in the run, over every slot: the first sessions are 0..slots-1
  // (slot i gets i), replacements continue from there in the order they are asked for.
  int64_t sequence = 0;
  ClientStats* stats = nullptr;  // its thread's statistics
  const RunSignals* signals = nullptr;
};
// Makes each slot's first session (it must make one), and with replace_sessions the next ones,
// where nullptr ends the slot. Replacements are asked for from the runners' threads, several at
// once: the factory must then be thread-safe.
using SessionFactory = std::function<std::unique_ptr<ClientSession>(const SessionContext&)>;

// How far a connection got; counted per phase when a run fails.
enum class ConnectionPhase { kConnecting, kTls, kOpening, kOpen, kFinished };
inline constexpr int kConnectionPhaseCount = 5;
const char* ConnectionPhaseName(ConnectionPhase phase);

struct ClientProgress {
  int64_t elapsed_nanos = 0;   // since the measured phase began (negative while warming up)
  double sent_per_second = 0;  // over the last second
  double received_per_second = 0;
  uint64_t sent_total = 0;  // over the measured phase
  uint64_t received_total = 0;
};

struct ClientDriverOptions {
  SocketAddress address;
  // TLS when set (not owned); `server_name` is checked against the certificate.
  TlsClientContext* tls = nullptr;
  std::string server_name;
  int connections = 1;
  ClientModel model = DefaultServerModel();
  int threads = 1;  // event loops for poll, epoll and uring
  // The uring model's receive buffers per loop (16 KiB each), lent to the kernel: a power of two
  // up to 32768.
  int uring_buffers = 256;
  bool no_delay = true;  // TCP_NODELAY, as Go sets by default
  // Open every connection before the load starts (the start latch). False: no latch; the load's
  // clock starts at once and each connection's opening is part of the timed work (a fan-out times
  // connect and TLS per request, as Go's net/http and Clojure's HttpClient do); an opening that
  // fails then fails its own session, not the run.
  bool open_before_start = true;
  // `connections` are slots: when a session ends (finished or failed), the factory is asked for the
  // slot's next one, which gets a connection of its own (or one from `pool`), until the factory
  // says nullptr, the run is stopped, or stop_sending is raised. A slot's sending side is done when
  // its last session ended. False: one session per connection.
  bool replace_sessions = false;
  // Idle connections kept between sessions and between runs (not owned; optional): a finished
  // session whose reusable() says so leaves its connection here, and a session takes one from here
  // before it connects. Its opening (OpeningRequest) runs on a reused connection too.
  ConnectionPool* pool = nullptr;
  // Per-session deadlines; 0: none. A session that has not ended `session_timeout_nanos` after it
  // began fails with "session_timeout"; a connect that has not completed `connect_timeout_nanos`
  // after it began fails with "connect_timeout". A session begins when the driver begins its
  // connection (or takes one from the pool); with open_before_start, a slot's first session begins
  // when the load starts. Event loops enforce them with timers, the threads model within 1 ms.
  int64_t session_timeout_nanos = 0;
  int64_t connect_timeout_nanos = 0;
  // Load before measuring; the measured phase then runs until every session's sending side is done,
  // or for `duration_nanos` when that is set (then stop_sending is raised).
  int64_t warmup_nanos = 0;
  int64_t duration_nanos = 0;
  // Once every sending side is done, answers still missing get this long.
  int64_t drain_timeout_nanos = 5 * kNanosPerSecond;
  // The whole run, connecting included: nothing outlives it.
  int64_t timeout_nanos = 60 * kNanosPerSecond;
  std::function<void(const ClientProgress&)> progress;  // once a second; optional
  // The measured phase's messages per interval of this length (ClientDriverResult::series); 0: no
  // series. The driver's own thread reads the connections' counters at each interval's end, so the
  // cost is a wake-up per interval, nothing per message. At most kMaxSeriesIntervals are kept: a
  // run longer than that many intervals has them merged in pairs (client_series.h).
  int64_t series_interval_nanos = 100 * kNanosPerMilli;
};

struct ClientDriverResult {
  int connections = 0;  // slots
  int sessions = 0;     // sessions run (one per slot without replace_sessions)
  // How many sessions' connections reached each phase (indexed by ConnectionPhase) when they ended.
  int reached[kConnectionPhaseCount] = {};
  int finished = 0;            // sessions complete
  int failed = 0;              // sessions that ended with an error (opening included)
  int64_t open_nanos = 0;      // from the first connect until every connection was open (latch)
  int64_t elapsed_nanos = 0;   // the measured phase
  int64_t total_nanos = 0;     // from the start of the load until every session ended
  int connections_opened = 0;  // connects that completed (connections taken from the pool not)
  uint64_t sent = 0;           // messages, over the measured phase
  uint64_t received = 0;
  uint64_t total_sent = 0;  // over the whole run
  uint64_t total_received = 0;
  CpuTimes cpu;  // this process over the measured phase
  // `sent` and `received` per interval of the measured phase, from the same readings of the
  // counters: the series' sums equal them. Empty without series_interval_nanos, or when the run
  // failed before its load began.
  ClientSeries series;
  ClientStats stats;
  bool timed_out = false;
  std::string timeout_phase;  // "connect", "tls", "opening", "load", "drain"
  // The first connection error's text ("connect 127.0.0.1:9: Connection refused").
  std::string first_error;
  // Why the run failed, in one line; empty when it did not.
  std::string failure;

  bool ok() const { return failure.empty(); }
  double sent_per_second() const;
  double received_per_second() const;
};

ClientDriverResult RunClientDriver(const ClientDriverOptions& options,
                                   const SessionFactory& factory);

}  // namespace netbench

#endif  // NETBENCH_COMMON_CLIENT_DRIVER_H_
