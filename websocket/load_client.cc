#include "websocket/load_client.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <latch>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/byte_buffer.h"
#include "common/errno_status.h"
#include "common/event_loop.h"
#include "common/socket.h"
#include "common/tls.h"
#include "common/transport.h"
#include "websocket/close_frame.h"
#include "websocket/frame_writer.h"
#include "websocket/handshake.h"
#include "websocket/mask.h"
#include "websocket/mask_key_source.h"
#include "websocket/message_reader.h"

namespace netbench::websocket {

std::string WebSocketUrl::HostHeader() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return absl::StrCat(ipv6 ? "[" : "", host, ipv6 ? "]" : "", ":", port);
}

absl::StatusOr<WebSocketUrl> ParseWebSocketUrl(absl::string_view url) {
  WebSocketUrl out;
  absl::string_view rest = url;
  if (absl::ConsumePrefix(&rest, "wss://")) {
    out.tls = true;
    out.port = 443;
  } else if (absl::ConsumePrefix(&rest, "ws://")) {
    out.port = 80;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("URL '", url, "' must start with ws:// or wss://"));
  }
  const size_t slash = rest.find('/');
  absl::string_view authority = rest.substr(0, slash);
  if (slash != absl::string_view::npos) out.path = std::string(rest.substr(slash));
  absl::string_view port_text;
  if (absl::ConsumePrefix(&authority, "[")) {
    const size_t close = authority.find(']');
    if (close == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("URL '", url, "': unterminated '['"));
    }
    out.host = std::string(authority.substr(0, close));
    absl::string_view after = authority.substr(close + 1);
    if (!after.empty() && !absl::ConsumePrefix(&after, ":")) {
      return absl::InvalidArgumentError(absl::StrCat("URL '", url, "': junk after ']'"));
    }
    port_text = after;
  } else {
    const size_t colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != absl::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (out.host.empty())
    return absl::InvalidArgumentError(absl::StrCat("URL '", url, "' has no host"));
  if (!port_text.empty()) {
    int port;
    if (!absl::SimpleAtoi(port_text, &port) || port < 1 || port > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("URL '", url, "': bad port '", port_text, "'"));
    }
    out.port = port;
  }
  return out;
}

namespace {

constexpr absl::string_view kHello = "hello, world!";
constexpr size_t kReadSize = 64 * 1024;

std::string MakePayload(size_t size) {
  std::string payload;
  payload.reserve(size);
  while (payload.size() < size) payload.append(kHello.data(), kHello.size());
  payload.resize(size);
  return payload;
}

// What every connection of a run shares (read-only while running).
struct RunContext {
  const LoadClientOptions* options;
  std::string payload;
  int64_t start_nanos = 0;
};

// One WebSocket connection's life after the upgrade: a non-blocking state machine on an event loop.
class Connection : public FdHandler {
 public:
  Connection(const RunContext& run, std::unique_ptr<Transport> transport, ByteBuffer leftover,
             LatencyHistogram* latency, int writes_per_event)
      : run_(run),
        options_(*run.options),
        transport_(std::move(transport)),
        in_(std::move(leftover)),
        reader_({.role = Role::kClient, .assemble = true}),
        latency_(latency),
        writes_per_event_(writes_per_event),
        send_times_(options_.mode == ClientMode::kEcho ? options_.pipeline : 0) {
    in_.Reserve(kReadSize);
    out_.Reserve(4096);
  }

  // Registers with `loop` and starts sending; `on_finished` runs once, when the connection is done.
  void Start(EventLoop* loop, std::function<void()> on_finished) {
    loop_ = loop;
    on_finished_ = std::move(on_finished);
    absl::Status added = loop_->Add(transport_->fd(), kReadable, this);
    if (!added.ok()) return Fail("event_loop", std::string(added.message()));
    interest_ = kReadable;
    // Bytes that came with the 101 answer are frames already.
    if (!in_.empty() && !HandleInput()) return;
    Pump();
  }

  void OnEvents(int /*fd*/, int events) override {
    if (finished_) return;
    if (events & (kReadable | kHangup)) {
      if (!ReadAvailable()) return;
    }
    Pump();
  }

  // Called when the run times out: the connection stops where it is.
  void Abandon() {
    if (!finished_) Fail("timeout", "timed out");
  }

