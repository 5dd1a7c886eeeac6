#include "websocket/message_reader.h"

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "websocket/close_frame.h"
#include "websocket/frame_writer.h"

namespace netbench::websocket {
namespace {

struct Seen {
  EventType type;
  Opcode opcode;
  std::string payload;
  uint64_t size;
  uint16_t code;
  bool operator==(const Seen& o) const {
    return type == o.type && opcode == o.opcode && payload == o.payload && size == o.size &&
           code == o.code;
  }
};

std::ostream& operator<<(std::ostream& os, const Seen& s) {
  return os << "{type " << static_cast<int>(s.type) << " opcode " << static_cast<int>(s.opcode)
            << " size " << s.size << " code " << s.code << "}";
}

// A client's frame (masked with a fixed key), as a server receives it.
std::string Frame(Opcode opcode, absl::string_view payload, bool fin = true, bool masked = true) {
  ByteBuffer out;
  AppendFrame(out, opcode, payload, fin, masked, 0x5a3c9e17);
  return std::string(out.view());
}

std::string Close(uint16_t code, absl::string_view reason = "") {
  std::string payload;
  payload.push_back(static_cast<char>(code >> 8));
  payload.push_back(static_cast<char>(code & 0xFF));
  payload.append(reason.data(), reason.size());
  return Frame(Opcode::kClose, payload);
}

// Feeds `stream` in pieces of at most `chunk` bytes (0: all at once), keeping unconsumed bytes as a
// real connection does, and records the events.
std::vector<Seen> ReadAll(const std::string& stream, size_t chunk,
                          MessageReaderOptions options = {}) {
  MessageReader reader(options);
  std::vector<Seen> seen;
  std::string pending;
  size_t fed = 0;
  if (chunk == 0) chunk = stream.size() + 1;
  while (fed < stream.size()) {
    const size_t n = std::min(chunk, stream.size() - fed);
    pending.append(stream, fed, n);
    fed += n;
    size_t pos = 0;
    while (true) {
      WebSocketEvent event;
      pos += reader.Read(absl::string_view(pending).substr(pos), &event);
      if (event.type == EventType::kNone) break;
      seen.push_back(
          {event.type, event.opcode, std::string(event.payload), event.size, event.close_code});
      if (event.type == EventType::kError) {
        // Errors report a description, not data: keep only the code for comparisons.
        seen.back().payload.clear();
      }
    }
    EXPECT_LE(pending.size() - pos, kMaxFrameHeaderSize) << "the reader left payload unconsumed";
    pending.erase(0, pos);
  }
  return seen;
}

// Checks that whole, byte-at-a-time and odd-sized feeding all see the same events, and returns
// them.
std::vector<Seen> ReadEveryWay(const std::string& stream, MessageReaderOptions options = {}) {
  std::vector<Seen> whole = ReadAll(stream, 0, options);
  for (size_t chunk : {1, 2, 3, 7, 13, 64, 1000}) {
    EXPECT_EQ(ReadAll(stream, chunk, options), whole) << "chunk " << chunk;
  }
  return whole;
}

Seen Message(Opcode opcode, const std::string& payload) {
  return {EventType::kMessage, opcode, payload, payload.size(), 0};
}
Seen Error(uint16_t code) { return {EventType::kError, Opcode::kContinuation, "", 0, code}; }

TEST(MessageReaderTest, RfcSingleFrameMessages) {
  // RFC 6455 section 5.7: a masked "Hello" from a client.
  const std::string masked_hello = "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58";
  EXPECT_EQ(ReadEveryWay(masked_hello), std::vector<Seen>{Message(Opcode::kText, "Hello")});
  // Unmasked "Hello" from a server, read by a client.
  const std::string hello = "\x81\x05\x48\x65\x6c\x6c\x6f";
  EXPECT_EQ(ReadEveryWay(hello, {.role = Role::kClient}),
            std::vector<Seen>{Message(Opcode::kText, "Hello")});
  // Fragmented, unmasked.
  const std::string fragmented = "\x01\x03\x48\x65\x6c\x80\x02\x6c\x6f";
  EXPECT_EQ(ReadEveryWay(fragmented, {.role = Role::kClient}),
            std::vector<Seen>{Message(Opcode::kText, "Hello")});
}

TEST(MessageReaderTest, PayloadSizesAcrossLengthEncodings) {
  std::mt19937 rng(1);
  std::string stream;
  std::vector<Seen> expected;
  for (size_t size : {0, 1, 125, 126, 127, 65535, 65536, 1 << 20}) {
    std::string payload(size, '\0');
    for (char& c : payload) c = static_cast<char>(rng());
    stream += Frame(Opcode::kBinary, payload);
    expected.push_back(Message(Opcode::kBinary, payload));
    std::string text(size, 'a');
    stream += Frame(Opcode::kText, text);
    expected.push_back(Message(Opcode::kText, text));
  }
  EXPECT_EQ(ReadAll(stream, 0), expected);
  EXPECT_EQ(ReadAll(stream, 4093), expected);
  EXPECT_EQ(ReadAll(stream, 1 << 16), expected);
}

TEST(MessageReaderTest, ControlFramesInterleaveWithFragments) {
  const std::string stream = Frame(Opcode::kText, "he", false) + Frame(Opcode::kPing, "p1") +
                             Frame(Opcode::kContinuation, "\xce", false) +
                             Frame(Opcode::kPong, "") + Frame(Opcode::kContinuation, "\xba!") +
                             Frame(Opcode::kBinary, "bin") + Close(1000, "bye");
  std::vector<Seen> expected = {
      {EventType::kPing, Opcode::kPing, "p1", 2, 0},
      {EventType::kPong, Opcode::kPong, "", 0, 0},
      Message(Opcode::kText, "he\xce\xba!"),
      Message(Opcode::kBinary, "bin"),
      {EventType::kClose, Opcode::kClose, "bye", 5, 1000},
  };
  EXPECT_EQ(ReadEveryWay(stream), expected);
}

TEST(MessageReaderTest, CloseWithoutCodeReports1005AndLaterInputIsIgnored) {
  const std::string stream = Frame(Opcode::kClose, "") + Frame(Opcode::kText, "ignored");
  std::vector<Seen> expected = {{EventType::kClose, Opcode::kClose, "", 0, kCloseNoStatus}};
  EXPECT_EQ(ReadEveryWay(stream), expected);
}

TEST(MessageReaderTest, ValidCloseCodes) {
  for (uint16_t code : {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 4999}) {
    std::vector<Seen> expected = {{EventType::kClose, Opcode::kClose, "r", 3, code}};
    EXPECT_EQ(ReadEveryWay(Close(code, "r")), expected) << code;
  }
}

TEST(MessageReaderTest, EveryProtocolErrorHasItsCloseCode) {
  struct Case {
    const char* name;
    std::string stream;
    uint16_t code;
    MessageReaderOptions options;
  };
  const Case cases[] = {
      {"continuation without a message",
       Frame(Opcode::kContinuation, "x"),
       kCloseProtocolError,
       {}},
      {"new message inside a fragmented one",
       Frame(Opcode::kText, "a", false) + Frame(Opcode::kText, "b"),
       kCloseProtocolError,
       {}},
      {"binary inside a fragmented text",
       Frame(Opcode::kText, "a", false) + Frame(Opcode::kBinary, "b"),
       kCloseProtocolError,
       {}},
      {"unmasked frame to a server",
       Frame(Opcode::kText, "a", true, false),
       kCloseProtocolError,
       {}},
      {"masked frame to a client",
       Frame(Opcode::kText, "a"),
       kCloseProtocolError,
       {.role = Role::kClient}},
      {"reserved bit", "\xc1\x80\x00\x00\x00\x00", kCloseProtocolError, {}},
      {"unknown opcode", "\x83\x80\x00\x00\x00\x00", kCloseProtocolError, {}},
      {"fragmented ping", Frame(Opcode::kPing, "a", false), kCloseProtocolError, {}},
      {"ping over 125 bytes",
       "\x89\xfe\x00\x7e\x00\x00\x00\x00" + std::string(126, 'a'),
       kCloseProtocolError,
       {}},
      {"invalid UTF-8", Frame(Opcode::kText, "ab\xff"), kCloseInvalidPayload, {}},
      {"truncated UTF-8 at the end", Frame(Opcode::kText, "ab\xe2\x82"), kCloseInvalidPayload, {}},
      {"invalid UTF-8 across fragments",
       Frame(Opcode::kText, "\xe2", false) + Frame(Opcode::kContinuation, "\x28\xa1"),
       kCloseInvalidPayload,
       {}},
      {"surrogate", Frame(Opcode::kText, "\xed\xa0\x80"), kCloseInvalidPayload, {}},
      {"close with one byte", Frame(Opcode::kClose, "\x03"), kCloseProtocolError, {}},
      {"close 1004", Close(1004), kCloseProtocolError, {}},
      {"close 1005", Close(1005), kCloseProtocolError, {}},
      {"close 1006", Close(1006), kCloseProtocolError, {}},
      {"close 1015", Close(1015), kCloseProtocolError, {}},
      {"close 999", Close(999), kCloseProtocolError, {}},
      {"close 2999 (unassigned)", Close(2999), kCloseProtocolError, {}},
      {"close 5000", Close(5000), kCloseProtocolError, {}},
      {"close reason not UTF-8", Close(1000, "\xff"), kCloseInvalidPayload, {}},
      {"frame over the limit",
       Frame(Opcode::kBinary, std::string(101, 'a')),
       kCloseMessageTooBig,
       {.max_message_size = 100}},
      {"fragments over the limit",
       Frame(Opcode::kBinary, std::string(60, 'a'), false) +
           Frame(Opcode::kContinuation, std::string(41, 'a')),
       kCloseMessageTooBig,
       {.max_message_size = 100}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<Seen> seen = ReadEveryWay(c.stream + Frame(Opcode::kText, "after"), c.options);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0], Error(c.code));
  }
}

TEST(MessageReaderTest, InvalidUtf8FailsBeforeTheMessageEnds) {
  // The first fragment is already invalid: the error comes without waiting for the rest.
  MessageReader reader;
  const std::string first = Frame(Opcode::kText, "ok\xc0", false);
  WebSocketEvent event;
  reader.Read(first, &event);
  EXPECT_EQ(event.type, EventType::kError);
  EXPECT_EQ(event.close_code, kCloseInvalidPayload);
}

TEST(MessageReaderTest, TooBigFailsOnTheHeaderBeforeAnyPayload) {
  MessageReader reader({.max_message_size = 1000});
  ByteBuffer header;
  char buf[kMaxFrameHeaderSize];
  const size_t n = WriteFrameHeader(
      {.fin = true, .masked = true, .opcode = Opcode::kBinary, .payload_length = 1 << 30}, buf);
  WebSocketEvent event;
  reader.Read(absl::string_view(buf, n), &event);
  EXPECT_EQ(event.type, EventType::kError);
  EXPECT_EQ(event.close_code, kCloseMessageTooBig);
}

TEST(MessageReaderTest, UnassembledMessagesReportSizesAndStillValidate) {
  const std::string stream = Frame(Opcode::kText, std::string(10000, 'a'), false) +
                             Frame(Opcode::kContinuation, "b") + Frame(Opcode::kBinary, "\xff\xfe");
  std::vector<Seen> expected = {{EventType::kMessage, Opcode::kText, "", 10001, 0},
                                {EventType::kMessage, Opcode::kBinary, "", 2, 0}};
  EXPECT_EQ(ReadEveryWay(stream, {.assemble = false}), expected);
  std::vector<Seen> bad =
      ReadEveryWay(Frame(Opcode::kText, std::string(9000, 'a') + "\xff"), {.assemble = false});
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0], Error(kCloseInvalidPayload));
}

