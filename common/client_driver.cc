#include "common/client_driver.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/internal/client_connection.h"
#include "common/internal/client_runner.h"
#include "common/platform.h"

namespace netbench {

using internal::ClientConnection;
using internal::ClientRunner;
using internal::RunState;

const char* ConnectionPhaseName(ConnectionPhase phase) {
  switch (phase) {
    case ConnectionPhase::kConnecting:
      return "connecting";
    case ConnectionPhase::kTls:
      return "in the TLS handshake";
    case ConnectionPhase::kOpening:
      return "opening";
    case ConnectionPhase::kOpen:
      return "open";
    case ConnectionPhase::kFinished:
      return "finished";
  }
  return "?";
}

void ClientStats::Merge(const ClientStats& other) {
  for (const auto& [name, histogram] : other.latency) latency[name].Merge(histogram);
  for (const auto& [cause, count] : other.errors) errors[cause] += count;
  write_stalls += other.write_stalls;
  system_calls += other.system_calls;
  receive_buffer_shortages += other.receive_buffer_shortages;
}

int64_t ClientStats::error_count() const {
  int64_t total = 0;
  for (const auto& [cause, count] : errors) total += count;
  return total;
}

std::string DescribeErrorCounts(const std::map<std::string, int64_t>& errors) {
  std::string text;
  for (const auto& [cause, count] : errors) {
    absl::StrAppend(&text, text.empty() ? "" : ", ", cause, " x", count);
  }
  return text;
}

double ClientDriverResult::sent_per_second() const {
  return elapsed_nanos > 0 ? static_cast<double>(sent) * 1e9 / elapsed_nanos : 0.0;
}

double ClientDriverResult::received_per_second() const {
  return elapsed_nanos > 0 ? static_cast<double>(received) * 1e9 / elapsed_nanos : 0.0;
}

namespace internal {

// The orchestrating thread waits for each counter to reach zero: waking it on every connection's
// report would cost a context switch per connection, per phase.
void RunState::Opened() {
  std::lock_guard<std::mutex> lock(mutex);
  if (--opening == 0) changed.notify_all();
}

void RunState::SendingDone() {
  std::lock_guard<std::mutex> lock(mutex);
  if (--sending == 0) changed.notify_all();
}

void RunState::Ended() {
  std::lock_guard<std::mutex> lock(mutex);
  if (--running == 0) changed.notify_all();
}

bool RunState::WaitForGo() {
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [this] { return go || abort.load(); });
  return go && !abort.load();
}

std::unique_ptr<ClientSession> RunState::NextSession(ClientConnection& c) {
  if (!options->replace_sessions || abort.load() || signals.stop_sending.load()) return nullptr;
  SessionContext context;
  context.slot = c.slot();
  context.sequence = next_sequence.fetch_add(1, std::memory_order_relaxed);
  context.stats = &c.stats();
  context.signals = &signals;
  return (*factory)(context);
}

}  // namespace internal

namespace {

using Counts = ClientConnection::Counts;

Counts Sum(const std::vector<std::unique_ptr<ClientConnection>>& connections) {
  Counts total;
  for (const auto& c : connections) {
    const Counts counts = c->counts();
    total.sent += counts.sent;
    total.received += counts.received;
  }
  return total;
}

// "2 still connecting, 1 still in the TLS handshake": where the connections the deadline cut short
// were.
std::string DescribeStragglers(const std::vector<std::unique_ptr<ClientConnection>>& connections,
                               ConnectionPhase below) {
  int at[kConnectionPhaseCount] = {};
  for (const auto& c : connections) {
    const bool cut_short = !c->failed() || c->error_cause() == "timeout";
    if (cut_short && c->phase() < below) ++at[static_cast<int>(c->phase())];
  }
  std::string text;
  for (int p = 0; p < kConnectionPhaseCount; ++p) {
    if (at[p] == 0) continue;
    absl::StrAppend(&text, text.empty() ? "" : ", ", at[p], " still ",
                    ConnectionPhaseName(static_cast<ConnectionPhase>(p)));
  }
  return text;
}

// Sleeps on the run's condition until `done` holds or `until` passes; false on timeout.
template <typename Predicate>
bool WaitUntil(RunState& run, int64_t until, Predicate done) {
  std::unique_lock<std::mutex> lock(run.mutex);
  while (!done()) {
    const int64_t now = MonotonicNanos();
    if (now >= until) return false;
    run.changed.wait_for(lock, std::chrono::nanoseconds(until - now));
  }
  return true;
}

}  // namespace