  bool finished() const { return finished_; }
  bool clean() const { return clean_; }
  int64_t sent() const { return sent_published_.load(std::memory_order_relaxed); }
  int64_t received() const { return received_published_.load(std::memory_order_relaxed); }
  int64_t mismatches() const { return mismatches_; }
  int64_t send_done_nanos() const { return send_done_nanos_; }
  const std::string& error_cause() const { return error_cause_; }
  const std::string& error_text() const { return error_text_; }

 private:
  // Writes what there is to write, filling the output with new frames while it may; at most
  // writes_per_event_ writes, so that one connection cannot starve the others on its loop.
  void Pump() {
    for (int writes = 0; writes < writes_per_event_ && !finished_; ++writes) {
      if (out_.empty() && !Fill()) break;
      IoResult r = transport_->Write(out_.data(), out_.size());
      if (r.status == IoStatus::kOk) {
        out_.Consume(r.bytes);
        if (out_.empty() && sent_ == options_.messages && send_done_nanos_ == 0) {
          send_done_nanos_ = MonotonicNanos();
        }
        continue;
      }
      if (r.status == IoStatus::kWantWrite || r.status == IoStatus::kWantRead) break;
      return FailIo(r);
    }
    sent_published_.store(sent_, std::memory_order_relaxed);
    if (finished_) return;
    if (close_received_ && close_sent_ && out_.empty()) return Finish();
    SetInterest(out_.empty() && !CanFill() ? kReadable : kReadable | kWritable);
  }

  bool CanFill() const {
    if (close_sent_) return false;
    if (sent_ < options_.messages) {
      return options_.mode == ClientMode::kSink || in_flight_ < options_.pipeline;
    }
    return options_.mode == ClientMode::kSink || received_ == options_.messages;
  }

  // Appends the next frames to the (empty) output: up to `pipeline` messages, or the close frame
  // once everything was sent (sink) or echoed (echo). False when there is nothing to send now.
  bool Fill() {
    if (!CanFill()) return false;
    if (sent_ == options_.messages) {
      SendClose(kCloseNormal, "done");
      return true;
    }
    const int64_t budget =
        options_.mode == ClientMode::kSink ? options_.pipeline : options_.pipeline - in_flight_;
    const int64_t n = std::min<int64_t>(budget, options_.messages - sent_);
    const absl::string_view payload = run_.payload;
    const Opcode opcode = options_.binary ? Opcode::kBinary : Opcode::kText;
    char* p = out_.WritableSpace(n * (kMaxFrameHeaderSize + payload.size()));
    size_t used = 0;
    const int64_t now = options_.mode == ClientMode::kEcho ? MonotonicNanos() : 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t key = keys_.Next();
      const size_t h = WriteFrameHeader({.fin = true,
                                         .masked = true,
                                         .opcode = opcode,
                                         .mask_key = key,
                                         .payload_length = payload.size()},
                                        p + used);
      MaskCopy(p + used + h, payload.data(), payload.size(), key);
      used += h + payload.size();
      if (options_.mode == ClientMode::kEcho) {
        send_times_[send_tail_] = now;
        send_tail_ = send_tail_ + 1 == send_times_.size() ? 0 : send_tail_ + 1;
      }
    }
    out_.CommitWrite(used);
    sent_ += n;
    in_flight_ += n;
    return true;
  }

  void SendClose(uint16_t code, absl::string_view reason) {
    char payload[kMaxControlPayload];
    const size_t n = WriteClosePayload(code, reason, payload);
    AppendFrame(out_, Opcode::kClose, absl::string_view(payload, n), true, true, keys_.Next());
    close_sent_ = true;
  }

  // Reads until the socket would block; false when the connection ended.
  bool ReadAvailable() {
    for (int reads = 0; reads < 16; ++reads) {
      IoResult r = transport_->Read(in_.WritableSpace(kReadSize), kReadSize);
      if (r.status == IoStatus::kOk) {
        in_.CommitWrite(r.bytes);
        if (!HandleInput()) return false;
        continue;
      }
      if (r.status == IoStatus::kWantRead || r.status == IoStatus::kWantWrite) return true;
      if (r.status == IoStatus::kEof) {
        if (close_received_) {
          Finish();
        } else {
          Fail("eof", "the server closed the connection without a close frame");
        }
        return false;
      }
      FailIo(r);
      return false;
    }
    return true;
  }

