// The threads model: a std::thread per request in flight, each on a blocking socket, as Go's
// net/http runs a goroutine per request. Timeouts are socket timeouts (SO_RCVTIMEO/SO_SNDTIMEO) set
// to what is left of the request's deadline.
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/cpu_time.h"
#include "common/errno_status.h"
#include "common/transport.h"
#include "httpfanout/fanout_client.h"
#include "httpfanout/internal/connect.h"

namespace netbench {
namespace {

void SetSocketTimeouts(int fd, int64_t nanos) {
  if (nanos < kNanosPerMilli) nanos = kNanosPerMilli;
  timeval tv;
  tv.tv_sec = nanos / kNanosPerSecond;
  tv.tv_usec = (nanos % kNanosPerSecond) / 1000;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

class ThreadFanoutClient : public FanoutClient {
 public:
  ThreadFanoutClient(const FanoutOptions& options, SocketAddress address, int64_t resolve_nanos)
      : FanoutClient(options, address, resolve_nanos) {}

  RepetitionResult RunRepetition() override {
    RepetitionResult result;
    result.outcomes.resize(options_.requests);
    std::atomic<int> next{0};
    std::mutex result_mutex;
    const int threads = in_flight();
    CpuTimes cpu_before = SelfCpuTimes();
    Stopwatch watch;
    std::vector<std::thread> workers;
    workers.reserve(threads);
    for (int i = 0; i < threads; ++i) {
      workers.emplace_back([&] {
        HttpExchange exchange;
        for (int index = next++; index < options_.requests; index = next++) {
          RunOne(index, exchange, result, result_mutex);
        }
      });
    }
    for (std::thread& worker : workers) worker.join();
    result.wall_nanos = watch.ElapsedNanos();
    result.cpu_nanos = (SelfCpuTimes() - cpu_before).total_nanos();
    return result;
  }

 private:
  // Connects within the connect timeout; returns a blocking socket, or fills `error`.
  UniqueFd ConnectBlocking(ExchangeError* error) {
    int err = 0;
    UniqueFd fd = fanout_internal::BeginConnect(address_, &err);
    if (fd.valid()) {
      pollfd p{fd.get(), POLLOUT, 0};
      int timeout_ms = static_cast<int>(options_.connect_timeout_nanos / kNanosPerMilli);
      int n;
      do {
        n = poll(&p, 1, timeout_ms);
      } while (n < 0 && errno == EINTR);
      if (n == 0) {
        *error = {"connect_timeout", ETIMEDOUT,
                  absl::StrCat("connect ", address_.ToString(), ": no answer within ",
                               options_.connect_timeout_nanos / kNanosPerMilli, " ms"),
                  true};
        return UniqueFd();
      }
      err = n < 0 ? errno : fanout_internal::PendingConnectError(fd.get());
    }
    if (err != 0) {
      *error = {std::string(ErrnoName(err)), err,
                absl::StrCat("connect ", address_.ToString(), ": ", strerror(err)), true};
      return UniqueFd();
    }
    SetNonBlocking(fd.get(), false).IgnoreError();
    return fd;
  }

  void RunOne(int index, HttpExchange& exchange, RepetitionResult& result,
              std::mutex& result_mutex) {
    ExchangeTiming& timing = exchange.timing();
    timing = ExchangeTiming();
    timing.start = MonotonicNanos();
    const int64_t deadline = timing.start + options_.timeout_nanos;
    std::unique_ptr<Transport> transport;
    bool reused = false;
    if (options_.keepalive) {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      if (!idle_.empty()) {
        transport = std::move(idle_.back());
        idle_.pop_back();
        reused = true;
      }
    }
    ExchangeError failure;
    bool failed = false;
    bool started = false;
    int opened = 0;
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (transport == nullptr) {
        UniqueFd fd = ConnectBlocking(&failure);
        if (!fd.valid()) {
          failed = true;
          break;
        }
        timing.connected = MonotonicNanos();
        ++opened;
        if (options_.url.tls()) {
          absl::StatusOr<std::unique_ptr<Transport>> tls =
              options_.tls->Wrap(std::move(fd), options_.url.host);
          if (!tls.ok()) {
            failure = {"tls", 0, std::string(tls.status().message()), true};
            failed = true;
            break;
          }
          transport = *std::move(tls);
        } else {
          transport = MakePlainTransport(std::move(fd));
        }
      }
      SetSocketTimeouts(transport->fd(), deadline - MonotonicNanos());
      exchange.Start(transport.get(), &request_, options_.url.tls() && !reused,
                     options_.verify_checksum);
      started = true;
      HttpExchange::Step step = exchange.Advance();
      // A blocking socket stops early when its timeout expired, or when TLS wants the other
      // direction (or read a record with no application data): wait for readiness, within the
      // deadline.
      while (step == HttpExchange::Step::kWantRead || step == HttpExchange::Step::kWantWrite) {
        int64_t left = deadline - MonotonicNanos();
        if (left <= 0) break;
        pollfd p{transport->fd(),
                 static_cast<short>(step == HttpExchange::Step::kWantRead ? POLLIN : POLLOUT), 0};
        int n = poll(&p, 1, static_cast<int>((left + kNanosPerMilli - 1) / kNanosPerMilli));
        if (n == 0) break;
        if (n < 0 && errno != EINTR) break;
        step = exchange.Advance();
      }
      if (step == HttpExchange::Step::kDone && options_.url.tls()) NoteTls(*transport);
      if (step == HttpExchange::Step::kDone) {
        failed = false;
        break;
      }
      if (step == HttpExchange::Step::kFailed) {
        failure = exchange.error();
      } else {  // a blocking socket only stops early when its timeout expired
        failure = {"timeout", ETIMEDOUT,
                   absl::StrCat("no complete response within ",
                                options_.timeout_nanos / kNanosPerMilli, " ms"),
                   !exchange.timing().first_byte};
      }
      failed = true;
      // A kept-alive connection the server closed meanwhile: retry once on a fresh one.
      if (reused && failure.before_response && failure.cause != "timeout") {
        transport.reset();
        reused = false;
        continue;
      }
      break;
    }
    {
      std::lock_guard<std::mutex> lock(result_mutex);
      result.connections_opened += opened;
      Record(index, started ? &exchange : nullptr, failed ? &failure : nullptr, timing, result);
    }
    if (!failed && options_.keepalive && exchange.keep_alive()) {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      idle_.push_back(std::move(transport));
    }
  }

  std::mutex pool_mutex_;
  std::vector<std::unique_ptr<Transport>> idle_;  // kept-alive connections to the one host
};

}  // namespace

std::unique_ptr<FanoutClient> MakeThreadFanoutClient(const FanoutOptions& options,
                                                     SocketAddress address, int64_t resolve_nanos) {
  return std::unique_ptr<FanoutClient>(new ThreadFanoutClient(options, address, resolve_nanos));
}

}  // namespace netbench
