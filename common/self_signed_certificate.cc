#include "common/self_signed_certificate.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ec_key.h>
#include <openssl/err.h>
#include <openssl/nid.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace netbench {
namespace {

absl::Status SslError(absl::string_view what) {
  return absl::InternalError(
      absl::StrCat("self-signed certificate: ", what, ": ", DrainSslErrors()));
}

bool IsIpLiteral(const std::string& host) {
  unsigned char address[16];
  return inet_pton(AF_INET, host.c_str(), address) == 1 ||
         inet_pton(AF_INET6, host.c_str(), address) == 1;
}

absl::Status AddExtension(X509* certificate, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx(&context, certificate, certificate, nullptr, nullptr, 0);
  bssl::UniquePtr<X509_EXTENSION> extension(
      X509V3_EXT_nconf_nid(nullptr, &context, nid, value.c_str()));
  if (extension == nullptr || !X509_add_ext(certificate, extension.get(), -1)) {
    return SslError(absl::StrCat("extension ", OBJ_nid2sn(nid), " = ", value));
  }
  return absl::OkStatus();
}

}  // namespace

std::string DrainSslErrors() {
  std::string text;
  while (uint32_t error = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(error, buffer, sizeof(buffer));
    if (!text.empty()) text += "; ";
    text += buffer;
  }
  return text;
}

absl::StatusOr<SelfSignedCertificate> MakeSelfSignedCertificate(const std::string& host,
                                                                int64_t valid_seconds,
                                                                int64_t not_before_seconds) {
  if (host.empty()) return absl::InvalidArgumentError("self-signed certificate: empty host name");
  SelfSignedCertificate made;

  bssl::UniquePtr<EC_KEY> ec_key(EC_KEY_new_by_curve_name(NID_X9_62_prime256v1));
  made.key.reset(EVP_PKEY_new());
  if (ec_key == nullptr || made.key == nullptr || !EC_KEY_generate_key(ec_key.get()) ||
      !EVP_PKEY_assign_EC_KEY(made.key.get(), ec_key.release())) {
    return SslError("generating a P-256 key");
  }

  made.certificate.reset(X509_new());
  X509* x = made.certificate.get();
  if (x == nullptr || !X509_set_version(x, 2 /* v3 */)) return SslError("X509_new");

  // A random positive 127-bit serial, as RFC 5280 asks (unique per issuer; we are a new issuer
  // every time).
  uint8_t serial_bytes[16];
  RAND_bytes(serial_bytes, sizeof(serial_bytes));
  serial_bytes[0] &= 0x7f;
  bssl::UniquePtr<BIGNUM> serial(BN_bin2bn(serial_bytes, sizeof(serial_bytes), nullptr));
  if (serial == nullptr || BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(x)) == nullptr) {
    return SslError("serial number");
  }

  if (X509_gmtime_adj(X509_getm_notBefore(x), -not_before_seconds) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(x), valid_seconds) == nullptr) {
    return SslError("validity");
  }

  X509_NAME* name = X509_get_subject_name(x);
  if (!X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                                  reinterpret_cast<const uint8_t*>("netbench"), -1, -1, 0) ||
      !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                  reinterpret_cast<const uint8_t*>(host.c_str()), -1, -1, 0) ||
      !X509_set_issuer_name(x, name) || !X509_set_pubkey(x, made.key.get())) {
    return SslError(absl::StrCat("subject CN=", host));
  }

  std::string alt_names =
      IsIpLiteral(host) ? absl::StrCat("IP:", host) : absl::StrCat("DNS:", host);
  if (host != "localhost") absl::StrAppend(&alt_names, ",DNS:localhost");
  if (host != "127.0.0.1") absl::StrAppend(&alt_names, ",IP:127.0.0.1");
  if (host != "::1") absl::StrAppend(&alt_names, ",IP:::1");
  absl::Status status;
  for (const auto& [nid, value] :
       {std::pair<int, std::string>{NID_basic_constraints, "critical,CA:FALSE"},
        {NID_ext_key_usage, "serverAuth"},
        {NID_subject_key_identifier, "hash"},
        {NID_subject_alt_name, alt_names}}) {
    if (status = AddExtension(x, nid, value); !status.ok()) return status;
  }

  if (!X509_sign(x, made.key.get(), EVP_sha256())) return SslError("signing");
  return made;
}

std::string CertificateToPem(X509& certificate) {
  bssl::UniquePtr<BIO> bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr || !PEM_write_bio_X509(bio.get(), &certificate)) return "";
  const uint8_t* data = nullptr;
  size_t length = 0;
  BIO_mem_contents(bio.get(), &data, &length);
  return std::string(reinterpret_cast<const char*>(data), length);
}

std::string PrivateKeyToPem(EVP_PKEY& key) {
  bssl::UniquePtr<BIO> bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr ||
      !PEM_write_bio_PrivateKey(bio.get(), &key, nullptr, nullptr, 0, nullptr, nullptr)) {
    return "";
  }
  const uint8_t* data = nullptr;
  size_t length = 0;
  BIO_mem_contents(bio.get(), &data, &length);
  return std::string(reinterpret_cast<const char*>(data), length);
}

}  // namespace netbench