  // Handles the frames in `in_`; false when the connection ended.
  bool HandleInput() {
    size_t pos = 0;
    bool ok = true;
    while (ok) {
      WebSocketEvent event;
      pos += reader_.Read(in_.view().substr(pos), &event);
      if (event.type == EventType::kNone) break;
      switch (event.type) {
        case EventType::kMessage:
          ++received_;
          if (options_.mode == ClientMode::kEcho) {
            if (event.payload != run_.payload) ++mismatches_;
            if (in_flight_ > 0) {
              --in_flight_;
              latency_->Record(MonotonicNanos() - send_times_[send_head_]);
              send_head_ = send_head_ + 1 == send_times_.size() ? 0 : send_head_ + 1;
            }
          }
          break;
        case EventType::kPing:
          AppendFrame(out_, Opcode::kPong, event.payload, true, true, keys_.Next());
          break;
        case EventType::kPong:
          break;
        case EventType::kClose:
          close_received_ = true;
          if (!close_sent_) {
            // The server closed first: answer, and count it as an error unless the work was done.
            const bool done = sent_ == options_.messages && (options_.mode == ClientMode::kSink ||
                                                             received_ == options_.messages);
            SendClose(
                event.close_code == kCloseNoStatus ? uint16_t{kCloseNormal} : event.close_code, "");
            if (!done) {
              error_cause_ = absl::StrCat("server_close_", event.close_code);
              error_text_ = absl::StrCat("the server closed with ", event.close_code, " ",
                                         std::string(event.payload));
            }
          }
          break;
        case EventType::kError:
          SendClose(event.close_code, event.payload);
          Fail(absl::StrCat("protocol_", event.close_code),
               absl::StrCat("protocol error from the server: ", std::string(event.payload)));
          ok = false;
          break;
        case EventType::kNone:
          break;
      }
    }
    in_.Consume(std::min(pos, in_.size()));
    received_published_.store(received_, std::memory_order_relaxed);
    if (ok && close_received_ && close_sent_) {
      // Flush our close reply (if any) and finish.
      Pump();
      return !finished_;
    }
    return ok;
  }

  void SetInterest(int events) {
    if (events == interest_) return;
    interest_ = events;
    absl::Status s = loop_->Modify(transport_->fd(), events);
    if (!s.ok()) Fail("event_loop", std::string(s.message()));
  }

  void FailIo(const IoResult& r) {
    Fail(r.error != 0 ? std::string(ErrnoName(r.error)) : "tls", r.message);
  }

  void Fail(std::string cause, std::string text) {
    if (finished_) return;
    if (error_cause_.empty()) {
      error_cause_ = std::move(cause);
      error_text_ = std::move(text);
    }
    Finish();
  }

  void Finish() {
    if (finished_) return;
    finished_ = true;
    // A close frame still queued gets one best-effort write: the server learns why we left.
    if (!out_.empty()) transport_->Write(out_.data(), out_.size());
    clean_ = error_cause_.empty() && close_sent_ && close_received_;
    if (send_done_nanos_ == 0) send_done_nanos_ = MonotonicNanos();
    sent_published_.store(sent_, std::memory_order_relaxed);
    received_published_.store(received_, std::memory_order_relaxed);
    loop_->Remove(transport_->fd());
    transport_.reset();
    if (on_finished_) on_finished_();
  }

  const RunContext& run_;
  const LoadClientOptions& options_;
  std::unique_ptr<Transport> transport_;
  ByteBuffer in_;
  ByteBuffer out_;
  MessageReader reader_;
  MaskKeySource keys_;
  LatencyHistogram* latency_;
  const int writes_per_event_;
  EventLoop* loop_ = nullptr;
  std::function<void()> on_finished_;
  int interest_ = kNoEvents;

  int64_t sent_ = 0;
  int64_t received_ = 0;
  int64_t in_flight_ = 0;
  int64_t mismatches_ = 0;
  int64_t send_done_nanos_ = 0;
  std::vector<int64_t> send_times_;  // echo mode: a ring of send times, one per message in flight
  size_t send_head_ = 0;
  size_t send_tail_ = 0;
  bool close_sent_ = false;
  bool close_received_ = false;
  bool finished_ = false;
  bool clean_ = false;
  std::string error_cause_;
  std::string error_text_;
  // Published for the progress line.
  std::atomic<int64_t> sent_published_{0};
  std::atomic<int64_t> received_published_{0};
};

