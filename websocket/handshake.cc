#include "websocket/handshake.h"

#include <openssl/base64.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <cstdint>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace netbench::websocket {
namespace {

constexpr absl::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

// An HTTP/1.1 head split once into its start line and header fields, zero copy and without
// allocation.
class HttpHead {
 public:
  // Finds the end of the head ("\r\n\r\n") in `data`: returns its size, 0 when not complete yet.
  static size_t FindEnd(absl::string_view data, size_t max_size) {
    const size_t limit = std::min(data.size(), max_size);
    const size_t at = data.substr(0, limit).find("\r\n\r\n");
    return at == absl::string_view::npos ? 0 : at + 4;
  }

  // `head` is the text before the blank line. False for a malformed line or too many fields.
  bool Parse(absl::string_view head) {
    size_t eol = head.find("\r\n");
    start_line_ = head.substr(0, eol);
    if (HasStrayControl(start_line_)) return false;
    count_ = 0;
    while (eol != absl::string_view::npos) {
      const size_t begin = eol + 2;
      eol = head.find("\r\n", begin);
      absl::string_view line = head.substr(
          begin, eol == absl::string_view::npos ? absl::string_view::npos : eol - begin);
      if (line.empty() || line[0] == ' ' || line[0] == '\t') return false;  // no obsolete folding
      if (HasStrayControl(line)) return false;
      const size_t colon = line.find(':');
      if (colon == absl::string_view::npos || colon == 0) return false;
      absl::string_view name = line.substr(0, colon);
      for (char c : name) {
        if (c == ' ' || c == '\t') return false;
      }
      if (count_ == kMaxFields) return false;
      fields_[count_++] = {name, absl::StripAsciiWhitespace(line.substr(colon + 1))};
    }
    return true;
  }

  absl::string_view start_line() const { return start_line_; }

  // The field's value if it appears exactly once; *count says how many times it appeared.
  absl::string_view Single(absl::string_view name, int* count) const {
    absl::string_view value;
    *count = 0;
    for (size_t i = 0; i < count_; ++i) {
      if (absl::EqualsIgnoreCase(fields_[i].name, name)) {
        value = fields_[i].value;
        ++*count;
      }
    }
    return value;
  }

