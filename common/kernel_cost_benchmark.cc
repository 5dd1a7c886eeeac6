// What the kernel charges for the three operations every netbench program is made of, measured on
// the machine at hand. Whole-program results (CPU per message) are mostly these costs added up, and
// they differ between machines far more than user-space code does (a virtual machine with
// page-table isolation pays several times what bare metal pays per syscall), so the suite records
// them beside the results and the README reads the targets against them.
//   BM_WriteToDevNull: one write(2) of 22 bytes that goes nowhere: the bare price of a syscall.
//   BM_TcpSendWithoutWakeup/peer_reads_every:N: one 22-byte send on loopback TCP with
//     TCP_NODELAY (a segment each, as the echo load generator and the Go spammer write) to a peer
//     that nobody waits on, so no task is woken: the floor of "one write per message". The peer
//     reads every N messages, outside the timed part.
//   BM_TcpRoundTripBlocking: one byte there and back between two threads blocked in read(2): two
//     sends, two reads, and two sleep/wake cycles, CPU time of both threads (the process).
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/platform.h"
#include "common/socket.h"
#include "common/unique_fd.h"

namespace netbench {
namespace {

constexpr char kMessage[] = "\0\0\0\x0e\0\0\0\x01hello, friend\n";  // the echo load's 22 bytes
constexpr size_t kMessageSize = sizeof(kMessage) - 1;
static_assert(kMessageSize == 22);

struct LoopbackPair {
  UniqueFd client;
  UniqueFd server;
};

// A connected loopback pair; Connect and Accept set TCP_NODELAY on both ends.
bool MakeLoopbackPair(LoopbackPair& pair, benchmark::State& state) {
  auto listener = Listen({.host = "127.0.0.1", .port = 0});
  if (!listener.ok()) {
    state.SkipWithError(std::string(listener.status().message()).c_str());
    return false;
  }
  auto client = Connect("127.0.0.1", listener->port);
  auto server = client.ok() ? Accept(listener->fd.get(), /*non_blocking=*/false)
                            : absl::StatusOr<UniqueFd>(client.status());
  if (!server.ok()) {
    state.SkipWithError(std::string(server.status().message()).c_str());
    return false;
  }
  pair.client = std::move(*client);
  pair.server = std::move(*server);
  return true;
}

void BM_WriteToDevNull(benchmark::State& state) {
  UniqueFd fd(open("/dev/null", O_WRONLY | O_CLOEXEC));
  for (auto _ : state) {
    if (write(fd.get(), kMessage, kMessageSize) != static_cast<ssize_t>(kMessageSize)) {
      state.SkipWithError("write to /dev/null failed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WriteToDevNull);

void BM_TcpSendWithoutWakeup(benchmark::State& state) {
  LoopbackPair pair;
  if (!MakeLoopbackPair(pair, state)) return;
  // The price of a send depends on how the peer reads: each read acknowledges what it took, and the
  // sender processes those acknowledgements. Measured on the 2-core VM of results/ over six runs:
  // reading every message costs the sender 1.2-2.1x what reading every 8 does, and letting
  // thousands pile up 0.45-0.7x.
  const int64_t sends_between_reads = state.range(0);
  std::vector<char> drain(sends_between_reads * kMessageSize);
  int unread = 0;
  for (auto _ : state) {
    if (SendNoSignal(pair.client.get(), kMessage, kMessageSize) !=
        static_cast<ssize_t>(kMessageSize)) {
      state.SkipWithError("send failed");
      break;
    }
    if (++unread == sends_between_reads) {
      state.PauseTiming();
      // Loopback delivers within send(), so the bytes are there already; MSG_WAITALL only guards.
      if (recv(pair.server.get(), drain.data(), drain.size(), MSG_WAITALL) !=
          static_cast<ssize_t>(drain.size())) {
        state.SkipWithError("drain failed");
      }
      unread = 0;
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
// A reader that takes every segment at once, one that reads every few messages as the event-loop
// servers do under stream load (4-12 messages per read), and one that lets them pile up.
BENCHMARK(BM_TcpSendWithoutWakeup)->ArgName("peer_reads_every")->Arg(1)->Arg(8)->Arg(2048);

void BM_TcpRoundTripBlocking(benchmark::State& state) {
  LoopbackPair pair;
  if (!MakeLoopbackPair(pair, state)) return;
  // The echoing thread ends when the client end shuts down (read returns 0).
  std::thread echo([fd = pair.server.get()] {
    char byte;
    while (read(fd, &byte, 1) == 1 && write(fd, &byte, 1) == 1) {
    }
  });
  char byte = 'x';
  for (auto _ : state) {
    if (write(pair.client.get(), &byte, 1) != 1 || read(pair.client.get(), &byte, 1) != 1) {
      state.SkipWithError("round trip failed");
      break;
    }
  }
  shutdown(pair.client.get(), SHUT_WR);
  echo.join();
  state.SetItemsProcessed(state.iterations());
}
// Both threads' CPU: the wake-ups are paid partly by the waker, partly by the woken.
BENCHMARK(BM_TcpRoundTripBlocking)->MeasureProcessCPUTime()->UseRealTime();

}  // namespace
}  // namespace netbench
