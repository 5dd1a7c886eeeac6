#include "common/tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/errno_status.h"
#include "common/platform.h"
#include "common/self_signed_certificate.h"

namespace netbench {

constexpr char kSystemCaBundle[] = "/etc/ssl/certs/ca-certificates.crt";

namespace tls_internal {

// Shared by a context and every transport it made, so that callbacks running inside a handshake
// never see a context that has gone.
struct ContextState {
  std::atomic<int64_t> handshakes{0};
  std::atomic<int64_t> resumed{0};
  // Server: ALPN protocols in order of preference. Fixed before the first Wrap.
  std::vector<std::string> alpn_protocols;
  // Client session cache: the newest resumable session per server name. One session is offered to
  // many connections at once (as curl does): a fan-out of 500 to one host resumes 500 times from
  // one ticket.
  bool session_resumption = false;
  std::mutex mu;
  absl::flat_hash_map<std::string, bssl::UniquePtr<SSL_SESSION>> sessions;  // guarded by mu
};

}  // namespace tls_internal

namespace {

using tls_internal::ContextState;

absl::Status SslStatus(absl::string_view what) {
  std::string errors = DrainSslErrors();
  return absl::InvalidArgumentError(errors.empty() ? std::string(what)
                                                   : absl::StrCat(what, ": ", errors));
}

absl::StatusOr<std::string> ReadSmallFile(const std::string& path, absl::string_view what) {
  constexpr size_t kMaxBytes = 16 << 20;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus(errno, absl::StrCat(what, " ", path));
  std::string text;
  char buffer[16384];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(errno, absl::StrCat(what, " ", path));
    if (n == 0) break;
    text.append(buffer, n);
    if (text.size() > kMaxBytes)
      return absl::InvalidArgumentError(absl::StrCat(what, " ", path, ": too big"));
  }
  return text;
}

// Every certificate in PEM text, in order.
absl::StatusOr<std::vector<bssl::UniquePtr<X509>>> ParseCertificates(absl::string_view pem,
                                                                     absl::string_view source) {
  ERR_clear_error();
  bssl::UniquePtr<BIO> bio(BIO_new_mem_buf(pem.data(), pem.size()));
  std::vector<bssl::UniquePtr<X509>> certificates;
  while (X509* certificate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certificates.emplace_back(certificate);
  }
  // The loop ends with PEM_R_NO_START_LINE at the end of the text; anything else is a damaged
  // certificate.
  uint32_t error = ERR_peek_last_error();
  if (error != 0 &&
      !(ERR_GET_LIB(error) == ERR_LIB_PEM && ERR_GET_REASON(error) == PEM_R_NO_START_LINE)) {
    return SslStatus(absl::StrCat(source, ": bad certificate"));
  }
  ERR_clear_error();
  if (certificates.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": no PEM certificate (\"BEGIN CERTIFICATE\") found"));
  }
  return certificates;
}

bssl::UniquePtr<SSL_CTX> NewContext() {
  bssl::UniquePtr<SSL_CTX> ctx(SSL_CTX_new(TLS_method()));
  if (ctx == nullptr) return nullptr;
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION);
  // Partial writes give write(2) semantics (at most a record per call); a moving buffer lets a
  // retry after kWantWrite pass the same bytes from another address (Writev re-gathers them into
  // its own buffer).
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  return ctx;
}

bool IsIpLiteral(const std::string& host) {
  unsigned char address[16];
  return inet_pton(AF_INET, host.c_str(), address) == 1 ||
         inet_pton(AF_INET6, host.c_str(), address) == 1;
}

const char* VersionName(uint16_t version) {
  switch (version) {
    case TLS1_3_VERSION:
      return "TLSv1.3";
    case TLS1_2_VERSION:
      return "TLSv1.2";
    case TLS1_1_VERSION:
      return "TLSv1.1";
    case TLS1_VERSION:
      return "TLSv1";
    default:
      return "unknown";
  }
}

IoResult Transferred(int bytes) {
  IoResult result;
  result.bytes = static_cast<size_t>(bytes);
  return result;
}

class TlsConnection;

int ExIndex() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

TlsConnection* ConnectionOf(const SSL* ssl) {
  return static_cast<TlsConnection*>(SSL_get_ex_data(ssl, ExIndex()));
}