  // Whether any `name` field's comma-separated list holds `token` (case-insensitive).
  bool HasToken(absl::string_view name, absl::string_view token) const {
    for (size_t i = 0; i < count_; ++i) {
      if (!absl::EqualsIgnoreCase(fields_[i].name, name)) continue;
      absl::string_view rest = fields_[i].value;
      while (true) {
        const size_t comma = rest.find(',');
        if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(rest.substr(0, comma)), token)) {
          return true;
        }
        if (comma == absl::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
    return false;
  }

 private:
  static constexpr size_t kMaxFields = 100;
  struct Field {
    absl::string_view name;
    absl::string_view value;
  };
  static bool HasStrayControl(absl::string_view line) {
    for (char c : line) {
      if (c == '\r' || c == '\n' || c == '\0') return true;
    }
    return false;
  }

  absl::string_view start_line_;
  Field fields_[kMaxFields];
  size_t count_ = 0;
};

int Reject(int status, int* http_status) {
  *http_status = status;
  return kHandshakeError;
}

bool IsValidKey(absl::string_view key) {
  if (key.size() != 24) return false;
  uint8_t decoded[18];
  size_t decoded_size = 0;
  return EVP_DecodeBase64(decoded, &decoded_size, sizeof decoded,
                          reinterpret_cast<const uint8_t*>(key.data()), key.size()) == 1 &&
         decoded_size == 16;
}

const char* StatusText(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 426:
      return "Upgrade Required";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

}  // namespace

int ParseHandshakeRequest(absl::string_view data, HandshakeRequest* request, int* http_status,
                          size_t max_size) {
  const size_t size = HttpHead::FindEnd(data, max_size);
  if (size == 0) return data.size() >= max_size ? Reject(400, http_status) : kHandshakeNeedMore;
  HttpHead head;
  if (!head.Parse(data.substr(0, size - 4))) return Reject(400, http_status);

  // "GET /path HTTP/1.1"
  absl::string_view line = head.start_line();
  if (!absl::ConsumePrefix(&line, "GET /") || !absl::ConsumeSuffix(&line, " HTTP/1.1") ||
      line.find(' ') != absl::string_view::npos) {
    return Reject(400, http_status);
  }
  const absl::string_view path(line.data() - 1, line.size() + 1);
  int count;
  absl::string_view host = head.Single("Host", &count);
  if (count != 1 || host.empty()) return Reject(400, http_status);
  if (!head.HasToken("Upgrade", "websocket") || !head.HasToken("Connection", "Upgrade")) {
    return Reject(400, http_status);
  }
  absl::string_view version = head.Single("Sec-WebSocket-Version", &count);
  if (count != 1 || version != "13") return Reject(426, http_status);
  absl::string_view key = head.Single("Sec-WebSocket-Key", &count);
  if (count != 1 || !IsValidKey(key)) return Reject(400, http_status);

  request->path = path;
  request->host = host;
  request->key = key;
  request->origin = head.Single("Origin", &count);
  request->protocols = head.Single("Sec-WebSocket-Protocol", &count);
  return static_cast<int>(size);
}

void ComputeAcceptKey(absl::string_view key, char* out) {
  SHA_CTX sha;
  SHA1_Init(&sha);
  SHA1_Update(&sha, key.data(), key.size());
  SHA1_Update(&sha, kGuid.data(), kGuid.size());
  uint8_t digest[SHA_DIGEST_LENGTH];
  SHA1_Final(digest, &sha);
  uint8_t encoded[kAcceptKeySize + 1];  // EVP_EncodeBlock adds a terminator
  EVP_EncodeBlock(encoded, digest, sizeof digest);
  std::memcpy(out, encoded, kAcceptKeySize);
}

std::string ComputeAcceptKey(absl::string_view key) {
  std::string accept(kAcceptKeySize, '\0');
  ComputeAcceptKey(key, accept.data());
  return accept;
}

void AppendHandshakeResponse(absl::string_view key, ByteBuffer& out) {
  constexpr absl::string_view kHead =
      "HTTP/1.1 101 Switching Protocols\r\n"
      "Upgrade: websocket\r\n"
      "Connection: Upgrade\r\n"
      "Sec-WebSocket-Accept: ";
  char* p = out.WritableSpace(kHead.size() + kAcceptKeySize + 4);
  std::memcpy(p, kHead.data(), kHead.size());
  ComputeAcceptKey(key, p + kHead.size());
  std::memcpy(p + kHead.size() + kAcceptKeySize, "\r\n\r\n", 4);
  out.CommitWrite(kHead.size() + kAcceptKeySize + 4);
}

void AppendHandshakeRejection(int http_status, absl::string_view why, ByteBuffer& out) {
  std::string body = absl::StrCat(why, "\n");
  out.Append(
      absl::StrCat("HTTP/1.1 ", http_status, " ", StatusText(http_status), "\r\n",
                   http_status == 426 ? "Sec-WebSocket-Version: 13\r\nUpgrade: websocket\r\n" : "",
                   "Content-Type: text/plain\r\nContent-Length: ", body.size(),
                   "\r\nConnection: close\r\n\r\n", body));
}

std::string GenerateHandshakeKey() {
  uint8_t nonce[16];
  RAND_bytes(nonce, sizeof nonce);
  uint8_t encoded[25];
  EVP_EncodeBlock(encoded, nonce, sizeof nonce);
  return std::string(reinterpret_cast<char*>(encoded), 24);
}

std::string BuildHandshakeRequest(absl::string_view host, absl::string_view path,
                                  absl::string_view key) {
  return absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: ", host,
                      "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ", key,
                      "\r\nSec-WebSocket-Version: 13\r\n\r\n");
}

int ParseHandshakeResponse(absl::string_view data, absl::string_view key, absl::Status* error,
                           size_t max_size) {
  const size_t size = HttpHead::FindEnd(data, max_size);
  if (size == 0) {
    if (data.size() < max_size) return kHandshakeNeedMore;
    *error = absl::InvalidArgumentError("handshake response too large");
    return kHandshakeError;
  }
  HttpHead head;
  if (!head.Parse(data.substr(0, size - 4))) {
    *error = absl::InvalidArgumentError("malformed handshake response");
    return kHandshakeError;
  }
  absl::string_view status_line = head.start_line();
  if (!absl::StartsWith(status_line, "HTTP/1.1 101")) {
    *error = absl::FailedPreconditionError(
        absl::StrCat("server refused the WebSocket upgrade: ", status_line));
    return kHandshakeError;
  }
  if (!head.HasToken("Upgrade", "websocket") || !head.HasToken("Connection", "Upgrade")) {
    *error =
        absl::InvalidArgumentError("101 response without Upgrade: websocket / Connection: Upgrade");
    return kHandshakeError;
  }
  int count;
  absl::string_view accept = head.Single("Sec-WebSocket-Accept", &count);
  if (count != 1 || accept != ComputeAcceptKey(key)) {
    *error = absl::InvalidArgumentError(
        absl::StrCat("wrong Sec-WebSocket-Accept '", accept, "' for key '", key, "'"));
    return kHandshakeError;
  }
  if (!head.Single("Sec-WebSocket-Extensions", &count).empty() || count > 0) {
    *error = absl::InvalidArgumentError("server chose an extension the client did not offer");
    return kHandshakeError;
  }
  return static_cast<int>(size);
}

}  // namespace netbench::websocket
