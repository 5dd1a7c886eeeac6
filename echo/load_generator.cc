#include "echo/load_generator.h"

#include <errno.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/errno_status.h"
#include "common/socket.h"
#include "echo/internal/load_state.h"

namespace netbench {
namespace echo {

using internal::LoadConnection;
using internal::LoadShared;
using internal::RunControl;
using internal::ThreadWorkers;

namespace internal {

std::string ErrnoKey(const char* context, int err) {
  absl::string_view name = ErrnoName(err);
  if (name == "E?") return absl::StrCat(context, ".E", err);
  return absl::StrCat(context, ".", name);
}

void RunControl::SenderDone() {
  std::lock_guard<std::mutex> lock(mutex);
  --senders_left;
  changed.notify_all();
}

void RunControl::ReaderDone() {
  std::lock_guard<std::mutex> lock(mutex);
  --readers_left;
  changed.notify_all();
}

void SampleRing::Push(uint64_t message_end, int64_t sent_nanos) {
  const uint64_t head = head_.load(std::memory_order_relaxed);
  if (head - tail_.load(std::memory_order_acquire) >= kCapacity) return;
  Slot& slot = slots_[head % kCapacity];
  slot.message_end.store(message_end, std::memory_order_relaxed);
  slot.sent_nanos.store(sent_nanos, std::memory_order_relaxed);
  head_.store(head + 1, std::memory_order_release);
}

void SampleRing::Collect(uint64_t echoed_messages, int64_t now_nanos, bool record,
                         LatencyHistogram& histogram) {
  uint64_t tail = tail_.load(std::memory_order_relaxed);
  const uint64_t head = head_.load(std::memory_order_acquire);
  while (tail != head) {
    const Slot& slot = slots_[tail % kCapacity];
    if (slot.message_end.load(std::memory_order_relaxed) > echoed_messages) break;
    if (record) histogram.Record(now_nanos - slot.sent_nanos.load(std::memory_order_relaxed));
    ++tail;
  }
  tail_.store(tail, std::memory_order_release);
}

std::map<std::string, LatencyHistogram> MakeLatencyHistograms(const LoadOptions& options) {
  std::map<std::string, LatencyHistogram> latency;
  if (options.mode == LoadMode::kPipeline) {
    latency.emplace("rtt", LatencyHistogram());
  } else if (options.rate > 0) {
    latency.emplace("rtt_corrected", LatencyHistogram());
    latency.emplace("rtt_raw", LatencyHistogram());
  } else {
    latency.emplace("rtt_sampled", LatencyHistogram());
  }
  return latency;
}

}  // namespace internal

absl::StatusOr<LoadMode> ParseLoadMode(absl::string_view name) {
  if (name == "stream") return LoadMode::kStream;
  if (name == "pingpong" || name == "pipeline") return LoadMode::kPipeline;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown mode \"", name, "\" (want stream, pingpong or pipeline)"));
}

const char* LoadModeName(LoadMode mode) {
  return mode == LoadMode::kStream ? "stream" : "pipeline";
}

absl::StatusOr<ClientModel> ParseClientModel(absl::string_view name) {
  if (name == "threads") return ClientModel::kThreads;
  if (name == "loop") return ClientModel::kLoop;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown model \"", name, "\" (want threads or loop)"));
}

const char* ClientModelName(ClientModel model) {
  return model == ClientModel::kThreads ? "threads" : "loop";
}

int ReadCoalesceBytes(const LoadOptions& options) {
  return options.mode == LoadMode::kStream && options.rate <= 0 ? options.read_coalesce_bytes : 0;
}

