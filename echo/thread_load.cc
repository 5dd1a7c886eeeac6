// The load generator's threads model: blocking sockets, a writer thread and a reader thread per
// connection in stream mode (the Go spammer's two goroutines), one thread per connection in
// pipeline mode.
//
// The stream writer's loop is a send() of a prebuilt buffer and a relaxed store of its count; it
// reads the clock only once every kStreamSampleEvery messages. The reader reads 64 KiB chunks and
// checks each with one memcmp against the repeated message; as fast as it can, it asks to be woken
// only once per LoadOptions::read_coalesce_bytes of echoes.
#include <errno.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/socket.h"
#include "echo/internal/load_state.h"

namespace netbench {
namespace echo {
namespace internal {
namespace {

// Sends all of `data`, finishing partial writes. SO_SNDTIMEO makes a blocked send return so that an
// abort is noticed; such a wait is a stall, not an error (the Go spammer skips a write after a 2 s
// deadline instead, which would break the echoed byte stream). Returns false on error or abort.
bool SendAll(int fd, const char* data, size_t length, const RunControl& control,
             LoadConnection& c) {
  while (length > 0) {
    ssize_t n = send(fd, data, length, MSG_NOSIGNAL);
    if (n > 0) {
      data += n;
      length -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && WouldBlock(errno)) {
      ++c.writer.stalls;
      if (control.abort.load(std::memory_order_relaxed)) return false;
      continue;
    }
    ++c.writer.errors[ErrnoKey("write", n < 0 ? errno : EPIPE)];
    return false;
  }
  return true;
}

void SleepUntil(int64_t when_nanos) {
  timespec ts{static_cast<time_t>(when_nanos / kNanosPerSecond),
              static_cast<long>(when_nanos % kNanosPerSecond)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// Stream mode, as fast as the socket takes it.
void StreamWriter(const LoadShared& s, LoadConnection& c) {
  const RunControl& control = *s.control;
  const size_t size = s.message.size();
  const uint64_t batch = static_cast<uint64_t>(s.options->batch);
  const bool sample = s.options->rate <= 0;
  uint64_t sent = 0;
  uint64_t next_sample = kStreamSampleEvery;
  while (sent < c.budget && !control.stop_sending.load(std::memory_order_relaxed)) {
    const uint64_t n = std::min(batch, c.budget - sent);
    if (!SendAll(c.fd.get(), s.batch_buffer.data(), n * size, control, c)) break;
    sent += n;
    c.writer.messages.store(sent, std::memory_order_release);
    if (sample && sent >= next_sample) {
      c.samples.Push(sent, MonotonicNanos());
      next_sample = sent + kStreamSampleEvery;
    }
  }
}

// Stream mode at a fixed rate (open loop): message i is due at rate_start + i * interval whatever
// happened to the ones before, and goes out as soon as the writer can after that.
void PacedWriter(const LoadShared& s, LoadConnection& c) {
  const RunControl& control = *s.control;
  const size_t size = s.message.size();
  const uint64_t batch = static_cast<uint64_t>(s.options->batch);
  const double interval = s.rate_interval_nanos;
  const int64_t start = c.rate_start_nanos;
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // wake on time, not up to 50 us late
  uint64_t sent = 0;
  while (sent < c.budget && !control.stop_sending.load(std::memory_order_relaxed)) {
    const int64_t now = MonotonicNanos();
    const uint64_t due = std::min<uint64_t>(
        c.budget,
        now < start ? 0 : static_cast<uint64_t>(static_cast<double>(now - start) / interval) + 1);
    if (due <= sent) {
      SleepUntil(start + static_cast<int64_t>(static_cast<double>(sent) * interval));
      continue;
    }
    const uint64_t echoed = c.reader.bytes.load(std::memory_order_relaxed) / size;
    if (sent - echoed >= kMaxRateInFlight) {
      ++c.writer.stalls;
      SleepUntil(now + 100 * kNanosPerMicro);
      continue;
    }
    const uint64_t n = std::min({batch, due - sent, kMaxRateInFlight - (sent - echoed)});
    for (uint64_t i = sent; i < sent + n; ++i) {
      c.send_times[i % kMaxRateInFlight].store(now, std::memory_order_relaxed);
    }
    if (!SendAll(c.fd.get(), s.batch_buffer.data(), n * size, control, c)) break;
    sent += n;
    c.writer.messages.store(sent, std::memory_order_release);
  }
}

void StreamWriterThread(const LoadShared& s, LoadConnection& c) {
  if (s.options->rate > 0) {
    PacedWriter(s, c);
  } else {
    StreamWriter(s, c);
  }
  c.writer.done.store(true, std::memory_order_release);
  s.control->SenderDone();
}

// True once the writer has finished and everything it wrote came back.
bool AllEchoed(const LoadConnection& c, uint64_t received, size_t size) {
  return c.writer.done.load(std::memory_order_acquire) &&
         received >= c.writer.messages.load(std::memory_order_acquire) * size;
}

void StreamReaderThread(const LoadShared& s, LoadConnection& c) {
  const RunControl& control = *s.control;
  const size_t size = s.message.size();
  const bool rate = s.options->rate > 0;
  const double interval = s.rate_interval_nanos;
  LatencyHistogram* sampled = rate ? nullptr : &c.latency.at("rtt_sampled");
  LatencyHistogram* corrected = rate ? &c.latency.at("rtt_corrected") : nullptr;
  LatencyHistogram* raw = rate ? &c.latency.at("rtt_raw") : nullptr;
  std::unique_ptr<char[]> buffer(new char[kReadChunk]);
  // Wake once per coalesce bytes of echoes while the writer runs; once it is done, on anything, so
  // that the tail comes back within one socket timeout.
  const int coalesce = ReadCoalesceBytes(*s.options);
  bool coalescing = coalesce > 1 && SetReceiveLowWatermark(c.fd.get(), coalesce).ok();
  uint64_t received = 0;
  uint64_t timed = 0;  // rate mode: messages whose latency is recorded
  while (true) {
    if (coalescing && c.writer.done.load(std::memory_order_acquire)) {
      coalescing = !SetReceiveLowWatermark(c.fd.get(), 1).ok();
    }
    ssize_t n = recv(c.fd.get(), buffer.get(), kReadChunk, 0);
    if (n > 0) {
      received = AcceptEcho(s, c, buffer.get(), static_cast<size_t>(n), received);
      const uint64_t echoed = received / size;
      if (rate) {
        const int64_t now = MonotonicNanos();
        const bool record = control.measuring.load(std::memory_order_relaxed);
        for (; timed < echoed; ++timed) {
          if (!record) continue;
          corrected->Record(now - c.rate_start_nanos -
                            static_cast<int64_t>(static_cast<double>(timed) * interval));
          raw->Record(now - c.send_times[timed % kMaxRateInFlight].load(std::memory_order_relaxed));
        }
      } else if (c.samples.Pending()) {
        c.samples.Collect(echoed, MonotonicNanos(),
                          control.measuring.load(std::memory_order_relaxed), *sampled);
      }
      if (AllEchoed(c, received, size)) break;
      continue;
    }
    if (n == 0) {
      if (!AllEchoed(c, received, size)) ++c.reader.errors["read.eof"];
      break;
    }
    if (errno == EINTR) continue;
    if (WouldBlock(errno)) {
      if (control.abort.load(std::memory_order_relaxed) || AllEchoed(c, received, size)) break;
      continue;
    }
    ++c.reader.errors[ErrnoKey("read", errno)];
    break;
  }
  // A reader that ends early (error, abort) leaves its writer blocked or writing into a dead
  // socket: shutting the socket down makes the writer's next send fail at once.
  if (!AllEchoed(c, received, size)) shutdown(c.fd.get(), SHUT_RDWR);
  s.control->ReaderDone();
}

// Pipeline mode (ping-pong when pipeline == 1): `pipeline` messages in flight; every completed
// round trip is timed, and as many new messages go out, in one write, as came back.
void PipelineThread(const LoadShared& s, LoadConnection& c) {
  const RunControl& control = *s.control;
  const size_t size = s.message.size();
  const uint64_t window = static_cast<uint64_t>(s.options->pipeline);
  LatencyHistogram& rtt = c.latency.at("rtt");
  std::unique_ptr<int64_t[]> send_times(new int64_t[window]);
  std::unique_ptr<char[]> buffer(new char[kReadChunk]);
  uint64_t sent = 0;
  uint64_t received = 0;
  uint64_t completed = 0;
  bool sending = true;
  auto finish_sending = [&] {
    if (!sending) return;
    sending = false;
    c.writer.done.store(true, std::memory_order_release);
    s.control->SenderDone();
  };
  auto send_more = [&]() -> bool {
    if (!sending) return true;
    if (control.stop_sending.load(std::memory_order_relaxed) || sent >= c.budget) {
      finish_sending();
      return true;
    }
    const uint64_t n = std::min(completed + window - sent, c.budget - sent);
    if (n == 0) return true;
    const int64_t now = MonotonicNanos();
    for (uint64_t i = sent; i < sent + n; ++i) send_times[i % window] = now;
    if (!SendAll(c.fd.get(), s.batch_buffer.data(), n * size, control, c)) return false;
    sent += n;
    c.writer.messages.store(sent, std::memory_order_release);
    return true;
  };
  bool ok = send_more();
  while (ok && (sending || completed < sent)) {
    ssize_t n = recv(c.fd.get(), buffer.get(), kReadChunk, 0);
    if (n > 0) {
      received = AcceptEcho(s, c, buffer.get(), static_cast<size_t>(n), received);
      const uint64_t echoed = std::min(received / size, sent);
      if (received > sent * size) {
        ++c.reader.errors["echo.extra_bytes"];
        break;
      }
      if (echoed > completed) {
        const int64_t now = MonotonicNanos();
        if (control.measuring.load(std::memory_order_relaxed)) {
          for (uint64_t i = completed; i < echoed; ++i) rtt.Record(now - send_times[i % window]);
        }
        completed = echoed;
        ok = send_more();
      }
      continue;
    }
    if (n == 0) {
      ++c.reader.errors["read.eof"];
      break;
    }
    if (errno == EINTR) continue;
    if (WouldBlock(errno)) {
      if (control.abort.load(std::memory_order_relaxed)) break;
      // The stop flag may have been raised while every message was already answered.
      if (completed == sent) ok = send_more();
      continue;
    }
    ++c.reader.errors[ErrnoKey("read", errno)];
    break;
  }
  finish_sending();
  s.control->ReaderDone();
}

class ConnectionThreads final : public ThreadWorkers {
 public:
  ConnectionThreads(const LoadShared& s, LoadConnection& c) {
    if (s.options->mode == LoadMode::kStream) {
      threads_.emplace_back([&s, &c] { StreamReaderThread(s, c); });
      threads_.emplace_back([&s, &c] { StreamWriterThread(s, c); });
    } else {
      threads_.emplace_back([&s, &c] { PipelineThread(s, c); });
    }
  }
  ~ConnectionThreads() override { Join(); }
  void Join() override {
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  std::vector<std::thread> threads_;
};

}  // namespace

std::unique_ptr<ThreadWorkers> StartThreadWorkers(const LoadShared& shared, LoadConnection& c) {
  // Blocking sockets that still wake up now and then, to notice stop and abort.
  timeval tv{0, static_cast<suseconds_t>(kSocketTimeoutNanos / kNanosPerMicro)};
  setsockopt(c.fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(c.fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  return std::make_unique<ConnectionThreads>(shared, c);
}

}  // namespace internal
}  // namespace echo
}  // namespace netbench