// Connects, runs TLS and the opening handshake with blocking I/O, and leaves the socket
// non-blocking. `leftover` receives any bytes that followed the 101 answer.
absl::StatusOr<std::unique_ptr<Transport>> OpenConnection(const WebSocketUrl& url,
                                                          const SocketAddress& address,
                                                          TlsClientContext* tls,
                                                          ByteBuffer* leftover) {
  absl::StatusOr<UniqueFd> fd = Connect(address);
  if (!fd.ok()) return fd.status();
  const int raw_fd = fd->get();
  std::unique_ptr<Transport> transport;
  if (tls != nullptr) {
    absl::StatusOr<std::unique_ptr<Transport>> wrapped = tls->Wrap(*std::move(fd), url.host);
    if (!wrapped.ok()) return wrapped.status();
    transport = *std::move(wrapped);
    IoResult r = transport->Handshake();
    if (r.status != IoStatus::kOk) {
      return absl::UnavailableError(r.message);
    }
  } else {
    transport = MakePlainTransport(*std::move(fd));
  }
  const std::string key = GenerateHandshakeKey();
  const std::string request = BuildHandshakeRequest(url.HostHeader(), url.path, key);
  for (size_t done = 0; done < request.size();) {
    IoResult r = transport->Write(request.data() + done, request.size() - done);
    if (r.status != IoStatus::kOk) {
      return absl::UnavailableError(absl::StrCat("sending the upgrade request: ", r.message));
    }
    done += r.bytes;
  }
  ByteBuffer in;
  while (true) {
    IoResult r = transport->Read(in.WritableSpace(4096), 4096);
    if (r.status != IoStatus::kOk) {
      return absl::UnavailableError(
          absl::StrCat("reading the upgrade answer: ",
                       r.status == IoStatus::kEof ? "connection closed" : r.message));
    }
    in.CommitWrite(r.bytes);
    absl::Status error;
    const int n = ParseHandshakeResponse(in.view(), key, &error);
    if (n == kHandshakeError) return error;
    if (n > 0) {
      in.Consume(n);
      *leftover = std::move(in);
      break;
    }
  }
  absl::Status nb = SetNonBlocking(raw_fd);
  if (!nb.ok()) return nb;
  return transport;
}

// A thread's share of the connections, on its own event loop.
struct Driver {
  std::unique_ptr<EventLoop> loop;
  std::vector<std::unique_ptr<Connection>> connections;
  LatencyHistogram latency;
  int remaining = 0;
  std::vector<std::string> open_errors;
};

}  // namespace

