// A fresh key and a self-signed certificate, made with BoringSSL, for servers that have no
// certificate files (the httpfanout origin, the websocket server with wss, tests).
//
//   absl::StatusOr<SelfSignedCertificate> made = MakeSelfSignedCertificate("localhost");
//   std::string pem = CertificateToPem(*made->certificate);   // what a client trusts (--cacert)
//
// The certificate is shaped like the ones `openssl req -x509` and Go's generate_cert make, so that
// OpenSSL 3 (curl, Python), Go and BoringSSL clients all accept it as its own trust anchor: ECDSA
// P-256 signed with SHA-256, subject = issuer = CN=<host>, basicConstraints CA:FALSE,
// extendedKeyUsage serverAuth, no keyUsage (OpenSSL counts a certificate as self-signed only if
// keyUsage allows certificate signing or is absent), subjectAltName DNS:<host>, DNS:localhost,
// IP:127.0.0.1, IP:::1.
#ifndef NETBENCH_COMMON_SELF_SIGNED_CERTIFICATE_H_
#define NETBENCH_COMMON_SELF_SIGNED_CERTIFICATE_H_

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace netbench {

struct SelfSignedCertificate {
  bssl::UniquePtr<X509> certificate;
  bssl::UniquePtr<EVP_PKEY> key;
};

// `host` is a DNS name or an IP literal; valid from `not_before_seconds` ago for `valid_seconds`.
absl::StatusOr<SelfSignedCertificate> MakeSelfSignedCertificate(
    const std::string& host = "localhost", int64_t valid_seconds = 30 * 86400,
    int64_t not_before_seconds = 3600);

std::string CertificateToPem(X509& certificate);
std::string PrivateKeyToPem(EVP_PKEY& key);  // PKCS#8, "-----BEGIN PRIVATE KEY-----"

// The text of BoringSSL's error queue, oldest first, "; "-separated; empties the queue. "" when
// empty.
std::string DrainSslErrors();

}  // namespace netbench

#endif  // NETBENCH_COMMON_SELF_SIGNED_CERTIFICATE_H_