// A BIO over the socket that sends with SendNoSignal (platform.h), so a peer that went away yields
// EPIPE instead of killing the process with SIGPIPE, and that records the errno and the TCP EOF it
// saw for the error messages.
struct SocketBioState {
  int fd = -1;
  int error = 0;     // errno of the last failed send/recv (not EAGAIN)
  bool eof = false;  // recv returned 0
  // Read-ahead. BoringSSL asks the BIO for a record's 5-byte header, then for exactly the rest of
  // the record, so a stream of small records (WebSocket messages) would cost two recv calls each;
  // one recv into this buffer takes in a burst of them. kWantRead still means "the socket is
  // empty": it is only reported when this buffer is empty too. Allocated at the first read (idle
  // connections do not pay for it).
  std::unique_ptr<char[]> ahead;
  size_t ahead_begin = 0;
  size_t ahead_end = 0;
};

constexpr size_t kReadAheadBytes = 4096;

int SocketBioWrite(BIO* bio, const char* data, int length) {
  auto* state = static_cast<SocketBioState*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  for (;;) {
    ssize_t n = SendNoSignal(state->fd, data, static_cast<size_t>(length));
    if (n >= 0) return static_cast<int>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      BIO_set_retry_write(bio);
    } else {
      state->error = errno;
    }
    return -1;
  }
}

int SocketBioRead(BIO* bio, char* data, int length) {
  auto* state = static_cast<SocketBioState*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  if (length <= 0) return 0;
  size_t want = static_cast<size_t>(length);
  if (state->ahead_begin < state->ahead_end) {
    size_t n = std::min(want, state->ahead_end - state->ahead_begin);
    std::memcpy(data, state->ahead.get() + state->ahead_begin, n);
    state->ahead_begin += n;
    return static_cast<int>(n);
  }
  // Large reads (the body of a big record) go straight into BoringSSL's buffer.
  const bool read_ahead = want < kReadAheadBytes;
  if (read_ahead && state->ahead == nullptr)
    state->ahead = std::make_unique<char[]>(kReadAheadBytes);
  for (;;) {
    ssize_t n = read_ahead ? ::recv(state->fd, state->ahead.get(), kReadAheadBytes, 0)
                           : ::recv(state->fd, data, want, 0);
    if (n > 0) {
      if (!read_ahead) return static_cast<int>(n);
      size_t give = std::min(want, static_cast<size_t>(n));
      std::memcpy(data, state->ahead.get(), give);
      state->ahead_begin = give;
      state->ahead_end = static_cast<size_t>(n);
      return static_cast<int>(give);
    }
    if (n == 0) {
      state->eof = true;
      return 0;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      BIO_set_retry_read(bio);
    } else {
      state->error = errno;
    }
    return -1;
  }
}

long SocketBioCtrl(BIO*, int command, long, void*) { return command == BIO_CTRL_FLUSH ? 1 : 0; }

const BIO_METHOD* SocketBioMethod() {
  static const BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_TYPE_SOCKET, "netbench socket");
    BIO_meth_set_write(m, SocketBioWrite);
    BIO_meth_set_read(m, SocketBioRead);
    BIO_meth_set_ctrl(m, SocketBioCtrl);
    return m;
  }();
  return method;
}

class TlsConnection final : public TlsTransport {
 public:
  TlsConnection(UniqueFd fd, bssl::UniquePtr<SSL> ssl, std::shared_ptr<ContextState> state,
                std::string session_key)
      : fd_(std::move(fd)),
        ssl_(std::move(ssl)),
        state_(std::move(state)),
        session_key_(std::move(session_key)) {
    bio_state_.fd = fd_.get();
  }

  // Attaches the socket BIO and the back pointer the callbacks use. False on allocation failure.
  bool Init() {
    bssl::UniquePtr<BIO> bio(BIO_new(SocketBioMethod()));
    if (bio == nullptr) return false;
    BIO_set_data(bio.get(), &bio_state_);
    BIO_set_init(bio.get(), 1);
    if (!SSL_set_ex_data(ssl_.get(), ExIndex(), this)) return false;
    // The same BIO both ways: SSL takes the one reference.
    SSL_set_bio(ssl_.get(), bio.get(), bio.get());
    bio.release();
    return true;
  }

  int fd() const override { return fd_.get(); }
  const char* name() const override { return "tls"; }

  IoResult Handshake() override {
    if (handshake_done_) return {};
    ERR_clear_error();
    int ret = SSL_do_handshake(ssl_.get());
    if (ret == 1) {
      HandshakeDone();
      return {};
    }
    return Failure(ret, "TLS handshake");
  }