absl::StatusOr<LoadClientResult> RunLoadClient(const LoadClientOptions& options) {
  if (options.clients < 1) return absl::InvalidArgumentError("--clients must be >= 1");
  if (options.messages < 1) return absl::InvalidArgumentError("--messages must be >= 1");
  if (options.pipeline < 1) return absl::InvalidArgumentError("--pipeline must be >= 1");
  if (options.threads < 1) return absl::InvalidArgumentError("--threads must be >= 1");
  if (options.size > (64u << 20)) return absl::InvalidArgumentError("--size must be <= 64 MiB");
  absl::StatusOr<WebSocketUrl> url = ParseWebSocketUrl(options.url);
  if (!url.ok()) return url.status();
  absl::StatusOr<std::vector<SocketAddress>> addresses = Resolve(url->host, url->port);
  if (!addresses.ok()) return addresses.status();
  if (addresses->empty()) return absl::NotFoundError(absl::StrCat("no address for ", url->host));
  const SocketAddress address = addresses->front();

  std::unique_ptr<TlsClientContext> tls;
  if (url->tls) {
    TlsClientContext::Options tls_options;
    tls_options.ca_file = options.ca_file;
    tls_options.insecure = options.insecure;
    absl::StatusOr<std::unique_ptr<TlsClientContext>> context =
        TlsClientContext::Create(tls_options);
    if (!context.ok()) return context.status();
    tls = *std::move(context);
  }

  RunContext run;
  run.options = &options;
  run.payload = MakePayload(options.size);

  // threads: one thread and loop per connection (the Go client's goroutine per connection);
  // loop: `threads` loops sharing the connections.
  const bool per_connection = options.model == ClientModel::kThreads;
  const int driver_count =
      per_connection ? options.clients : std::min(options.threads, options.clients);
  std::vector<Driver> drivers(driver_count);
  for (Driver& d : drivers) {
    absl::StatusOr<std::unique_ptr<EventLoop>> loop = EventLoop::Create(DefaultEventLoopBackend());
    if (!loop.ok()) return loop.status();
    d.loop = *std::move(loop);
  }

  std::latch opened(driver_count);
  std::latch go(1);
  std::atomic<bool> timed_out{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < driver_count; ++t) {
    threads.emplace_back([&, t] {
      Driver& d = drivers[t];
      for (int c = t; c < options.clients; c += driver_count) {
        ByteBuffer leftover;
        absl::StatusOr<std::unique_ptr<Transport>> transport =
            OpenConnection(*url, address, tls.get(), &leftover);
        if (!transport.ok()) {
          d.open_errors.push_back(std::string(transport.status().message()));
          continue;
        }
        d.connections.push_back(std::make_unique<Connection>(run, *std::move(transport),
                                                             std::move(leftover), &d.latency,
                                                             per_connection ? 1024 : 64));
      }
      opened.count_down();
      go.wait();
      if (d.connections.empty()) return;
      d.remaining = static_cast<int>(d.connections.size());
      for (auto& c : d.connections) {
        c->Start(d.loop.get(), [&d] {
          if (--d.remaining == 0) d.loop->Stop();
        });
      }
      if (d.remaining > 0) {
        d.loop->AddTimer(run.start_nanos + options.timeout_nanos, [&] {
          timed_out.store(true);
          for (auto& c : d.connections) c->Abandon();
          d.loop->Stop();
        });
        if (absl::Status s = d.loop->Run(); !s.ok()) {
          std::fprintf(stderr, "websocket client: event loop: %s\n", s.ToString().c_str());
        }
      }
    });
  }
  opened.wait();
  int open_failures = 0;
  std::string first_open_error;
  for (Driver& d : drivers) {
    open_failures += static_cast<int>(d.open_errors.size());
    if (first_open_error.empty() && !d.open_errors.empty())
      first_open_error = d.open_errors.front();
  }
  if (open_failures == options.clients) {
    go.count_down();
    for (std::thread& t : threads) t.join();
    return absl::UnavailableError(
        absl::StrCat("could not open any connection to ", options.url, ": ", first_open_error));
  }
  run.start_nanos = MonotonicNanos();
  go.count_down();

  // Progress, once a second, until every driver is done.
  absl::Notification all_done;
  std::thread progress;
  if (options.progress) {
    progress = std::thread([&] {
      int64_t last_sent = 0, last_nanos = run.start_nanos;
      while (!all_done.WaitForNotificationWithTimeout(absl::Seconds(1))) {
        const int64_t now = MonotonicNanos();
        int64_t sent = 0, received = 0;
        for (Driver& d : drivers) {
          for (auto& c : d.connections) {
            sent += c->sent();
            received += c->received();
          }
        }
        std::fprintf(stderr, "progress: %.1f s sent %lld (%.0f msgs/s now) received %lld\n",
                     NanosToSeconds(now - run.start_nanos), static_cast<long long>(sent),
                     (sent - last_sent) * 1e9 / std::max<int64_t>(1, now - last_nanos),
                     static_cast<long long>(received));
        last_sent = sent;
        last_nanos = now;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const int64_t end_nanos = MonotonicNanos();
  all_done.Notify();
  if (progress.joinable()) progress.join();

  LoadClientResult result;
  result.timed_out = timed_out.load();
  result.connections_failed = open_failures;
  if (open_failures > 0) {
    result.errors["connect"] += open_failures;
    result.first_error = first_open_error;
  }
  int64_t last_send_done = run.start_nanos;
  for (Driver& d : drivers) {
    result.latency.Merge(d.latency);
    for (auto& c : d.connections) {
      result.messages_sent += c->sent();
      result.messages_received += c->received();
      result.mismatches += c->mismatches();
      last_send_done = std::max(last_send_done, c->send_done_nanos());
      if (c->clean()) {
        ++result.connections_ok;
      } else {
        ++result.connections_failed;
        result.errors[c->error_cause().empty() ? "unclean_close" : c->error_cause()]++;
        if (result.first_error.empty()) result.first_error = c->error_text();
      }
    }
  }
  if (result.mismatches > 0) result.errors["mismatched_echo"] += result.mismatches;
  result.send_nanos = last_send_done - run.start_nanos;
  result.total_nanos = end_nanos - run.start_nanos;
  return result;
}

}  // namespace netbench::websocket
