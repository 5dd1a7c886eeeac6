// Differential fuzzing of payload masking (mask.h): every implementation this CPU supports (the
// bytewise and word loops, SSE2, AVX2, AVX-512), the inline small-payload path and the dispatched
// MaskCopy, in place and while copying, whole and in two pieces with RotateMaskKey, must all give
// what a plain loop written here gives. Source and destination are exact-size allocations at an
// offset the input picks, so a vector load or store past the end is a heap overflow under ASan.
//
// Input: 4 key bytes, 1 byte of offsets (low 5 bits: destination misalignment, high 3: source
// misalignment), then the payload.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "common/fuzz_check.h"
#include "websocket/mask.h"

namespace {

using netbench::websocket::MaskImpl;

void ReferenceMask(char* dst, const char* src, size_t size, uint32_t key) {
  unsigned char key_bytes[4];
  std::memcpy(key_bytes, &key, 4);
  for (size_t i = 0; i < size; ++i) dst[i] = static_cast<char>(src[i] ^ key_bytes[i % 4]);
}

// A buffer of exactly `size` bytes that starts `misalign` bytes into its allocation.
struct Buffer {
  Buffer(size_t size, size_t misalign)
      : storage(new char[size + misalign]), data(storage.get() + misalign) {}
  std::unique_ptr<char[]> storage;
  char* data;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* input, size_t input_size) {
  using namespace netbench::websocket;
  if (input_size < 5) return 0;
  uint32_t key;
  std::memcpy(&key, input, 4);
  const size_t dst_misalign = input[4] & 31;
  const size_t src_misalign = input[4] >> 5;
  const char* payload = reinterpret_cast<const char*>(input) + 5;
  const size_t size = input_size - 5;

  Buffer src(size, src_misalign);
  std::memcpy(src.data, payload, size);
  Buffer expected(size, 0);
  ReferenceMask(expected.data, src.data, size, key);

  for (MaskImpl impl : {MaskImpl::kBytewise, MaskImpl::kWord, MaskImpl::kSse2, MaskImpl::kAvx2,
                        MaskImpl::kAvx512}) {
    if (!MaskImplSupported(impl)) continue;
    Buffer dst(size, dst_misalign);
    MaskCopyWith(impl, dst.data, src.data, size, key);
    FUZZ_CHECK(std::memcmp(dst.data, expected.data, size) == 0);
    // In place.
    Buffer inplace(size, dst_misalign);
    std::memcpy(inplace.data, src.data, size);
    MaskCopyWith(impl, inplace.data, inplace.data, size, key);
    FUZZ_CHECK(std::memcmp(inplace.data, expected.data, size) == 0);
  }

  // The inline word path (small payloads) and the dispatched one.
  Buffer words(size, dst_misalign);
  internal::MaskWords(words.data, src.data, size, key);
  FUZZ_CHECK(std::memcmp(words.data, expected.data, size) == 0);
  Buffer copied(size, dst_misalign);
  MaskCopy(copied.data, src.data, size, key);
  FUZZ_CHECK(std::memcmp(copied.data, expected.data, size) == 0);

  // In two pieces, in place, the second continuing with the rotated key; the cut comes from the
  // offsets byte so that it falls on every residue.
  const size_t cut = size == 0 ? 0 : (input[4] * 7u) % (size + 1);
  Buffer pieces(size, dst_misalign);
  std::memcpy(pieces.data, src.data, size);
  Mask(pieces.data, cut, key);
  Mask(pieces.data + cut, size - cut, RotateMaskKey(key, cut));
  FUZZ_CHECK(std::memcmp(pieces.data, expected.data, size) == 0);
  return 0;
}