  IoResult Read(char* buffer, size_t length) override {
    ERR_clear_error();
    int n = SSL_read(ssl_.get(), buffer, static_cast<int>(std::min<size_t>(length, INT_MAX)));
    if (n > 0) {
      if (!handshake_done_) HandshakeDone();
      return Transferred(n);
    }
    return Failure(n, handshake_done_ ? "TLS read" : "TLS handshake");
  }

  IoResult Write(const char* data, size_t length) override {
    if (length == 0) return {};
    ERR_clear_error();
    int n = SSL_write(ssl_.get(), data, static_cast<int>(std::min<size_t>(length, INT_MAX)));
    if (n > 0) {
      if (!handshake_done_) HandshakeDone();
      return Transferred(n);
    }
    return Failure(n, handshake_done_ ? "TLS write" : "TLS handshake");
  }

  // Small buffers (a frame header and its payload, say) are gathered into one record: one seal, one
  // send. At most a record's worth is gathered per call, which is all a partial-write SSL_write
  // takes anyway.
  IoResult Writev(const iovec* iov, int count) override {
    if (count == 1) return Write(static_cast<const char*>(iov[0].iov_base), iov[0].iov_len);
    if (gather_.capacity() == 0) gather_.reserve(kGatherBytes);
    gather_.clear();
    for (int i = 0; i < count && gather_.size() < kGatherBytes; ++i) {
      size_t take = std::min(iov[i].iov_len, kGatherBytes - gather_.size());
      const char* base = static_cast<const char*>(iov[i].iov_base);
      gather_.insert(gather_.end(), base, base + take);
    }
    return Write(gather_.data(), gather_.size());
  }

  void ShutdownWrite() override {
    ERR_clear_error();
    // close_notify, then the TCP FIN if it went out whole, for peers that wait for EOF rather than
    // the alert.
    if (SSL_shutdown(ssl_.get()) >= 0) ::shutdown(fd_.get(), SHUT_WR);
    ERR_clear_error();
  }

  // Plaintext decrypted but not yet handed out, plus what our BIO read ahead of BoringSSL. Not
  // SSL_has_pending: in TLS, BoringSSL reads exactly one record at a time, so beyond SSL_pending
  // its buffer can hold only a record still arriving, which no Read can finish before the socket
  // brings the rest (and signals it).
  size_t Pending() const override {
    return static_cast<size_t>(SSL_pending(ssl_.get())) +
           (bio_state_.ahead_end - bio_state_.ahead_begin);
  }

  bool session_reused() const override { return SSL_session_reused(ssl_.get()); }
  std::string version() const override { return VersionName(SSL_version(ssl_.get())); }
  std::string cipher() const override {
    const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl_.get());
    return cipher == nullptr ? "" : SSL_CIPHER_standard_name(cipher);
  }
  std::string alpn_protocol() const override {
    const uint8_t* data = nullptr;
    unsigned length = 0;
    SSL_get0_alpn_selected(ssl_.get(), &data, &length);
    return std::string(reinterpret_cast<const char*>(data), length);
  }

  ContextState& state() { return *state_; }
  const std::string& session_key() const { return session_key_; }

 private:
  static constexpr size_t kGatherBytes = 16384;  // SSL3_RT_MAX_PLAIN_LENGTH: one full record

  void HandshakeDone() {
    handshake_done_ = true;
    state_->handshakes.fetch_add(1, std::memory_order_relaxed);
    if (SSL_session_reused(ssl_.get())) state_->resumed.fetch_add(1, std::memory_order_relaxed);
  }

  // An error's text, kept until the next failure (IoResult::message points into it).
  const char* Keep(std::string text) {
    error_text_ = std::move(text);
    return error_text_.c_str();
  }

  IoResult Failure(int ret, absl::string_view what) {
    IoResult result;
    switch (SSL_get_error(ssl_.get(), ret)) {
      case SSL_ERROR_WANT_READ:
        result.status = IoStatus::kWantRead;
        return result;
      case SSL_ERROR_WANT_WRITE:
        result.status = IoStatus::kWantWrite;
        return result;
      case SSL_ERROR_ZERO_RETURN:
        result.status = IoStatus::kEof;
        result.message = "peer closed the TLS connection (close_notify)";
        return result;
      default:
        break;
    }
    if (bio_state_.error != 0) {
      result.status = IoStatus::kError;
      result.error = std::exchange(bio_state_.error, 0);
      result.message = Keep(std::string(ErrnoStatus(result.error, what).message()));
      ERR_clear_error();
      return result;
    }
    if (bio_state_.eof) {
      ERR_clear_error();
      if (handshake_done_) {
        result.status = IoStatus::kEof;
        result.message =
            "peer closed the TCP connection without TLS close_notify (the data may be truncated)";
      } else {
        result.status = IoStatus::kError;
        result.message = Keep(absl::StrCat(what, ": peer closed the connection"));
      }
      return result;
    }
    result.status = IoStatus::kError;
    std::string errors = DrainSslErrors();
    long verify = SSL_get_verify_result(ssl_.get());
    if (verify != X509_V_OK) {
      result.message = Keep(absl::StrCat(what, ": certificate verify failed: ",
                                         X509_verify_cert_error_string(verify), " (", errors, ")"));
    } else {
      result.message =
          Keep(absl::StrCat(what, ": ", errors.empty() ? "unknown TLS error" : errors));
    }
    return result;
  }

  UniqueFd fd_;
  SocketBioState bio_state_;
  bssl::UniquePtr<SSL> ssl_;
  std::shared_ptr<ContextState> state_;
  std::string session_key_;
  bool handshake_done_ = false;
  std::vector<char> gather_;
  std::string error_text_;  // the last failure's text (IoResult::message)
};

