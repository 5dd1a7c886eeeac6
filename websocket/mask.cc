#include "websocket/mask.h"

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define NETBENCH_MASK_X86 1
#endif

namespace netbench::websocket {
namespace {

void MaskBytewise(char* dst, const char* src, size_t size, uint32_t key) {
  unsigned char key_bytes[4];
  std::memcpy(key_bytes, &key, 4);
  for (size_t i = 0; i < size; ++i) dst[i] = static_cast<char>(src[i] ^ key_bytes[i & 3]);
}

void MaskWord(char* dst, const char* src, size_t size, uint32_t key) {
  internal::MaskWords(dst, src, size, key);
}

#if defined(NETBENCH_MASK_X86) && defined(__SSE2__)
void MaskSse2(char* dst, const char* src, size_t size, uint32_t key) {
  // _mm_set1_epi32 repeats the key's memory image in every 4-byte lane, so byte i meets key byte i
  // % 4.
  const __m128i k = _mm_set1_epi32(static_cast<int>(key));
  size_t i = 0;
  for (; i + 64 <= size; i += 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_xor_si128(a, k));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 16), _mm_xor_si128(b, k));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 32), _mm_xor_si128(c, k));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 48), _mm_xor_si128(d, k));
  }
  for (; i + 16 <= size; i += 16) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_xor_si128(a, k));
  }
  // i is a multiple of 4, so the key needs no rotation for the tail.
  internal::MaskWords(dst + i, src + i, size - i, key);
}
#define NETBENCH_MASK_SSE2 1
#endif

#if defined(NETBENCH_MASK_X86) && defined(__GNUC__)
// Stores are aligned to the vector size for long payloads: the bytes up to the boundary are masked
// first and the key rotated past them.
__attribute__((target("avx2"))) void MaskAvx2(char* dst, const char* src, size_t size,
                                              uint32_t key) {
  size_t i = 0;
  if (size >= 512) {
    const size_t head = (32 - (reinterpret_cast<uintptr_t>(dst) & 31)) & 31;
    internal::MaskWords(dst, src, head, key);
    key = RotateMaskKey(key, head);
    i = head;
  }
  const __m256i k = _mm256_set1_epi32(static_cast<int>(key));
  for (; i + 128 <= size; i += 128) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32));
    __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 64));
    __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 96));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_xor_si256(a, k));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 32), _mm256_xor_si256(b, k));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 64), _mm256_xor_si256(c, k));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 96), _mm256_xor_si256(d, k));
  }
  for (; i + 32 <= size; i += 32) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_xor_si256(a, k));
  }
  // From here on the offset since the (possibly rotated) key is a multiple of 4.
  internal::MaskWords(dst + i, src + i, size - i, key);
}

__attribute__((target("avx512f"))) void MaskAvx512(char* dst, const char* src, size_t size,
                                                   uint32_t key) {
  size_t i = 0;
  if (size >= 1024) {
    const size_t head = (64 - (reinterpret_cast<uintptr_t>(dst) & 63)) & 63;
    internal::MaskWords(dst, src, head, key);
    key = RotateMaskKey(key, head);
    i = head;
  }
  const __m512i k = _mm512_set1_epi32(static_cast<int>(key));
  for (; i + 256 <= size; i += 256) {
    __m512i a = _mm512_loadu_si512(src + i);
    __m512i b = _mm512_loadu_si512(src + i + 64);
    __m512i c = _mm512_loadu_si512(src + i + 128);
    __m512i d = _mm512_loadu_si512(src + i + 192);
    _mm512_storeu_si512(dst + i, _mm512_xor_si512(a, k));
    _mm512_storeu_si512(dst + i + 64, _mm512_xor_si512(b, k));
    _mm512_storeu_si512(dst + i + 128, _mm512_xor_si512(c, k));
    _mm512_storeu_si512(dst + i + 192, _mm512_xor_si512(d, k));
  }
  for (; i + 64 <= size; i += 64) {
    __m512i a = _mm512_loadu_si512(src + i);
    _mm512_storeu_si512(dst + i, _mm512_xor_si512(a, k));
  }
  internal::MaskWords(dst + i, src + i, size - i, key);
}
#define NETBENCH_MASK_AVX 1
#endif

internal::MaskFunction FunctionOf(MaskImpl impl) {
  switch (impl) {
    case MaskImpl::kBytewise:
      return &MaskBytewise;
    case MaskImpl::kWord:
      return &MaskWord;
#ifdef NETBENCH_MASK_SSE2
    case MaskImpl::kSse2:
      return &MaskSse2;
#endif
#ifdef NETBENCH_MASK_AVX
    case MaskImpl::kAvx2:
      return &MaskAvx2;
    case MaskImpl::kAvx512:
      return &MaskAvx512;
#endif
    default:
      return nullptr;
  }
}

MaskImpl BestMaskImpl() {
  // AVX2 rather than AVX-512 by default: at the sizes that matter here both are limited by memory
  // and AVX-512 can lower the clock of the whole core on some parts. The benchmark reports both.
  if (MaskImplSupported(MaskImpl::kAvx2)) return MaskImpl::kAvx2;
  if (MaskImplSupported(MaskImpl::kSse2)) return MaskImpl::kSse2;
  return MaskImpl::kWord;
}

// The first call resolves the implementation and replaces itself, so later calls cost one indirect
// jump.
void ResolveAndMask(char* dst, const char* src, size_t size, uint32_t key) {
  internal::MaskFunction f = FunctionOf(BestMaskImpl());
  internal::g_mask_function.store(f, std::memory_order_relaxed);
  f(dst, src, size, key);
}

}  // namespace

namespace internal {
std::atomic<MaskFunction> g_mask_function{&ResolveAndMask};
}  // namespace internal

const char* MaskImplName(MaskImpl impl) {
  switch (impl) {
    case MaskImpl::kBytewise:
      return "bytewise";
    case MaskImpl::kWord:
      return "word";
    case MaskImpl::kSse2:
      return "sse2";
    case MaskImpl::kAvx2:
      return "avx2";
    case MaskImpl::kAvx512:
      return "avx512";
  }
  return "unknown";
}

bool MaskImplSupported(MaskImpl impl) {
  if (FunctionOf(impl) == nullptr) return false;
#ifdef NETBENCH_MASK_AVX
  __builtin_cpu_init();
  if (impl == MaskImpl::kAvx2) return __builtin_cpu_supports("avx2");
  if (impl == MaskImpl::kAvx512) return __builtin_cpu_supports("avx512f");
#endif
  return true;
}

MaskImpl ActiveMaskImpl() { return BestMaskImpl(); }

void MaskCopyWith(MaskImpl impl, char* dst, const char* src, size_t size, uint32_t key) {
  FunctionOf(impl)(dst, src, size, key);
}

}  // namespace netbench::websocket
