// WebSocket payload masking (RFC 6455 section 5.3): XOR with a repeating 4-byte key, at memory
// speed.
//
// The implementation is chosen once, at run time, by what the CPU has, as simdjson and simdutf
// dispatch: AVX-512 or AVX2 where present, SSE2 on every x86-64, and a portable 64-bit-word loop
// elsewhere. Payloads under 32 bytes take an inline word path with no indirect call.
//
//   uint32_t key;
//   std::memcpy(&key, wire_key_bytes, 4);        // the 4 key bytes as on the wire
//   MaskCopy(send_buffer, payload, size, key);   // mask while copying (a client's send path)
//   Mask(frame_payload, size, key);              // or in place (unmasking works the same way)
//   // Masking a payload in pieces: continue with the key rotated past the bytes already done.
//   Mask(second_piece, n2, RotateMaskKey(key, n1));
//
// Masking and unmasking are the same operation.
#ifndef NETBENCH_WEBSOCKET_MASK_H_
#define NETBENCH_WEBSOCKET_MASK_H_

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace netbench::websocket {

enum class MaskImpl {
  kBytewise,  // one byte at a time: the naive loop, kept as the benchmarks' baseline
  kWord,      // 64 bits at a time, portable C++: the fallback where no SIMD is known
  kSse2,
  kAvx2,
  kAvx512,
};

const char* MaskImplName(MaskImpl impl);
// Whether this CPU (and build) can run `impl`.
bool MaskImplSupported(MaskImpl impl);
// The implementation MaskCopy() dispatches to for payloads of 32 bytes and more.
MaskImpl ActiveMaskImpl();
// Masks with a given implementation (tests and benchmarks); `impl` must be supported.
void MaskCopyWith(MaskImpl impl, char* dst, const char* src, size_t size, uint32_t key);

// The key that continues masking after `offset` bytes of a payload have been masked with `key`.
inline uint32_t RotateMaskKey(uint32_t key, uint64_t offset) {
  const int shift = static_cast<int>(offset & 3) * 8;
  if constexpr (std::endian::native == std::endian::little) {
    return std::rotr(key, shift);
  } else {
    return std::rotl(key, shift);
  }
}

namespace internal {
using MaskFunction = void (*)(char* dst, const char* src, size_t size, uint32_t key);
extern std::atomic<MaskFunction> g_mask_function;

// The word loop, inline for small payloads.
inline void MaskWords(char* dst, const char* src, size_t size, uint32_t key) {
  const uint64_t key64 = (static_cast<uint64_t>(key) << 32) | key;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t v;
    std::memcpy(&v, src + i, 8);
    v ^= key64;
    std::memcpy(dst + i, &v, 8);
  }
  unsigned char key_bytes[4];
  std::memcpy(key_bytes, &key, 4);
  for (; i < size; ++i) dst[i] = static_cast<char>(src[i] ^ key_bytes[i & 3]);
}
}  // namespace internal

// Writes `src` XOR the repeating key to `dst`; `dst` may equal `src` (in place) but must not
// otherwise overlap it.
inline void MaskCopy(char* dst, const char* src, size_t size, uint32_t key) {
  if (size < 32) {
    internal::MaskWords(dst, src, size, key);
  } else {
    internal::g_mask_function.load(std::memory_order_relaxed)(dst, src, size, key);
  }
}

inline void Mask(char* data, size_t size, uint32_t key) { MaskCopy(data, data, size, key); }

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_MASK_H_