// Client: keeps the newest resumable session per server name. Returning 1 takes ownership of
// `session`.
int NewSessionCallback(SSL* ssl, SSL_SESSION* session) {
  TlsConnection* connection = ConnectionOf(ssl);
  if (connection == nullptr || !SSL_SESSION_is_resumable(session)) return 0;
  ContextState& state = connection->state();
  std::lock_guard<std::mutex> lock(state.mu);
  state.sessions[connection->session_key()].reset(session);
  return 1;
}

// Server: the first of our protocols, in our order of preference, that the client offers.
int AlpnSelectCallback(SSL* ssl, const uint8_t** out, uint8_t* out_length, const uint8_t* in,
                       unsigned in_length, void*) {
  TlsConnection* connection = ConnectionOf(ssl);
  if (connection == nullptr) return SSL_TLSEXT_ERR_NOACK;
  for (const std::string& ours : connection->state().alpn_protocols) {
    for (unsigned i = 0; i < in_length;) {
      unsigned length = in[i];
      if (i + 1 + length > in_length) break;
      if (absl::string_view(reinterpret_cast<const char*>(in + i + 1), length) == ours) {
        *out = in + i + 1;
        *out_length = static_cast<uint8_t>(length);
        return SSL_TLSEXT_ERR_OK;
      }
      i += 1 + length;
    }
  }
  return SSL_TLSEXT_ERR_NOACK;
}

absl::StatusOr<std::unique_ptr<Transport>> MakeConnection(bssl::UniquePtr<SSL> ssl, UniqueFd fd,
                                                          std::shared_ptr<ContextState> state,
                                                          std::string session_key) {
  auto connection = std::make_unique<TlsConnection>(std::move(fd), std::move(ssl), std::move(state),
                                                    std::move(session_key));
  if (!connection->Init()) return SslStatus("TLS: attaching the socket");
  return connection;
}

}  // namespace

// ---- Server ----

TlsServerContext::TlsServerContext(bssl::UniquePtr<SSL_CTX> ctx, bssl::UniquePtr<X509> leaf,
                                   std::string certificate_pem, std::string private_key_pem)
    : ctx_(std::move(ctx)),
      leaf_(std::move(leaf)),
      certificate_pem_(std::move(certificate_pem)),
      private_key_pem_(std::move(private_key_pem)),
      state_(std::make_shared<ContextState>()) {
  SSL_CTX_set_alpn_select_cb(ctx_.get(), AlpnSelectCallback, nullptr);
}

TlsServerContext::~TlsServerContext() = default;

