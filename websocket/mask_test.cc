#include "websocket/mask.h"

#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "websocket/mask_key_source.h"

namespace netbench::websocket {
namespace {

std::string Reference(const std::string& in, const unsigned char key[4]) {
  std::string out = in;
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>(out[i] ^ key[i % 4]);
  return out;
}

std::vector<MaskImpl> SupportedImpls() {
  std::vector<MaskImpl> impls;
  for (MaskImpl impl : {MaskImpl::kBytewise, MaskImpl::kWord, MaskImpl::kSse2, MaskImpl::kAvx2,
                        MaskImpl::kAvx512}) {
    if (MaskImplSupported(impl)) impls.push_back(impl);
  }
  return impls;
}

TEST(MaskTest, RfcExampleHello) {
  // RFC 6455 section 5.7: "Hello" masked with 37 fa 21 3d.
  const unsigned char key_bytes[4] = {0x37, 0xfa, 0x21, 0x3d};
  uint32_t key;
  std::memcpy(&key, key_bytes, 4);
  char data[] = "Hello";
  Mask(data, 5, key);
  EXPECT_EQ(std::string(data, 5), std::string("\x7f\x9f\x4d\x51\x58", 5));
  Mask(data, 5, key);
  EXPECT_EQ(std::string(data, 5), "Hello");
}

TEST(MaskTest, EveryImplementationMatchesTheReferenceAtEverySizeAndAlignment) {
  std::mt19937 rng(42);
  std::vector<size_t> sizes;
  for (size_t s = 0; s <= 300; ++s) sizes.push_back(s);
  for (size_t s : {511, 512, 513, 1023, 1024, 1025, 4099, 65536, 65537}) sizes.push_back(s);
  for (MaskImpl impl : SupportedImpls()) {
    SCOPED_TRACE(MaskImplName(impl));
    for (size_t size : sizes) {
      for (size_t src_offset : {0, 1, 3}) {
        for (size_t dst_offset : {0, 5, 32}) {
          std::string input(size, '\0');
          for (char& c : input) c = static_cast<char>(rng());
          unsigned char key_bytes[4] = {
              static_cast<unsigned char>(rng()), static_cast<unsigned char>(rng()),
              static_cast<unsigned char>(rng()), static_cast<unsigned char>(rng())};
          uint32_t key;
          std::memcpy(&key, key_bytes, 4);
          std::vector<char> src(size + 64), dst(size + 64, 'z');
          std::memcpy(src.data() + src_offset, input.data(), size);
          MaskCopyWith(impl, dst.data() + dst_offset, src.data() + src_offset, size, key);
          ASSERT_EQ(std::string(dst.data() + dst_offset, size), Reference(input, key_bytes))
              << "size " << size;
          // Nothing outside the destination was touched.
          for (size_t i = 0; i < dst_offset; ++i) ASSERT_EQ(dst[i], 'z');
          for (size_t i = dst_offset + size; i < dst.size(); ++i) ASSERT_EQ(dst[i], 'z');
          // In place.
          MaskCopyWith(impl, src.data() + src_offset, src.data() + src_offset, size, key);
          ASSERT_EQ(std::string(src.data() + src_offset, size), Reference(input, key_bytes));
        }
      }
    }
  }
}

TEST(MaskTest, DispatchedMaskMatchesReference) {
  std::mt19937 rng(7);
  const unsigned char key_bytes[4] = {1, 2, 3, 250};
  uint32_t key;
  std::memcpy(&key, key_bytes, 4);
  for (size_t size : {0, 1, 13, 31, 32, 125, 1024, 100000}) {
    std::string input(size, '\0');
    for (char& c : input) c = static_cast<char>(rng());
    std::string data = input;
    Mask(data.data(), data.size(), key);
    EXPECT_EQ(data, Reference(input, key_bytes));
  }
  EXPECT_TRUE(MaskImplSupported(ActiveMaskImpl()));
}

TEST(MaskTest, MaskingInPiecesWithRotatedKeysEqualsWhole) {
  std::mt19937 rng(3);
  const unsigned char key_bytes[4] = {0xde, 0xad, 0xbe, 0xef};
  uint32_t key;
  std::memcpy(&key, key_bytes, 4);
  std::string input(1000, '\0');
  for (char& c : input) c = static_cast<char>(rng());
  for (size_t split : {1, 2, 3, 4, 5, 7, 33, 500, 999}) {
    std::string data = input;
    Mask(data.data(), split, key);
    Mask(data.data() + split, data.size() - split, RotateMaskKey(key, split));
    EXPECT_EQ(data, Reference(input, key_bytes)) << "split " << split;
  }
  EXPECT_EQ(RotateMaskKey(key, 0), key);
  EXPECT_EQ(RotateMaskKey(key, 4), key);
}

TEST(MaskKeySourceTest, KeysVaryAcrossRefills) {
  MaskKeySource keys;
  std::set<uint32_t> seen;
  for (int i = 0; i < 3000; ++i) seen.insert(keys.Next());
  // 3,000 draws of 32 random bits collide with probability ~1e-3 per pair count; allow a few.
  EXPECT_GT(seen.size(), 2990u);
}

}  // namespace
}  // namespace netbench::websocket
