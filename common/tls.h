// TLS over a connected socket through BoringSSL, behind the same Transport interface as plain TCP
// (as wrk's ssl.c implements its net.h), so connection state machines are written once for both.
//
// Server (a self-signed certificate made at start-up, or PEM files):
//   absl::StatusOr<std::unique_ptr<TlsServerContext>> server = TlsServerContext::SelfSigned();
//   std::printf("certificate SHA-256 %s\n", (*server)->Sha256Fingerprint().c_str());
//   absl::StatusOr<std::unique_ptr<Transport>> t = (*server)->Wrap(std::move(accepted_fd));
//   // drive (*t)->Handshake() until kOk, then Read/Write as on plain TCP.
//
// Client (verifies the chain against the system CA bundle and the host name, unless told
// otherwise):
//   absl::StatusOr<std::unique_ptr<TlsClientContext>> client =
//       TlsClientContext::Create({.ca_pem = (*server)->certificate_pem()});
//   absl::StatusOr<std::unique_ptr<Transport>> t =
//       (*client)->Wrap(std::move(connected_fd), "localhost");
//
// Blocking and non-blocking sockets both work. On a non-blocking socket Handshake/Read/Write/Writev
// return kWantRead or kWantWrite (TLS may need to read while writing and vice versa); wait for that
// readiness and call again.
//
// The retry contract: after Write or Writev returned kWantWrite (or kWantRead), call it again with
// the same bytes. The buffer may move (SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER is set), but the first
// bytes must be the same, and no fewer of them. Writes are partial (SSL_MODE_ENABLE_PARTIAL_WRITE):
// as with write(2), kOk may report fewer bytes than asked for, at most one TLS record (16 KiB) per
// call.
//
// Before waiting for readability, Read while Pending() > 0: TLS holds bytes the socket no longer
// shows (the rest of a decrypted record, records read ahead in one recv), so poll/epoll would not
// report them. kWantRead is returned only when nothing is held and the socket is empty, so reading
// until kWantRead is also safe.
//
// Read returns kEof both for a clean close_notify and for a TCP EOF without one; IoResult::message
// says which (a missing close_notify means the stream may have been truncated: HTTP bodies
// delimited by connection close should treat it with care). Failures are kError with error = errno
// for socket errors and 0 for TLS errors, and a message such as
//   "TLS handshake: certificate verify failed: Hostname mismatch (error:1000007d:SSL routines:...)"
//
// Contexts are thread-safe: Wrap may be called from many threads at once; each Transport is used by
// one thread at a time. Transports keep what they need of their context alive, so a context may go
// first.
#ifndef NETBENCH_COMMON_TLS_H_
#define NETBENCH_COMMON_TLS_H_

#include <openssl/ssl.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/transport.h"
#include "common/unique_fd.h"

namespace netbench {

namespace tls_internal {
struct ContextState;  // shared by a context and its transports: counters, client session cache
}  // namespace tls_internal

// Handshake counters of one context, summed over all its transports (any thread).
struct TlsStats {
  int64_t handshakes = 0;  // completed handshakes
  int64_t resumed = 0;     // of which resumed an earlier session (abbreviated handshake)
};

class TlsServerContext {
 public:
  // A certificate chain (leaf first) and its private key, PEM. Errors name the file and what was
  // wrong.
  static absl::StatusOr<std::unique_ptr<TlsServerContext>> FromFiles(
      const std::string& cert_pem_path, const std::string& key_pem_path);
  static absl::StatusOr<std::unique_ptr<TlsServerContext>> FromPem(absl::string_view cert_chain_pem,
                                                                   absl::string_view key_pem);
  // A fresh ECDSA P-256 key and a self-signed certificate for it: CN = `host`, subjectAltName
  // DNS:`host`, DNS:localhost, IP:127.0.0.1, IP:::1; valid from an hour ago for 30 days.
  static absl::StatusOr<std::unique_ptr<TlsServerContext>> SelfSigned(
      const std::string& host = "localhost");

  ~TlsServerContext();
  TlsServerContext(const TlsServerContext&) = delete;
  TlsServerContext& operator=(const TlsServerContext&) = delete;