absl::StatusOr<std::unique_ptr<TlsServerContext>> TlsServerContext::FromPem(
    absl::string_view cert_chain_pem, absl::string_view key_pem) {
  absl::StatusOr<std::vector<bssl::UniquePtr<X509>>> chain =
      ParseCertificates(cert_chain_pem, "certificate");
  if (!chain.ok()) return chain.status();
  ERR_clear_error();
  bssl::UniquePtr<BIO> key_bio(BIO_new_mem_buf(key_pem.data(), key_pem.size()));
  bssl::UniquePtr<EVP_PKEY> key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr) return SslStatus("private key: no PEM private key found or it is damaged");

  bssl::UniquePtr<SSL_CTX> ctx = NewContext();
  if (ctx == nullptr) return SslStatus("SSL_CTX_new");
  X509* leaf = (*chain)[0].get();
  if (!SSL_CTX_use_certificate(ctx.get(), leaf)) return SslStatus("certificate");
  for (size_t i = 1; i < chain->size(); ++i) {
    if (!SSL_CTX_add1_chain_cert(ctx.get(), (*chain)[i].get()))
      return SslStatus("certificate chain");
  }
  if (!SSL_CTX_use_PrivateKey(ctx.get(), key.get()) || !SSL_CTX_check_private_key(ctx.get())) {
    return SslStatus("the private key does not match the certificate");
  }
  // TLS 1.2 session-ID resumption needs a context id; TLS 1.3 uses tickets, on by default, keys
  // rotated by BoringSSL.
  static constexpr uint8_t kSessionContext[] = "netbench";
  SSL_CTX_set_session_id_context(ctx.get(), kSessionContext, sizeof(kSessionContext) - 1);

  std::string certificate_pem = CertificateToPem(*leaf);
  std::string private_key_pem = PrivateKeyToPem(*key);
  return std::unique_ptr<TlsServerContext>(new TlsServerContext(
      std::move(ctx), bssl::UpRef(leaf), std::move(certificate_pem), std::move(private_key_pem)));
}

absl::StatusOr<std::unique_ptr<TlsServerContext>> TlsServerContext::FromFiles(
    const std::string& cert_pem_path, const std::string& key_pem_path) {
  absl::StatusOr<std::string> cert = ReadSmallFile(cert_pem_path, "certificate file");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadSmallFile(key_pem_path, "private key file");
  if (!key.ok()) return key.status();
  absl::StatusOr<std::unique_ptr<TlsServerContext>> context = FromPem(*cert, *key);
  if (!context.ok()) {
    return absl::Status(context.status().code(),
                        absl::StrCat("TLS files ", cert_pem_path, " and ", key_pem_path, ": ",
                                     context.status().message()));
  }
  return context;
}

absl::StatusOr<std::unique_ptr<TlsServerContext>> TlsServerContext::SelfSigned(
    const std::string& host) {
  absl::StatusOr<SelfSignedCertificate> made = MakeSelfSignedCertificate(host);
  if (!made.ok()) return made.status();
  return FromPem(CertificateToPem(*made->certificate), PrivateKeyToPem(*made->key));
}

