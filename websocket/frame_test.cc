#include "websocket/frame.h"

#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "websocket/frame_parser.h"
#include "websocket/frame_writer.h"

namespace netbench::websocket {
namespace {

uint32_t Key(unsigned char a, unsigned char b, unsigned char c, unsigned char d) {
  const unsigned char bytes[4] = {a, b, c, d};
  uint32_t key;
  std::memcpy(&key, bytes, 4);
  return key;
}

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

std::string Serialize(Opcode opcode, absl::string_view payload, bool fin = true,
                      bool masked = false, uint32_t key = 0) {
  ByteBuffer out;
  AppendFrame(out, opcode, payload, fin, masked, key);
  return std::string(out.view());
}

int Parse(const std::string& bytes, Role role, FrameHeader* header, CloseCode* error,
          uint64_t max_payload = kDefaultMaxMessageSize) {
  return ParseFrameHeader(bytes.data(), bytes.size(), {.role = role, .max_payload = max_payload},
                          header, error);
}

// RFC 6455 section 5.7, byte for byte, both ways.
TEST(FrameTest, RfcExamples) {
  const uint32_t key = Key(0x37, 0xfa, 0x21, 0x3d);
  EXPECT_EQ(Serialize(Opcode::kText, "Hello"), Bytes({0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f}));
  EXPECT_EQ(Serialize(Opcode::kText, "Hello", true, true, key),
            Bytes({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}));
  EXPECT_EQ(Serialize(Opcode::kText, "Hel", false), Bytes({0x01, 0x03, 0x48, 0x65, 0x6c}));
  EXPECT_EQ(Serialize(Opcode::kContinuation, "lo"), Bytes({0x80, 0x02, 0x6c, 0x6f}));
  EXPECT_EQ(Serialize(Opcode::kPing, "Hello"), Bytes({0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f}));
  EXPECT_EQ(Serialize(Opcode::kPong, "Hello", true, true, key),
            Bytes({0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}));
  const std::string b256 = Serialize(Opcode::kBinary, std::string(256, 'x'));
  EXPECT_EQ(b256.substr(0, 4), Bytes({0x82, 0x7E, 0x01, 0x00}));
  EXPECT_EQ(b256.size(), 4u + 256);
  const std::string b64k = Serialize(Opcode::kBinary, std::string(65536, 'y'));
  EXPECT_EQ(b64k.substr(0, 10), Bytes({0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(b64k.size(), 10u + 65536);

  FrameHeader h;
  CloseCode error;
  ASSERT_EQ(Parse(Bytes({0x81, 0x05, 0x48}), Role::kClient, &h, &error), 2);
  EXPECT_TRUE(h.fin);
  EXPECT_FALSE(h.masked);
  EXPECT_EQ(h.opcode, Opcode::kText);
  EXPECT_EQ(h.payload_length, 5u);
  ASSERT_EQ(Parse(Bytes({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d}), Role::kServer, &h, &error), 6);
  EXPECT_TRUE(h.masked);
  EXPECT_EQ(h.mask_key, key);
  ASSERT_EQ(Parse(Bytes({0x01, 0x03}), Role::kClient, &h, &error), 2);
  EXPECT_FALSE(h.fin);
  ASSERT_EQ(Parse(Bytes({0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d}), Role::kServer, &h, &error), 6);
  EXPECT_EQ(h.opcode, Opcode::kPong);
  ASSERT_EQ(Parse(b256, Role::kClient, &h, &error), 4);
  EXPECT_EQ(h.payload_length, 256u);
  ASSERT_EQ(Parse(b64k, Role::kClient, &h, &error), 10);
  EXPECT_EQ(h.payload_length, 65536u);
}

TEST(FrameTest, LengthEncodingsRoundTripAtTheirBoundaries) {
  for (uint64_t length :
       {0ull, 1ull, 125ull, 126ull, 127ull, 65535ull, 65536ull, 1ull << 32, (1ull << 63) - 1}) {
    for (bool masked : {false, true}) {
      FrameHeader in{.fin = true,
                     .masked = masked,
                     .opcode = Opcode::kBinary,
                     .mask_key = 0x12345678,
                     .payload_length = length};
      char buf[kMaxFrameHeaderSize];
      const size_t n = WriteFrameHeader(in, buf);
      const size_t expected = (length < 126 ? 2 : length <= 0xFFFF ? 4 : 10) + (masked ? 4 : 0);
      ASSERT_EQ(n, expected);
      FrameHeader out;
      CloseCode error;
      ASSERT_EQ(ParseFrameHeader(
                    buf, n, {.role = masked ? Role::kServer : Role::kClient, .max_payload = ~0ull},
                    &out, &error),
                static_cast<int>(n));
      EXPECT_EQ(out.payload_length, length);
      EXPECT_EQ(out.masked, masked);
      if (masked) {
        EXPECT_EQ(out.mask_key, 0x12345678u);
      }
      // Every shorter prefix needs more.
      for (size_t k = 0; k < n; ++k) {
        ASSERT_EQ(
            ParseFrameHeader(buf, k,
                             {.role = masked ? Role::kServer : Role::kClient, .max_payload = ~0ull},
                             &out, &error),
            kFrameNeedMore)
            << "prefix " << k;
      }
    }
  }
}

struct ErrorCase {
  const char* name;
  std::string bytes;
  Role role;
  CloseCode code;
};

TEST(FrameTest, EveryHeaderErrorHasItsCloseCode) {
  const ErrorCase cases[] = {
      {"rsv1", Bytes({0xC1, 0x80, 0, 0, 0, 0}), Role::kServer, kCloseProtocolError},
      {"rsv2", Bytes({0xA1, 0x80, 0, 0, 0, 0}), Role::kServer, kCloseProtocolError},
      {"rsv3", Bytes({0x91, 0x80, 0, 0, 0, 0}), Role::kServer, kCloseProtocolError},
      {"opcode 3", Bytes({0x83, 0x80, 0, 0, 0, 0}), Role::kServer, kCloseProtocolError},
      {"opcode 7", Bytes({0x87, 0x80, 0, 0, 0, 0}), Role::kServer, kCloseProtocolError},
      {"opcode 11", Bytes({0x8B, 0x80, 0, 0, 0, 0}), Role::kServer, kCloseProtocolError},
      {"opcode 15", Bytes({0x8F, 0x80, 0, 0, 0, 0}), Role::kServer, kCloseProtocolError},
      {"unmasked client frame", Bytes({0x81, 0x00}), Role::kServer, kCloseProtocolError},
      {"masked server frame", Bytes({0x81, 0x80, 0, 0, 0, 0}), Role::kClient, kCloseProtocolError},
      {"fragmented ping", Bytes({0x09, 0x80, 0, 0, 0, 0}), Role::kServer, kCloseProtocolError},
      {"fragmented close", Bytes({0x08, 0x80, 0, 0, 0, 0}), Role::kServer, kCloseProtocolError},
      {"ping of 126 bytes", Bytes({0x89, 0xFE, 0, 126, 0, 0, 0, 0}), Role::kServer,
       kCloseProtocolError},
      {"close with 64-bit length", Bytes({0x88, 0xFF, 0, 0, 0, 0, 0, 0, 0, 1}), Role::kServer,
       kCloseProtocolError},
      {"16-bit length under 126", Bytes({0x82, 0xFE, 0, 125, 0, 0, 0, 0}), Role::kServer,
       kCloseProtocolError},
      {"64-bit length under 65536", Bytes({0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0}),
       Role::kServer, kCloseProtocolError},
      {"64-bit length top bit", Bytes({0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
       Role::kServer, kCloseProtocolError},
      {"over max size (64-bit)", Bytes({0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 1, 0, 0, 0, 0}),
       Role::kServer, kCloseMessageTooBig},
  };
  for (const ErrorCase& c : cases) {
    FrameHeader h;
    CloseCode error = kCloseNormal;
    EXPECT_EQ(Parse(c.bytes, c.role, &h, &error), kFrameError) << c.name;
    EXPECT_EQ(error, c.code) << c.name;
    // Byte at a time: need-more until the error shows, never a success.
    for (size_t k = 0; k < c.bytes.size(); ++k) {
      const int r = Parse(c.bytes.substr(0, k), c.role, &h, &error);
      EXPECT_TRUE(r == kFrameNeedMore || (r == kFrameError && error == c.code))
          << c.name << " " << k;
    }
  }
}

TEST(FrameTest, MaxPayloadAppliesToEveryLengthEncoding) {
  FrameHeader h;
  CloseCode error;
  EXPECT_EQ(Parse(Bytes({0x82, 0x8B, 0, 0, 0, 0}), Role::kServer, &h, &error, 10), kFrameError);
  EXPECT_EQ(error, kCloseMessageTooBig);
  EXPECT_EQ(Parse(Bytes({0x82, 0x8A, 0, 0, 0, 0}), Role::kServer, &h, &error, 10), 6);
  EXPECT_EQ(Parse(Bytes({0x82, 0xFE, 0x01, 0x00, 0, 0, 0, 0}), Role::kServer, &h, &error, 255),
            kFrameError);
  EXPECT_EQ(error, kCloseMessageTooBig);
  // The announcement alone fails: no payload byte has arrived.
  EXPECT_EQ(Parse(Bytes({0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 1}), Role::kServer, &h, &error),
            kFrameError);
  EXPECT_EQ(error, kCloseMessageTooBig);
  // Control frames are bounded by 125 bytes, not by max_payload.
  EXPECT_EQ(Parse(Bytes({0x89, 0x8B, 0, 0, 0, 0}), Role::kServer, &h, &error, 10), 6);
}

TEST(FrameTest, AllowedRsvBitsPass) {
  FrameHeader h;
  CloseCode error;
  const std::string bytes = Bytes({0xC1, 0x80, 0, 0, 0, 0});
  EXPECT_EQ(ParseFrameHeader(bytes.data(), bytes.size(), {.allowed_rsv = 0x4}, &h, &error), 6);
  EXPECT_EQ(h.rsv, 0x4);
}

}  // namespace
}  // namespace netbench::websocket
