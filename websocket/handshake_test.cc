#include "websocket/handshake.h"

#include <string>

#include "gtest/gtest.h"

namespace netbench::websocket {
namespace {

const std::string kRfcRequest =
    "GET /chat HTTP/1.1\r\n"
    "Host: server.example.com\r\n"
    "Upgrade: websocket\r\n"
    "Connection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Origin: http://example.com\r\n"
    "Sec-WebSocket-Protocol: chat, superchat\r\n"
    "Sec-WebSocket-Version: 13\r\n"
    "\r\n";

TEST(HandshakeTest, RfcSampleKeyAcceptValue) {
  // RFC 6455 section 1.3.
  EXPECT_EQ(ComputeAcceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(HandshakeTest, ParsesTheRfcRequestAndAnswers101) {
  HandshakeRequest request;
  int status = 0;
  const std::string with_frame = kRfcRequest + "\x81\x80";
  ASSERT_EQ(ParseHandshakeRequest(with_frame, &request, &status),
            static_cast<int>(kRfcRequest.size()));
  EXPECT_EQ(request.path, "/chat");
  EXPECT_EQ(request.host, "server.example.com");
  EXPECT_EQ(request.key, "dGhlIHNhbXBsZSBub25jZQ==");
  EXPECT_EQ(request.origin, "http://example.com");
  EXPECT_EQ(request.protocols, "chat, superchat");
  ByteBuffer out;
  AppendHandshakeResponse(request.key, out);
  EXPECT_EQ(out.view(),
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
}

TEST(HandshakeTest, IncompleteRequestsNeedMoreAtEveryPrefix) {
  HandshakeRequest request;
  int status;
  for (size_t k = 0; k < kRfcRequest.size(); ++k) {
    ASSERT_EQ(ParseHandshakeRequest(kRfcRequest.substr(0, k), &request, &status),
              kHandshakeNeedMore)
        << k;
  }
}

TEST(HandshakeTest, TokenListsAndHeaderNamesAreCaseInsensitive) {
  const std::string request_text =
      "GET /echo HTTP/1.1\r\nhost: h\r\nUPGRADE: WebSocket\r\nconnection: keep-alive, upgrade\r\n"
      "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version:13\r\n\r\n";
  HandshakeRequest request;
  int status;
  EXPECT_EQ(ParseHandshakeRequest(request_text, &request, &status),
            static_cast<int>(request_text.size()));
}

std::string Without(const std::string& header) {
  std::string r = kRfcRequest;
  const size_t at = r.find(header);
  const size_t end = r.find("\r\n", at);
  return r.erase(at, end + 2 - at);
}

std::string Replace(const std::string& from, const std::string& to) {
  std::string r = kRfcRequest;
  return r.replace(r.find(from), from.size(), to);
}

TEST(HandshakeTest, BadRequestsAreRejectedWithTheirStatus) {
  struct Case {
    const char* name;
    std::string request;
    int status;
  };
  const Case cases[] = {
      {"POST", Replace("GET", "POST"), 400},
      {"HTTP/1.0", Replace("HTTP/1.1", "HTTP/1.0"), 400},
      {"no Host", Without("Host:"), 400},
      {"no Upgrade", Without("Upgrade:"), 400},
      {"Upgrade: h2c", Replace("Upgrade: websocket", "Upgrade: h2c"), 400},
      {"no Connection", Without("Connection:"), 400},
      {"Connection: close", Replace("Connection: Upgrade", "Connection: close"), 400},
      {"no key", Without("Sec-WebSocket-Key:"), 400},
      {"short key", Replace("dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZQ=="), 400},
      {"key not base64", Replace("dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25jZ!="), 400},
      {"no version", Without("Sec-WebSocket-Version:"), 426},
      {"version 8", Replace("Version: 13", "Version: 8"), 426},
      {"folded header", Replace("Origin:", " Origin:"), 400},
      {"garbage", "\x16\x03\x01\x02\x01\x01\xfc\x03\x03\r\n\r\n", 400},
      {"too large", "GET / HTTP/1.1\r\nX: " + std::string(9000, 'a'), 400},
  };
  for (const Case& c : cases) {
    HandshakeRequest request;
    int status = 0;
    EXPECT_EQ(ParseHandshakeRequest(c.request, &request, &status), kHandshakeError) << c.name;
    EXPECT_EQ(status, c.status) << c.name;
  }
  ByteBuffer out;
  AppendHandshakeRejection(426, "unsupported version", out);
  EXPECT_NE(out.view().find("HTTP/1.1 426 Upgrade Required\r\n"), absl::string_view::npos);
  EXPECT_NE(out.view().find("Sec-WebSocket-Version: 13\r\n"), absl::string_view::npos);
}

TEST(HandshakeTest, ClientRequestAndResponseVerification) {
  const std::string key = GenerateHandshakeKey();
  EXPECT_EQ(key.size(), 24u);
  EXPECT_NE(key, GenerateHandshakeKey());
  const std::string request_text = BuildHandshakeRequest("127.0.0.1:8080", "/echo", key);
  HandshakeRequest request;
  int status;
  ASSERT_EQ(ParseHandshakeRequest(request_text, &request, &status),
            static_cast<int>(request_text.size()));
  EXPECT_EQ(request.key, key);

  ByteBuffer response;
  AppendHandshakeResponse(request.key, response);
  const std::string with_frame = std::string(response.view()) + "\x81\x00";
  absl::Status error;
  EXPECT_EQ(ParseHandshakeResponse(with_frame, key, &error), static_cast<int>(response.size()));
  for (size_t k = 0; k < response.size(); ++k) {
    ASSERT_EQ(ParseHandshakeResponse(response.view().substr(0, k), key, &error),
              kHandshakeNeedMore);
  }
  // Someone else's accept value, or no upgrade at all.
  EXPECT_EQ(ParseHandshakeResponse(with_frame, GenerateHandshakeKey(), &error), kHandshakeError);
  EXPECT_NE(error.message().find("Sec-WebSocket-Accept"), absl::string_view::npos);
  EXPECT_EQ(
      ParseHandshakeResponse("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", key, &error),
      kHandshakeError);
  EXPECT_NE(error.message().find("400"), absl::string_view::npos);
}

}  // namespace
}  // namespace netbench::websocket