absl::Status ValidateLoadOptions(const LoadOptions& o) {
  if (o.port < 1 || o.port > 65535) return absl::InvalidArgumentError("--port must be in 1..65535");
  if (o.clients < 1 || o.clients > 100000)
    return absl::InvalidArgumentError("--clients must be in 1..100000");
  if (o.messages < 0) return absl::InvalidArgumentError("--messages must be >= 0");
  if (o.messages == 0 && o.duration_nanos <= 0) {
    return absl::InvalidArgumentError("--duration must be positive (or give --messages)");
  }
  if (o.warmup_nanos < 0) return absl::InvalidArgumentError("--warmup must be >= 0");
  if (o.messages > 0 && o.warmup_nanos > 0) {
    return absl::InvalidArgumentError(
        "--warmup applies to --duration runs, not to --messages runs");
  }
  if (o.size < 1 || o.size > (16 << 20))
    return absl::InvalidArgumentError("--size must be in 1..16777216");
  if (o.batch < 1 || o.batch > 65536)
    return absl::InvalidArgumentError("--batch must be in 1..65536");
  if (o.pipeline < 1 || o.pipeline > 65536)
    return absl::InvalidArgumentError("--pipeline must be in 1..65536");
  if (static_cast<int64_t>(std::max(o.batch, o.pipeline)) * o.size > (64 << 20)) {
    return absl::InvalidArgumentError(
        "--size times --batch (or --pipeline) must stay within 64 MiB");
  }
  if (o.mode == LoadMode::kPipeline && o.batch != 1) {
    return absl::InvalidArgumentError(
        "--batch applies to --mode=stream; pipeline mode writes what is due");
  }
  if (o.rate < 0) return absl::InvalidArgumentError("--rate must be >= 0");
  if (o.rate > 0 && o.mode != LoadMode::kStream) {
    return absl::InvalidArgumentError("--rate is open loop: use it with --mode=stream");
  }
  if (o.read_coalesce_bytes < 0 || o.read_coalesce_bytes > (1 << 20)) {
    return absl::InvalidArgumentError("--read_coalesce must be in 0..1048576 bytes");
  }
  if (o.threads < 1 || o.threads > 1024)
    return absl::InvalidArgumentError("--threads must be in 1..1024");
  if (o.drain_timeout_nanos < 0 || o.timeout_nanos < 0) {
    return absl::InvalidArgumentError("--drain_timeout and --timeout must be >= 0");
  }
  return absl::OkStatus();
}

uint64_t LoadResult::error_count() const {
  uint64_t total = 0;
  for (const auto& [cause, count] : errors) total += static_cast<uint64_t>(count);
  return total;
}

double LoadResult::written_per_second() const {
  return elapsed_nanos > 0 ? static_cast<double>(messages_written) * 1e9 / elapsed_nanos : 0.0;
}

double LoadResult::echoed_per_second() const {
  return elapsed_nanos > 0 ? static_cast<double>(messages_echoed) * 1e9 / elapsed_nanos : 0.0;
}

double LoadResult::cpu_nanos_per_message() const {
  return messages_written > 0 ? static_cast<double>(cpu.total_nanos()) / messages_written : 0.0;
}

