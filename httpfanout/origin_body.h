// The origin server's page: a deterministic pattern of a given size, so that a client can check
// every body it reads by length and checksum without having seen the page before.
//
//   std::string body = MakeOriginBody(25600);
//   uint64_t want = Fnv1a64(body);                  // what every response's body must hash to
//   uint64_t h = kFnv1a64Offset;                    // incrementally, piece by piece:
//   h = Fnv1a64Update(h, piece1); h = Fnv1a64Update(h, piece2);
#ifndef NETBENCH_HTTPFANOUT_ORIGIN_BODY_H_
#define NETBENCH_HTTPFANOUT_ORIGIN_BODY_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace netbench {

// Printable lines of 80 bytes whose content depends on the position, so that a dropped, repeated or
// misplaced piece changes the checksum.
std::string MakeOriginBody(size_t size);

inline constexpr uint64_t kFnv1a64Offset = 14695981039346656037ull;

inline uint64_t Fnv1a64Update(uint64_t hash, absl::string_view bytes) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

inline uint64_t Fnv1a64(absl::string_view bytes) { return Fnv1a64Update(kFnv1a64Offset, bytes); }

}  // namespace netbench

#endif  // NETBENCH_HTTPFANOUT_ORIGIN_BODY_H_