std::vector<ClientModel> AvailableClientModels() { return AvailableServerModels(); }

absl::StatusOr<ClientModel> ParseClientModel(absl::string_view name) {
  absl::StatusOr<ClientModel> model = ParseServerModel(name);
  if (model.ok() && *model == ClientModel::kUring) {
    if (absl::Status support = UringSupport(); !support.ok()) return support;
  }
  return model;
}

ClientDriverResult RunClientDriver(const ClientDriverOptions& options,
                                   const SessionFactory& factory) {
  ClientDriverResult result;
  if (options.model == ClientModel::kUring) {
    if (absl::Status support = UringSupport(); !support.ok()) {
      result.failure = std::string(support.message());
      return result;
    }
    const int buffers = options.uring_buffers;
    if (buffers < 1 || buffers > 32768 || (buffers & (buffers - 1)) != 0) {
      result.failure =
          absl::StrCat("uring_buffers must be a power of two from 1 to 32768, got ", buffers);
      return result;
    }
  }
  const int n = options.connections;
  if (n < 1 || options.threads < 1 || options.timeout_nanos <= 0 ||
      options.session_timeout_nanos < 0 || options.connect_timeout_nanos < 0 ||
      options.series_interval_nanos < 0) {
    result.failure =
        "the driver needs connections >= 1, threads >= 1, a positive timeout and no negative "
        "per-session timeout or series interval";
    return result;
  }
  result.connections = n;
  const int64_t begin = MonotonicNanos();
  const CpuTimes cpu_begin = SelfCpuTimes();
  const bool latched = options.open_before_start;

  RunState run;
  run.options = &options;
  run.factory = &factory;
  run.deadline_nanos = begin + options.timeout_nanos;
  run.next_sequence.store(n);
  run.opening = run.sending = run.running = n;
  // Without the latch the load starts now, with the first connect.
  run.go = !latched;
  run.start_nanos = latched ? 0 : begin;
  run.signals.measuring.store(options.warmup_nanos == 0);

  // A thread's statistics: one per connection in the threads model, one per loop otherwise.
  const bool per_connection = options.model == ClientModel::kThreads;
  const int workers = per_connection ? n : std::min(options.threads, n);
  std::vector<ClientStats> stats(workers);
  std::vector<std::unique_ptr<ClientConnection>> connections;
  connections.reserve(n);
  for (int i = 0; i < n; ++i) {
    SessionContext context;
    context.slot = i;
    context.sequence = i;
    context.stats = &stats[i % workers];
    context.signals = &run.signals;
    std::unique_ptr<ClientSession> session = factory(context);
    if (session == nullptr) {
      result.failure = absl::StrCat("the session factory made no first session for slot ", i);
      return result;
    }
    connections.push_back(
        std::make_unique<ClientConnection>(i, std::move(session), context.stats, options));
  }

  std::unique_ptr<ClientRunner> runner;
  if (per_connection) {
    runner = internal::StartThreadRunner(run, connections);
  } else {
    absl::StatusOr<std::unique_ptr<ClientRunner>> loops =
#if NETBENCH_LINUX
        options.model == ClientModel::kUring ? internal::StartUringRunner(run, connections) :
#endif
                                             internal::StartLoopRunner(run, connections);
    if (!loops.ok()) {
      result.failure = absl::StrCat("cannot start event loops: ", loops.status().message());
      return result;
    }
    runner = *std::move(loops);
  }

  // Ends the run; `abort_cause` ("timeout", "drain_timeout") ends the connections still running.
  auto finish = [&](const char* abort_cause) {
    if (abort_cause != nullptr) {
      run.abort_cause = abort_cause;
      run.abort.store(true);
      {
        std::lock_guard<std::mutex> lock(run.mutex);
        run.changed.notify_all();
      }
      runner->Abort();
    }
    runner->Join();
    // Each session was counted on its thread as it ended (errors by cause into its statistics).
    for (const ClientStats& s : stats) result.stats.Merge(s);
    for (const auto& c : connections) {
      const internal::SlotTally& tally = c->tally();
      result.sessions += tally.sessions;
      for (int p = 0; p < kConnectionPhaseCount; ++p) result.reached[p] += tally.reached[p];
      result.finished += tally.finished;
      result.failed += tally.failed;
      result.connections_opened += tally.connections_opened;
      if (result.first_error.empty()) result.first_error = tally.first_error;
    }
    const Counts total = Sum(connections);
    result.total_sent = total.sent;
    result.total_received = total.received;
  };

  int64_t start = begin;
  CpuTimes cpu_start = cpu_begin;
  if (latched) {
    // Open: every connection, within the deadline.
    const bool all_settled = WaitUntil(run, run.deadline_nanos, [&] { return run.opening == 0; });
    result.open_nanos = MonotonicNanos() - begin;
    if (!all_settled) {
      finish("timeout");
      result.timed_out = true;
      const ConnectionPhase slowest = [&] {
        ConnectionPhase p = ConnectionPhase::kOpen;
        for (const auto& c : connections) {
          if (c->error_cause() == "timeout") p = std::min(p, c->phase());
        }
        return p;
      }();
      result.timeout_phase = slowest == ConnectionPhase::kConnecting ? "connect"
                             : slowest == ConnectionPhase::kTls      ? "tls"
                                                                     : "opening";
      result.failure =
          absl::StrFormat("timed out after %.1f s opening connections to %s: %d of %d open (%s)",
                          NanosToSeconds(options.timeout_nanos), options.address.ToString(),
                          result.reached[static_cast<int>(ConnectionPhase::kOpen)], n,
                          DescribeStragglers(connections, ConnectionPhase::kOpen));
      return result;
    }
    std::map<std::string, int64_t> open_errors;
    std::string first_open_error;
    for (const auto& c : connections) {
      if (!c->failed()) continue;
      ++open_errors[c->error_cause()];
      if (first_open_error.empty()) first_open_error = c->error_text();
    }
    if (!open_errors.empty()) {
      // A run with fewer connections than asked would measure another load: none starts.
      finish("not_started");
      int failures = 0;
      for (const auto& [cause, count] : open_errors) failures += static_cast<int>(count);
      result.failure = absl::StrFormat("%d of %d connections to %s could not be opened: %s (%s)",
                                       failures, n, options.address.ToString(),
                                       DescribeErrorCounts(open_errors), first_open_error);
      return result;
    }

    // The latch opens: the load begins.
    start = MonotonicNanos();
    {
      std::lock_guard<std::mutex> lock(run.mutex);
      run.go = true;
      run.start_nanos = start;
      run.changed.notify_all();
    }
    runner->Go();
    cpu_start = SelfCpuTimes();
  }

  // The measured phase: from the end of warmup until every sending side is done.
  const int64_t measure_target = start + options.warmup_nanos;
  const int64_t send_deadline =
      options.duration_nanos > 0 ? measure_target + options.duration_nanos : INT64_MAX;
  int64_t measure_start = options.warmup_nanos == 0 ? start : 0;
  Counts at_start;
  // The series starts with the measured phase, from the same reading as `sent` and `received`.
  const bool recording = options.series_interval_nanos > 0;
  ClientSeriesRecorder series(recording ? options.series_interval_nanos : kNanosPerSecond);
  if (measure_start != 0) series.Start(measure_start, at_start.sent, at_start.received);
  Counts at_tick;
  int64_t last_tick = start;
  int64_t next_tick = start + kNanosPerSecond;
  int64_t senders_deadline = run.deadline_nanos;
  bool deadline_passed = false;
  while (true) {
    const int64_t wake =
        std::min({next_tick, run.deadline_nanos, senders_deadline,
                  run.signals.stop_sending.load() ? INT64_MAX : send_deadline,
                  measure_start == 0 ? measure_target : INT64_MAX,
                  recording && measure_start != 0 ? series.next_boundary() : INT64_MAX});
    if (WaitUntil(run, wake, [&] { return run.sending == 0; })) break;
    const int64_t now = MonotonicNanos();
    if (now >= run.deadline_nanos) {
      deadline_passed = true;
      break;
    }
    if (measure_start == 0 && now >= measure_target) {
      at_start = Sum(connections);
      cpu_start = SelfCpuTimes();
      measure_start = MonotonicNanos();
      run.signals.measuring.store(true);
      series.Start(measure_start, at_start.sent, at_start.received);
    }
    if (now >= send_deadline && !run.signals.stop_sending.load()) {
      run.signals.stop_sending.store(true);
      // A write blocked on a server that stopped reading gets the drain timeout to finish.
      senders_deadline = std::min(now + options.drain_timeout_nanos, run.deadline_nanos);
    } else if (now >= senders_deadline) {
      break;
    }
    const bool series_due = recording && measure_start != 0 && now >= series.next_boundary();
    if (!series_due && now < next_tick) continue;
    const Counts counts = Sum(connections);
    if (series_due) series.Record(now, counts.sent, counts.received);
    if (now >= next_tick) {
      if (options.progress) {
        ClientProgress p;
        p.elapsed_nanos = now - (measure_start != 0 ? measure_start : measure_target);
        p.sent_per_second =
            static_cast<double>(counts.sent - at_tick.sent) * 1e9 / (now - last_tick);
        p.received_per_second =
            static_cast<double>(counts.received - at_tick.received) * 1e9 / (now - last_tick);
        p.sent_total = counts.sent - at_start.sent;
        p.received_total = counts.received - at_start.received;
        options.progress(p);
      }
      at_tick = counts;
      last_tick = now;
      next_tick += kNanosPerSecond;
    }
  }
  const int64_t measure_end = MonotonicNanos();
  result.cpu = SelfCpuTimes() - cpu_start;
  const Counts at_end = Sum(connections);
  if (measure_start == 0) {  // stopped before warmup ended
    measure_start = measure_end;
    series.Start(measure_start, at_start.sent, at_start.received);
  }
  result.elapsed_nanos = measure_end - measure_start;
  result.sent = at_end.sent - at_start.sent;
  result.received = at_end.received - at_start.received;
  if (recording) result.series = series.Finish(measure_end, at_end.sent, at_end.received);
  const bool senders_done = [&] {
    std::lock_guard<std::mutex> lock(run.mutex);
    return run.sending == 0;
  }();

  // Drain: answers still in flight get the drain timeout to come back.
  bool all_ended = false;
  if (!deadline_passed) {
    const int64_t drain_deadline =
        std::min(MonotonicNanos() + options.drain_timeout_nanos, run.deadline_nanos);
    all_ended = WaitUntil(run, drain_deadline, [&] { return run.running == 0; });
    deadline_passed = !all_ended && MonotonicNanos() >= run.deadline_nanos;
  }
  result.total_nanos = MonotonicNanos() - start;
  finish(all_ended ? nullptr : deadline_passed ? "timeout" : "drain_timeout");
  // Without replacements a connection is a session; with them, sessions are what is counted.
  const char* unit = options.replace_sessions ? "sessions" : "connections";
  const int units = options.replace_sessions ? result.sessions : n;
  if (deadline_passed) {
    result.timed_out = true;
    result.timeout_phase = senders_done ? "drain" : "load";
    result.failure =
        absl::StrFormat("timed out after %.1f s %s: %d of %d %s finished (%s)",
                        NanosToSeconds(options.timeout_nanos),
                        senders_done ? "waiting for the last answers" : "while sending",
                        result.finished, units, unit, DescribeErrorCounts(result.stats.errors));
  } else if (result.failed > 0) {
    result.failure =
        absl::StrFormat("%d of %d %s failed: %s (first: %s)", result.failed, units, unit,
                        DescribeErrorCounts(result.stats.errors), result.first_error);
  }
  return result;
}

}  // namespace netbench