namespace {

// Opens every connection before any load starts; a connection that cannot be opened is counted by
// cause.
void ConnectAll(const LoadOptions& options, const SocketAddress& address,
                std::vector<std::unique_ptr<LoadConnection>>& connections, LoadResult& result) {
  for (int i = 0; i < options.clients; ++i) {
    UniqueFd fd(socket(address.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd.valid()) {
      ++result.errors[internal::ErrnoKey("socket", errno)];
      continue;
    }
    int rc;
    do {
      rc = connect(fd.get(), address.get(), address.length);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      ++result.errors[internal::ErrnoKey("connect", errno)];
      continue;
    }
    if (!SetNoDelay(fd.get(), options.no_delay).ok()) ++result.errors["setsockopt.TCP_NODELAY"];
    auto c = std::make_unique<LoadConnection>();
    c->index = i;
    c->fd = std::move(fd);
    connections.push_back(std::move(c));
  }
}

struct Totals {
  uint64_t written = 0;
  uint64_t echoed_bytes = 0;
  uint64_t errors = 0;
};

Totals Sum(const std::vector<std::unique_ptr<LoadConnection>>& connections) {
  Totals t;
  for (const auto& c : connections) {
    t.written += c->writer.messages.load(std::memory_order_relaxed);
    t.echoed_bytes += c->reader.bytes.load(std::memory_order_relaxed);
  }
  return t;
}

std::string DescribeErrors(const std::map<std::string, int64_t>& errors) {
  std::string text;
  for (const auto& [cause, count] : errors) {
    absl::StrAppend(&text, text.empty() ? "" : ", ", cause, " x", count);
  }
  return text;
}

}  // namespace

LoadResult RunLoad(const LoadOptions& options) {
  LoadResult result;
  if (absl::Status valid = ValidateLoadOptions(options); !valid.ok()) {
    result.failure = std::string(valid.message());
    return result;
  }
  absl::StatusOr<std::vector<SocketAddress>> addresses = Resolve(options.host, options.port);
  if (!addresses.ok() || addresses->empty()) {
    ++result.errors["resolve"];
    result.failure = absl::StrCat("cannot resolve ", options.host, ": ",
                                  addresses.ok() ? "no address" : addresses.status().message());
    return result;
  }
  const SocketAddress& address = addresses->front();

  std::vector<std::unique_ptr<LoadConnection>> connections;
  ConnectAll(options, address, connections, result);
  result.connections = static_cast<int>(connections.size());
  if (static_cast<int>(connections.size()) < options.clients) {
    result.failure =
        absl::StrFormat("%d of %d connections to %s failed: %s",
                        options.clients - static_cast<int>(connections.size()), options.clients,
                        address.ToString(), DescribeErrors(result.errors));
    return result;
  }

  RunControl control;
  LoadShared shared;
  shared.options = &options;
  shared.control = &control;
  shared.message = BuildEchoMessage(options.size);
  shared.batch_buffer = RepeatMessage(shared.message, std::max(options.batch, options.pipeline));
  shared.pattern = std::make_unique<EchoPattern>(shared.message, internal::kReadChunk);
  const int n = static_cast<int>(connections.size());
  if (options.rate > 0) shared.rate_interval_nanos = 1e9 * n / options.rate;

  const int64_t rate_start = MonotonicNanos();
  control.measuring.store(options.warmup_nanos == 0);
  control.senders_left = n;
  control.readers_left = n;
  for (int i = 0; i < n; ++i) {
    LoadConnection& c = *connections[i];
    if (options.messages > 0) {
      c.budget = static_cast<uint64_t>(options.messages / n + (i < options.messages % n ? 1 : 0));
    }
    c.latency = internal::MakeLatencyHistograms(options);
    if (options.rate > 0) {
      c.send_times.reset(new std::atomic<int64_t>[internal::kMaxRateInFlight]);
      // Connections take turns, so that together they send evenly rather than in bursts.
      c.rate_start_nanos = rate_start + static_cast<int64_t>(shared.rate_interval_nanos * i / n);
    }
  }

  std::vector<std::unique_ptr<ThreadWorkers>> workers;
  if (options.model == ClientModel::kThreads) {
    for (auto& c : connections) workers.push_back(internal::StartThreadWorkers(shared, *c));
  } else {
    absl::StatusOr<std::unique_ptr<ThreadWorkers>> loops =
        internal::StartLoopWorkers(shared, connections, options.threads);
    if (!loops.ok()) {
      result.failure = absl::StrCat("cannot start event loops: ", loops.status().message());
      return result;
    }
    workers.push_back(*std::move(loops));
  }

  // The run's clock starts once its threads exist (creating 128 threads on a busy machine takes a
  // while).
  const int64_t start = MonotonicNanos();
  const int64_t measure_start_target = start + options.warmup_nanos;
  const int64_t timeout = options.timeout_nanos > 0 ? options.timeout_nanos
                          : options.messages > 0
                              ? 120 * kNanosPerSecond
                              : options.warmup_nanos + options.duration_nanos +
                                    options.drain_timeout_nanos + 10 * kNanosPerSecond;
  const int64_t hard_deadline = start + timeout;

  // The measured phase: from the end of warmup until every sender has stopped.
  int64_t measure_start = options.warmup_nanos == 0 ? start : 0;
  Totals at_start;
  CpuTimes cpu_start = SelfCpuTimes();
  const int64_t send_deadline =
      options.messages > 0 ? hard_deadline : measure_start_target + options.duration_nanos;
  int64_t next_tick = start + kNanosPerSecond;
  Totals at_tick;
  int64_t last_tick = start;
  bool timed_out = false;
  int64_t senders_deadline = INT64_MAX;
  {
    std::unique_lock<std::mutex> lock(control.mutex);
    while (control.senders_left > 0) {
      int64_t now = MonotonicNanos();
      if (measure_start == 0 && now >= measure_start_target) {
        lock.unlock();
        at_start = Sum(connections);
        cpu_start = SelfCpuTimes();
        measure_start = MonotonicNanos();
        control.measuring.store(true, std::memory_order_relaxed);
        lock.lock();
        continue;
      }
      if (now >= send_deadline && !control.stop_sending.load()) {
        control.stop_sending.store(true, std::memory_order_relaxed);
        // A writer blocked on a server that stopped reading gets the drain timeout to finish its
        // write.
        senders_deadline = std::min(now + options.drain_timeout_nanos, hard_deadline);
      }
      if (now >= hard_deadline) {
        timed_out = true;
        control.stop_sending.store(true);
        control.abort.store(true);
        break;
      }
      if (now >= senders_deadline) {
        control.abort.store(true);
        break;
      }
      if (now >= next_tick) {
        lock.unlock();
        Totals t = Sum(connections);
        if (options.progress) {
          LoadProgress p;
          p.elapsed_nanos = now - (measure_start != 0 ? measure_start : measure_start_target);
          p.written_per_second =
              static_cast<double>(t.written - at_tick.written) * 1e9 / (now - last_tick);
          p.echoed_per_second = static_cast<double>(t.echoed_bytes - at_tick.echoed_bytes) /
                                options.size * 1e9 / (now - last_tick);
          p.written_total = t.written - at_start.written;
          p.echoed_total = (t.echoed_bytes - at_start.echoed_bytes) / options.size;
          options.progress(p);
        }
        at_tick = t;
        last_tick = now;
        next_tick += kNanosPerSecond;
        lock.lock();
        continue;
      }
      int64_t wake = std::min({next_tick, hard_deadline, senders_deadline,
                               control.stop_sending.load() ? hard_deadline : send_deadline,
                               measure_start == 0 ? measure_start_target : INT64_MAX});
      control.changed.wait_for(lock, std::chrono::nanoseconds(std::max<int64_t>(wake - now, 0)));
    }
  }
  const int64_t measure_end = MonotonicNanos();
  const CpuTimes cpu_end = SelfCpuTimes();
  const Totals at_end = Sum(connections);
  if (measure_start == 0) measure_start = measure_end;  // stopped before warmup ended
  result.elapsed_nanos = measure_end - measure_start;
  result.cpu = cpu_end - cpu_start;
  result.messages_written = at_end.written - at_start.written;
  result.messages_echoed = (at_end.echoed_bytes - at_start.echoed_bytes) / options.size;

  // Drain: echoes still in flight get drain_timeout to come back.
  {
    const int64_t drain_deadline =
        std::min(MonotonicNanos() + options.drain_timeout_nanos, hard_deadline);
    std::unique_lock<std::mutex> lock(control.mutex);
    while (control.readers_left > 0) {
      int64_t now = MonotonicNanos();
      if (now >= drain_deadline) {
        if (now >= hard_deadline) timed_out = true;
        break;
      }
      control.changed.wait_for(lock, std::chrono::nanoseconds(drain_deadline - now));
    }
    result.aborted_connections = control.readers_left;
  }
  control.stop_sending.store(true);
  control.abort.store(true);
  for (auto& w : workers) w->Join();

  result.latency = internal::MakeLatencyHistograms(options);
  for (auto& w : workers) w->MergeLatency(result.latency);
  for (auto& c : connections) {
    for (auto& [name, histogram] : c->latency) result.latency.at(name).Merge(histogram);
    for (auto& [cause, count] : c->writer.errors) result.errors[cause] += count;
    for (auto& [cause, count] : c->reader.errors) result.errors[cause] += count;
    result.write_stalls += c->writer.stalls;
    const uint64_t written = c->writer.messages.load();
    const uint64_t echoed_bytes = c->reader.bytes.load();
    result.total_written += written;
    result.total_echoed += echoed_bytes / options.size;
    if (echoed_bytes < written * options.size) {
      result.errors["echo.missing"] += static_cast<int64_t>(
          (written * options.size - echoed_bytes + options.size - 1) / options.size);
    } else if (echoed_bytes > written * options.size &&
               (c->writer.errors.empty() && c->reader.errors.empty())) {
      ++result.errors["echo.extra_bytes"];
    }
  }
  if (timed_out) ++result.errors["timeout"];
  if (result.error_count() > 0) {
    result.failure = absl::StrCat("the server misbehaved or the run was cut short: ",
                                  DescribeErrors(result.errors));
  }
  return result;
}

}  // namespace echo
}  // namespace netbench
