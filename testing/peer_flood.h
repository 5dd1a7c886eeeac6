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
//   EXPECT_LT(ResidentBytes() - before, 20 * (in_bound + out_bound) + (16 << 20));
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

// This process's resident set (VmRSS in /proc/self/status), in bytes; 0 where there is no /proc.
uint64_t ResidentBytes();

}  // namespace netbench

#endif  // NETBENCH_TESTING_PEER_FLOOD_H_