std::string TlsServerContext::Sha256Fingerprint() const {
  uint8_t digest[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  if (!X509_digest(leaf_.get(), EVP_sha256(), digest, &length)) return "";
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string text;
  for (unsigned i = 0; i < length; ++i) {
    if (i > 0) text += ':';
    text += kHex[digest[i] >> 4];
    text += kHex[digest[i] & 15];
  }
  return text;
}

void TlsServerContext::SetAlpnProtocols(std::vector<std::string> protocols) {
  state_->alpn_protocols = std::move(protocols);
}

absl::StatusOr<std::unique_ptr<Transport>> TlsServerContext::Wrap(UniqueFd fd) {
  if (!fd.valid()) return absl::InvalidArgumentError("TLS: invalid socket");
  bssl::UniquePtr<SSL> ssl(SSL_new(ctx_.get()));
  if (ssl == nullptr) return SslStatus("SSL_new");
  SSL_set_accept_state(ssl.get());
  return MakeConnection(std::move(ssl), std::move(fd), state_, "");
}

TlsStats TlsServerContext::stats() const {
  return {state_->handshakes.load(std::memory_order_relaxed),
          state_->resumed.load(std::memory_order_relaxed)};
}

// ---- Client ----

TlsClientContext::TlsClientContext(bssl::UniquePtr<SSL_CTX> ctx, Options options)
    : ctx_(std::move(ctx)), options_(std::move(options)), state_(std::make_shared<ContextState>()) {
  state_->session_resumption = options_.session_resumption;
}

TlsClientContext::~TlsClientContext() = default;

absl::StatusOr<std::unique_ptr<TlsClientContext>> TlsClientContext::Create(const Options& options) {
  bssl::UniquePtr<SSL_CTX> ctx = NewContext();
  if (ctx == nullptr) return SslStatus("SSL_CTX_new");

  if (options.insecure) {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    std::vector<std::pair<std::string, std::string>> sources;  // (name for errors, PEM text)
    if (!options.ca_file.empty()) {
      absl::StatusOr<std::string> text = ReadSmallFile(options.ca_file, "CA file");
      if (!text.ok()) return text.status();
      sources.emplace_back(absl::StrCat("CA file ", options.ca_file), *std::move(text));
    }
    if (!options.ca_pem.empty()) sources.emplace_back("CA PEM", options.ca_pem);
    if (sources.empty()) {
      absl::StatusOr<std::string> text = ReadSmallFile(kSystemCaBundle, "system CA bundle");
      if (!text.ok()) {
        return absl::Status(
            text.status().code(),
            absl::StrCat(text.status().message(), " (give a CA file, or skip verification)"));
      }
      sources.emplace_back(absl::StrCat("system CA bundle ", kSystemCaBundle), *std::move(text));
    }
    X509_STORE* store = SSL_CTX_get_cert_store(ctx.get());
    for (const auto& [source, pem] : sources) {
      absl::StatusOr<std::vector<bssl::UniquePtr<X509>>> certificates =
          ParseCertificates(pem, source);
      if (!certificates.ok()) return certificates.status();
      for (const bssl::UniquePtr<X509>& certificate : *certificates) {
        // The same root twice (a bundle and a file) is not an error.
        if (!X509_STORE_add_cert(store, certificate.get())) ERR_clear_error();
      }
    }
  }

  if (!options.alpn_protocols.empty()) {
    std::string wire;
    for (const std::string& protocol : options.alpn_protocols) {
      if (protocol.empty() || protocol.size() > 255) {
        return absl::InvalidArgumentError(
            absl::StrCat("ALPN protocol name \"", protocol, "\": length 1..255"));
      }
      wire += static_cast<char>(protocol.size());
      wire += protocol;
    }
    // SSL_CTX_set_alpn_protos returns 0 on success (unlike everything else here).
    if (SSL_CTX_set_alpn_protos(ctx.get(), reinterpret_cast<const uint8_t*>(wire.data()),
                                wire.size()) != 0) {
      return SslStatus("ALPN");
    }
  }

  if (options.session_resumption) {
    // BoringSSL never looks sessions up for a client by itself: we keep them (NewSessionCallback)
    // and offer them in Wrap. TLS 1.3 tickets arrive after the handshake and are taken in by
    // SSL_read.
    SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL);
    SSL_CTX_sess_set_new_cb(ctx.get(), NewSessionCallback);
  } else {
    SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET);
  }
  return std::unique_ptr<TlsClientContext>(new TlsClientContext(std::move(ctx), options));
}

absl::StatusOr<std::unique_ptr<Transport>> TlsClientContext::Wrap(UniqueFd fd,
                                                                  absl::string_view server_name) {
  std::string name(server_name);
  if (name.size() >= 2 && name.front() == '[' && name.back() == ']')
    name = name.substr(1, name.size() - 2);
  if (name.empty() && !options_.insecure) {
    return absl::InvalidArgumentError("TLS: a server name is needed to verify the certificate");
  }
  if (!fd.valid()) return absl::InvalidArgumentError("TLS: invalid socket");
  bssl::UniquePtr<SSL> ssl(SSL_new(ctx_.get()));
  if (ssl == nullptr) return SslStatus("SSL_new");
  SSL_set_connect_state(ssl.get());
  const bool ip_literal = IsIpLiteral(name);
  // RFC 6066: SNI carries host names only, never address literals.
  if (!ip_literal && !name.empty() && !SSL_set_tlsext_host_name(ssl.get(), name.c_str())) {
    return SslStatus(absl::StrCat("TLS: server name \"", name, "\""));
  }
  if (!options_.insecure) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl.get());
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    int ok = ip_literal ? X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str())
                        : X509_VERIFY_PARAM_set1_host(param, name.data(), name.size());
    if (!ok) return SslStatus(absl::StrCat("TLS: server name \"", name, "\" for verification"));
  }
  if (state_->session_resumption) {
    std::lock_guard<std::mutex> lock(state_->mu);
    auto it = state_->sessions.find(name);
    // SSL_set_session takes its own reference; an expired session is not offered by BoringSSL.
    if (it != state_->sessions.end()) SSL_set_session(ssl.get(), it->second.get());
  }
  return MakeConnection(std::move(ssl), std::move(fd), state_, std::move(name));
}

TlsStats TlsClientContext::stats() const {
  return {state_->handshakes.load(std::memory_order_relaxed),
          state_->resumed.load(std::memory_order_relaxed)};
}

}  // namespace netbench