TEST(MessageReaderTest, ClientReadsWholeUnmaskedFramesWithoutCopying) {
  MessageReader reader({.role = Role::kClient});
  const std::string stream = Frame(Opcode::kBinary, "payload", true, false);
  WebSocketEvent event;
  EXPECT_EQ(reader.Read(stream, &event), stream.size());
  ASSERT_EQ(event.type, EventType::kMessage);
  EXPECT_EQ(event.payload, "payload");
  EXPECT_EQ(event.payload.data(), stream.data() + 2);
}

TEST(MessageReaderTest, RandomStreamsReadTheSameInAnySplit) {
  std::mt19937 rng(99);
  for (int round = 0; round < 20; ++round) {
    std::string stream;
    std::vector<Seen> expected;
    for (int m = 0; m < 30; ++m) {
      const bool text = rng() % 2;
      std::string payload(rng() % 300, 'x');
      if (!text) {
        for (char& c : payload) c = static_cast<char>(rng());
      }
      const Opcode opcode = text ? Opcode::kText : Opcode::kBinary;
      const int fragments = 1 + rng() % 3;
      size_t at = 0;
      for (int f = 0; f < fragments; ++f) {
        const size_t n = f == fragments - 1 ? payload.size() - at : (payload.size() - at) / 2;
        stream += Frame(f == 0 ? opcode : Opcode::kContinuation, payload.substr(at, n),
                        f == fragments - 1);
        at += n;
        if (f < fragments - 1 && rng() % 2 == 0) {
          stream += Frame(Opcode::kPing, "pp");
          expected.push_back({EventType::kPing, Opcode::kPing, "pp", 2, 0});
        }
      }
      expected.push_back(Message(opcode, payload));
    }
    ASSERT_EQ(ReadAll(stream, 0), expected);
    ASSERT_EQ(ReadAll(stream, 1), expected);
    ASSERT_EQ(ReadAll(stream, 1 + rng() % 50), expected);
  }
}

TEST(ClosePayloadTest, WriteCutsLongReasonsAtCharacterBoundaries) {
  char out[kMaxControlPayload];
  std::string reason;
  for (int i = 0; i < 100; ++i) reason += "\xce\xba";  // 200 bytes of 2-byte characters
  const size_t n = WriteClosePayload(kCloseNormal, reason, out);
  EXPECT_LE(n, kMaxControlPayload);
  ClosePayload close;
  CloseCode error;
  ASSERT_TRUE(ParseClosePayload(absl::string_view(out, n), &close, &error));
  EXPECT_EQ(close.code, kCloseNormal);
  EXPECT_EQ(WriteClosePayload(kCloseNoStatus, "x", out), 0u);
}

}  // namespace
}  // namespace netbench::websocket