  // The leaf certificate, PEM: what a client trusts (tests, --cacert).
  const std::string& certificate_pem() const { return certificate_pem_; }
  // The private key, PEM (PKCS#8). For writing a self-signed pair to files.
  const std::string& private_key_pem() const { return private_key_pem_; }
  // SHA-256 of the leaf's DER as `openssl x509 -noout -fingerprint -sha256` prints it: "AB:CD:...".
  std::string Sha256Fingerprint() const;

  // Protocols offered by clients that the server accepts through ALPN, in its order of preference
  // (e.g. {"http/1.1"}). Empty (the default): no ALPN. Call before the first Wrap.
  void SetAlpnProtocols(std::vector<std::string> protocols);

  // The server side of a TLS connection on an accepted socket; the handshake has not started yet
  // (see Transport::Handshake; Read and Write also drive it).
  absl::StatusOr<std::unique_ptr<Transport>> Wrap(UniqueFd fd);

  TlsStats stats() const;

 private:
  TlsServerContext(bssl::UniquePtr<SSL_CTX> ctx, bssl::UniquePtr<X509> leaf,
                   std::string certificate_pem, std::string private_key_pem);

  bssl::UniquePtr<SSL_CTX> ctx_;
  bssl::UniquePtr<X509> leaf_;
  std::string certificate_pem_;
  std::string private_key_pem_;
  std::vector<std::string> alpn_protocols_;
  std::shared_ptr<tls_internal::ContextState> state_;
};

class TlsClientContext {
 public:
  struct Options {
    // Trusted roots. Default (both empty): the system CA bundle,
    // /etc/ssl/certs/ca-certificates.crt. A file or PEM text given here replaces it (both given:
    // both are trusted).
    std::string ca_file;
    std::string ca_pem;
    // Skip certificate and host-name verification (--insecure).
    bool insecure = false;
    // Keep the newest session per server name and offer it on the next connection to that name.
    bool session_resumption = true;
    // ALPN protocols to offer, e.g. {"http/1.1"}; empty: no ALPN.
    std::vector<std::string> alpn_protocols;
  };

  static absl::StatusOr<std::unique_ptr<TlsClientContext>> Create(const Options& options);

  ~TlsClientContext();
  TlsClientContext(const TlsClientContext&) = delete;
  TlsClientContext& operator=(const TlsClientContext&) = delete;

  // The client side of a TLS connection on a connected socket, handshake not yet started.
  // `server_name` is the host of the URL: a DNS name is sent as SNI and checked against the
  // certificate; an IP literal ("127.0.0.1", "::1" or "[::1]") is checked against the
  // certificate's IP addresses and not sent as SNI.
  absl::StatusOr<std::unique_ptr<Transport>> Wrap(UniqueFd fd, absl::string_view server_name);

  TlsStats stats() const;

 private:
  TlsClientContext(bssl::UniquePtr<SSL_CTX> ctx, Options options);

  bssl::UniquePtr<SSL_CTX> ctx_;
  Options options_;
  std::shared_ptr<tls_internal::ContextState> state_;
};

// What a Transport made by Wrap is; reach it with AsTls (nullptr for plain TCP).
class TlsTransport : public Transport {
 public:
  // After the handshake: whether it resumed an earlier session.
  virtual bool session_reused() const = 0;
  // "TLSv1.3", "TLSv1.2"; the cipher suite's standard name; the ALPN protocol ("" if none).
  virtual std::string version() const = 0;
  virtual std::string cipher() const = 0;
  virtual std::string alpn_protocol() const = 0;
};

inline const TlsTransport* AsTls(const Transport& transport) {
  return dynamic_cast<const TlsTransport*>(&transport);
}
// True when `transport` is TLS and its handshake resumed a session.
inline bool TlsSessionReused(const Transport& transport) {
  const TlsTransport* tls = AsTls(transport);
  return tls != nullptr && tls->session_reused();
}

}  // namespace netbench

#endif  // NETBENCH_COMMON_TLS_H_
