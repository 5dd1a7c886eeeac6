// TLS transport costs on loopback, one thread driving both ends of a non-blocking connection.
//
//   BM_TlsHandshake: a full TLS 1.3 handshake (no resumption) with the self-signed P-256
//     certificate, connect included: both sides' work per HTTPS connection of a fan-out, the
//     client's signature check most of it; items/s = handshakes/s.
//   BM_TlsSmallMessages/N: N-byte application writes (a small WebSocket frame, say), each its own
//     record, read back with a 64 KiB buffer; items/s = messages/s, bytes/s = payload bytes/s.
//   BM_TlsWritevHeaderAndPayload: a 2-byte header and a 64-byte payload per message through Writev
//     (gathered into one record): the wss client's hot path.
//   BM_TlsBulk: 1 MiB through 16 KiB writes.
#include <poll.h>

#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "common/socket.h"
#include "common/tls.h"
#include "common/transport.h"

namespace netbench {
namespace {

struct Pair {
  std::unique_ptr<TlsServerContext> server_context;
  std::unique_ptr<TlsClientContext> client_context;
  std::unique_ptr<Transport> client;
  std::unique_ptr<Transport> server;
};

bool Pending(IoStatus s) { return s == IoStatus::kWantRead || s == IoStatus::kWantWrite; }

// Connects a new client to `listener` and completes the handshake of both ends; false on failure.
bool ConnectAndHandshake(Pair& pair, const Listener& listener) {
  UniqueFd client_fd = Connect("127.0.0.1", listener.port).value();
  UniqueFd server_fd = Accept(listener.fd.get(), true).value();
  (void)SetNonBlocking(client_fd.get());
  pair.client = pair.client_context->Wrap(std::move(client_fd), "localhost").value();
  pair.server = pair.server_context->Wrap(std::move(server_fd)).value();
  IoResult c = pair.client->Handshake(), s = pair.server->Handshake();
  for (int i = 0; i < 1000 && (Pending(c.status) || Pending(s.status)); ++i) {
    pollfd fds[2] = {{pair.client->fd(), POLLIN | POLLOUT, 0},
                     {pair.server->fd(), POLLIN | POLLOUT, 0}};
    poll(fds, 2, 1000);
    if (Pending(c.status)) c = pair.client->Handshake();
    if (Pending(s.status)) s = pair.server->Handshake();
  }
  return c.status == IoStatus::kOk && s.status == IoStatus::kOk;
}

std::unique_ptr<Pair> MakeContexts() {
  auto pair = std::make_unique<Pair>();
  pair->server_context = TlsServerContext::SelfSigned().value();
  pair->client_context =
      TlsClientContext::Create({.ca_pem = pair->server_context->certificate_pem()}).value();
  return pair;
}

std::unique_ptr<Pair> MakePair() {
  std::unique_ptr<Pair> pair = MakeContexts();
  Listener listener = Listen({.host = "127.0.0.1", .port = 0}).value();
  return ConnectAndHandshake(*pair, listener) ? std::move(pair) : nullptr;
}

void BM_TlsHandshake(benchmark::State& state) {
  std::unique_ptr<Pair> pair = MakeContexts();
  Listener listener = Listen({.host = "127.0.0.1", .port = 0}).value();
  for (auto _ : state) {
    if (!ConnectAndHandshake(*pair, listener)) return state.SkipWithError("handshake failed");
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TlsHandshake);

// Reads until `bytes` have arrived (waiting with poll when the socket is empty).
bool ReadBytes(Transport& t, size_t bytes, char* buffer, size_t buffer_size) {
  size_t got = 0;
  while (got < bytes) {
    IoResult r = t.Read(buffer, buffer_size);
    if (r.status == IoStatus::kOk) {
      got += r.bytes;
    } else if (r.status == IoStatus::kWantRead) {
      pollfd fd = {t.fd(), POLLIN, 0};
      poll(&fd, 1, 1000);
    } else {
      return false;
    }
  }
  return true;
}

void BM_TlsSmallMessages(benchmark::State& state) {
  std::unique_ptr<Pair> pair = MakePair();
  if (pair == nullptr) return state.SkipWithError("handshake failed");
  const size_t size = state.range(0);
  constexpr int kBatch = 64;  // messages written before the reader drains them
  std::string message(size, 'm');
  std::string buffer(65536, '\0');
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      if (pair->client->Write(message.data(), size).status != IoStatus::kOk) {
        return state.SkipWithError("write did not complete");
      }
    }
    if (!ReadBytes(*pair->server, size * kBatch, buffer.data(), buffer.size()))
      return state.SkipWithError("read");
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.SetBytesProcessed(state.iterations() * kBatch * size);
}
BENCHMARK(BM_TlsSmallMessages)->Arg(16)->Arg(128)->Arg(1024);

void BM_TlsWritevHeaderAndPayload(benchmark::State& state) {
  std::unique_ptr<Pair> pair = MakePair();
  if (pair == nullptr) return state.SkipWithError("handshake failed");
  constexpr int kBatch = 64;
  char header[2] = {char(0x82), 64};
  std::string payload(64, 'p');
  std::string buffer(65536, '\0');
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      iovec iov[2] = {{header, sizeof(header)}, {payload.data(), payload.size()}};
      IoResult w = pair->client->Writev(iov, 2);
      if (w.status != IoStatus::kOk || w.bytes != sizeof(header) + payload.size()) {
        return state.SkipWithError("writev did not complete");
      }
    }
    if (!ReadBytes(*pair->server, (sizeof(header) + payload.size()) * kBatch, buffer.data(),
                   buffer.size())) {
      return state.SkipWithError("read");
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.SetBytesProcessed(state.iterations() * kBatch * (sizeof(header) + payload.size()));
}
BENCHMARK(BM_TlsWritevHeaderAndPayload);

void BM_TlsBulk(benchmark::State& state) {
  std::unique_ptr<Pair> pair = MakePair();
  if (pair == nullptr) return state.SkipWithError("handshake failed");
  constexpr size_t kTotal = 1 << 20, kChunk = 16384;
  std::string chunk(kChunk, 'b');
  std::string buffer(65536, '\0');
  for (auto _ : state) {
    size_t sent = 0, received = 0;
    while (received < kTotal) {
      if (sent < kTotal) {
        IoResult w = pair->client->Write(chunk.data(), kChunk);
        if (w.status == IoStatus::kOk) sent += w.bytes;
      }
      IoResult r = pair->server->Read(buffer.data(), buffer.size());
      if (r.status == IoStatus::kOk) {
        received += r.bytes;
      } else if (r.status != IoStatus::kWantRead) {
        return state.SkipWithError("read");
      } else if (sent >= kTotal) {
        pollfd fd = {pair->server->fd(), POLLIN, 0};
        poll(&fd, 1, 1000);
      }
    }
  }
  state.SetBytesProcessed(state.iterations() * kTotal);
}
BENCHMARK(BM_TlsBulk);

}  // namespace
}  // namespace netbench
