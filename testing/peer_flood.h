// Peers that write and never read, for tests that a server bounds what a connection costs it: each
// connection sends its prefix (a WebSocket handshake, say), then its unit over and over, until it
// has sent `bytes_per_connection` or the server has stopped reading from every connection (no
// socket took a byte for `stall`: a stop criterion, never asserted on). The connections stay open,
// unread, until the PeerFlood goes.
//
//   uint64_t before = ResidentBytes();
//   PeerFlood flood = FloodWithoutReading(port, {.connections = 20,
//                                                .bytes_per_connection = 8 << 20,
//                                                .unit = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"});
//   EXPECT_LT(ResidentGrowthSince(before), FloodMemoryBudget(20, in_bound, out_bound));
#ifndef NETBENCH_TESTING_PEER_FLOOD_H_
#define NETBENCH_TESTING_PEER_FLOOD_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/unique_fd.h"

namespace netbench {

struct PeerFloodOptions {
  int connections = 20;
  uint64_t bytes_per_connection = 8 << 20;
  std::string prefix;  // sent once, first
  std::string unit;    // then repeated
  std::chrono::milliseconds stall{1000};
};

struct PeerFlood {
  std::vector<UniqueFd> connections;  // open, never read
  uint64_t bytes_sent = 0;            // by all of them
  int closed_by_server = 0;           // connections whose writes failed (reset)
};

// Connects to 127.0.0.1:`port` and floods; a connection that cannot be made leaves `connections`
// short.
PeerFlood FloodWithoutReading(int port, const PeerFloodOptions& options);

// This process's resident set, in bytes (common/platform.h's ResidentMemoryBytes).
uint64_t ResidentBytes();

// How much the resident set grew since `before` (0 if it shrank).
uint64_t ResidentGrowthSince(uint64_t before);

// What `connections` flooding peers may cost a server at most: both of its per-connection bounds
// for each, plus 16 MB for what does not scale with them (threads, allocator, the test itself).
inline uint64_t FloodMemoryBudget(int connections, uint64_t input_bound, uint64_t output_bound) {
  return static_cast<uint64_t>(connections) * (input_bound + output_bound) + (16u << 20);
}

// Sanitizer runtimes keep shadow memory and quarantined frees: under them the resident set says
// nothing about what the code under test holds, and the memory tests check only the servers' own
// counters. A function, answered where this library is compiled: CI's sanitizer pass instruments
// the code under test and this library but compiles the tests' own files as the plain build does.
bool ResidentBytesMeaningful();

}  // namespace netbench

#endif  // NETBENCH_TESTING_PEER_FLOOD_H_
