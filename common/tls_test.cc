#include "common/tls.h"

#include <link.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/self_signed_certificate.h"
#include "common/socket.h"
#include "common/transport.h"
#include "common/unique_fd.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/child_process.h"

#ifndef OPENSSL_IS_BORINGSSL
#error "netbench must be built against BoringSSL"
#endif

namespace netbench {
namespace {

using ::testing::HasSubstr;

// ---- Fixtures ----

struct SocketPair {
  UniqueFd client;
  UniqueFd server;
};

// A connected TCP pair on loopback, through a real listener on port 0.
SocketPair ConnectedPair(bool non_blocking) {
  absl::StatusOr<Listener> listener = Listen({.host = "127.0.0.1", .port = 0});
  EXPECT_TRUE(listener.ok()) << listener.status();
  absl::StatusOr<UniqueFd> client = Connect("127.0.0.1", listener->port);
  EXPECT_TRUE(client.ok()) << client.status();
  absl::StatusOr<UniqueFd> server = Accept(listener->fd.get(), non_blocking);
  EXPECT_TRUE(server.ok()) << server.status();
  if (non_blocking) {
    EXPECT_TRUE(SetNonBlocking(client->get()).ok());
  }
  return {*std::move(client), *std::move(server)};
}

TlsServerContext& SharedServer() {
  static TlsServerContext* server = TlsServerContext::SelfSigned().value().release();
  return *server;
}

std::unique_ptr<TlsServerContext> NewServer() {
  absl::StatusOr<std::unique_ptr<TlsServerContext>> server = TlsServerContext::SelfSigned();
  EXPECT_TRUE(server.ok()) << server.status();
  return *std::move(server);
}

std::unique_ptr<TlsClientContext> NewClient(TlsClientContext::Options options) {
  absl::StatusOr<std::unique_ptr<TlsClientContext>> client = TlsClientContext::Create(options);
  EXPECT_TRUE(client.ok()) << client.status();
  return *std::move(client);
}

std::unique_ptr<TlsClientContext> TrustingClient(const TlsServerContext& server) {
  return NewClient({.ca_pem = server.certificate_pem()});
}

struct TlsPair {
  std::unique_ptr<Transport> client;
  std::unique_ptr<Transport> server;
};

TlsPair WrapPair(SocketPair sockets, TlsServerContext& server, TlsClientContext& client,
                 const std::string& server_name = "localhost") {
  absl::StatusOr<std::unique_ptr<Transport>> c =
      client.Wrap(std::move(sockets.client), server_name);
  absl::StatusOr<std::unique_ptr<Transport>> s = server.Wrap(std::move(sockets.server));
  EXPECT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(s.ok()) << s.status();
  return {*std::move(c), *std::move(s)};
}

short PollEvents(IoStatus status) { return status == IoStatus::kWantWrite ? POLLOUT : POLLIN; }

// Waits (bounded) until one of the two transports can make progress on what it asked for.
void WaitFor(const Transport& a, IoStatus a_wants, const Transport& b, IoStatus b_wants) {
  pollfd fds[2] = {{a.fd(), PollEvents(a_wants), 0}, {b.fd(), PollEvents(b_wants), 0}};
  ASSERT_GT(poll(fds, 2, 10000), 0) << "no progress within 10 s";
}

bool Pending(IoStatus status) {
  return status == IoStatus::kWantRead || status == IoStatus::kWantWrite;
}

// Drives both handshakes of a non-blocking pair in one thread. Returns the final results.
std::pair<IoResult, IoResult> HandshakeBoth(TlsPair& pair) {
  IoResult c = pair.client->Handshake();
  IoResult s = pair.server->Handshake();
  for (int round = 0; round < 1000 && (Pending(c.status) || Pending(s.status)); ++round) {
    if (Pending(c.status) && Pending(s.status))
      WaitFor(*pair.client, c.status, *pair.server, s.status);
    if (Pending(c.status)) c = pair.client->Handshake();
    if (Pending(s.status)) s = pair.server->Handshake();
  }
  return {c, s};
}

// Reads `n` bytes from a non-blocking transport, `piece` bytes at a time at most, waiting in poll
// only on kWantRead. A poll that times out means the transport said kWantRead while it still held
// bytes.
std::string ReadNonBlocking(Transport& t, size_t n, size_t piece) {
  std::string received;
  std::vector<char> buffer(piece);
  for (int round = 0; round < 1000000 && received.size() < n; ++round) {
    IoResult r = t.Read(buffer.data(), std::min(piece, n - received.size()));
    if (r.status == IoStatus::kOk) {
      received.append(buffer.data(), r.bytes);
      continue;
    }
    if (r.status != IoStatus::kWantRead) {
      ADD_FAILURE() << "read: " << r.message;
      break;
    }
    pollfd fd = {t.fd(), POLLIN, 0};
    if (poll(&fd, 1, 10000) != 1) {
      ADD_FAILURE() << "kWantRead, then nothing to read for 10 s, after " << received.size()
                    << " of " << n;
      break;
    }
  }
  return received;
}

// Blocking-socket helpers.
std::string ReadExactly(Transport& t, size_t n) {
  std::string data(n, '\0');
  size_t got = 0;
  while (got < n) {
    IoResult r = t.Read(data.data() + got, n - got);
    EXPECT_EQ(r.status, IoStatus::kOk) << r.message;
    if (r.status != IoStatus::kOk) break;
    got += r.bytes;
  }
  data.resize(got);
  return data;
}

void WriteAll(Transport& t, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    IoResult r = t.Write(data.data() + sent, data.size() - sent);
    ASSERT_EQ(r.status, IoStatus::kOk) << r.message;
    sent += r.bytes;
  }
}

std::string Pattern(size_t n) {
  std::string data(n, '\0');
  uint32_t x = 12345;
  for (char& c : data) {
    x = x * 1103515245 + 12345;
    c = static_cast<char>(x >> 24);
  }
  return data;
}

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

void WriteFile(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  ASSERT_EQ(std::fwrite(text.data(), 1, text.size(), f), text.size());
  ASSERT_EQ(std::fclose(f), 0);
}

// ---- The library ----

int CollectObject(dl_phdr_info* info, size_t, void* data) {
  static_cast<std::vector<std::string>*>(data)->push_back(info->dlpi_name);
  return 0;
}

// BoringSSL is built from source by Bazel (WORKSPACE), with its assembly; neither OpenSSL 3 nor
// Debian's Android build of BoringSSL (.../android/libssl.so) is loaded beside it.
TEST(TlsLibraryTest, IsBoringSslBuiltFromSourceWithItsAssembly) {
  EXPECT_THAT(std::string(OpenSSL_version(OPENSSL_VERSION)), HasSubstr("BoringSSL"));
  EXPECT_EQ(CRYPTO_has_asm(), 1);
  std::vector<std::string> objects;
  dl_iterate_phdr(CollectObject, &objects);
  for (const std::string& object : objects) {
    EXPECT_FALSE(absl::StrContains(object, "libssl.so.3")) << object;
    EXPECT_FALSE(absl::StrContains(object, "libcrypto.so.3")) << object;
    EXPECT_FALSE(absl::StrContains(object, "/android/")) << object;
  }
}

// ---- Handshake and bytes ----

TEST(TlsTest, BlockingHandshakeAndBytesBothWays) {
  std::unique_ptr<TlsServerContext> server_context = NewServer();
  server_context->SetAlpnProtocols({"http/1.1"});
  std::unique_ptr<TlsClientContext> client_context = NewClient(
      {.ca_pem = server_context->certificate_pem(), .alpn_protocols = {"h2", "http/1.1"}});
  TlsPair pair = WrapPair(ConnectedPair(false), *server_context, *client_context);
  EXPECT_STREQ(pair.client->name(), "tls");

  std::thread server([&] {
    Transport& t = *pair.server;
    IoResult r = t.Handshake();
    ASSERT_EQ(r.status, IoStatus::kOk) << r.message;
    EXPECT_EQ(ReadExactly(t, 4), "ping");
    WriteAll(t, "pong");
    char byte;
    r = t.Read(&byte, 1);  // the client's close_notify
    EXPECT_EQ(r.status, IoStatus::kEof);
    EXPECT_THAT(r.message, HasSubstr("close_notify"));
    EXPECT_THAT(r.message, ::testing::Not(HasSubstr("without")));
    t.ShutdownWrite();
  });
  IoResult r = pair.client->Handshake();
  ASSERT_EQ(r.status, IoStatus::kOk) << r.message;
  WriteAll(*pair.client, "ping");
  EXPECT_EQ(ReadExactly(*pair.client, 4), "pong");
  pair.client->ShutdownWrite();
  char byte;
  r = pair.client->Read(&byte, 1);
  EXPECT_EQ(r.status, IoStatus::kEof) << r.message;
  server.join();

  const TlsTransport* tls = AsTls(*pair.client);
  ASSERT_NE(tls, nullptr);
  EXPECT_EQ(tls->version(), "TLSv1.3");
  EXPECT_FALSE(tls->cipher().empty());
  EXPECT_EQ(tls->alpn_protocol(), "http/1.1");
  EXPECT_EQ(AsTls(*pair.server)->alpn_protocol(), "http/1.1");
  EXPECT_EQ(client_context->stats().handshakes, 1);
  EXPECT_EQ(server_context->stats().handshakes, 1);
}

TEST(TlsTest, NonBlockingHandshakeAndBytesWithPoll) {
  std::unique_ptr<TlsClientContext> client_context = TrustingClient(SharedServer());
  TlsPair pair = WrapPair(ConnectedPair(true), SharedServer(), *client_context);
  // Nothing has arrived yet: the server must ask to wait, not block.
  char byte;
  EXPECT_EQ(pair.server->Read(&byte, 1).status, IoStatus::kWantRead);

  auto [c, s] = HandshakeBoth(pair);
  ASSERT_EQ(c.status, IoStatus::kOk) << c.message;
  ASSERT_EQ(s.status, IoStatus::kOk) << s.message;
  EXPECT_EQ(pair.client->Handshake().status, IoStatus::kOk);  // idempotent once done

  const std::string request = "hello over non-blocking TLS";
  IoResult w = pair.client->Write(request.data(), request.size());
  ASSERT_EQ(w.status, IoStatus::kOk) << w.message;
  ASSERT_EQ(w.bytes, request.size());
  EXPECT_EQ(ReadNonBlocking(*pair.server, request.size(), 256), request);
  // And no more: the next read wants to wait.
  EXPECT_EQ(pair.server->Read(&byte, 1).status, IoStatus::kWantRead);
}

// ---- Verification ----

// A handshake's result, its message copied: IoResult::message lives only as long as its transport.
struct Outcome {
  IoStatus status;
  int error;
  std::string message;
};

std::pair<Outcome, Outcome> HandshakeWith(TlsClientContext& client,
                                          const std::string& server_name) {
  TlsPair pair = WrapPair(ConnectedPair(true), SharedServer(), client, server_name);
  auto [c, s] = HandshakeBoth(pair);
  return {{c.status, c.error, c.message}, {s.status, s.error, s.message}};
}

TEST(TlsVerifyTest, UntrustedCertificateFails) {
  std::unique_ptr<TlsClientContext> client = NewClient({});  // the system CA bundle
  auto [c, s] = HandshakeWith(*client, "localhost");
  EXPECT_EQ(c.status, IoStatus::kError);
  EXPECT_EQ(c.error, 0);
  EXPECT_THAT(c.message, HasSubstr("certificate verify failed"));
  EXPECT_THAT(c.message, HasSubstr("self signed certificate"));
  // The server learns of it from the client's alert.
  EXPECT_EQ(s.status, IoStatus::kError);
  EXPECT_THAT(s.message, HasSubstr("TLS handshake"));
}

TEST(TlsVerifyTest, CertificateOfAnotherServerFails) {
  std::unique_ptr<TlsServerContext> other = NewServer();
  std::unique_ptr<TlsClientContext> client = TrustingClient(*other);
  auto [c, s] = HandshakeWith(*client, "localhost");
  EXPECT_EQ(c.status, IoStatus::kError);
  EXPECT_THAT(c.message, HasSubstr("certificate verify failed"));
}

TEST(TlsVerifyTest, HostNameMismatchFails) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  auto [c, s] = HandshakeWith(*client, "example.com");
  EXPECT_EQ(c.status, IoStatus::kError);
  EXPECT_THAT(c.message, HasSubstr("certificate verify failed: Hostname mismatch"));
}

TEST(TlsVerifyTest, AddressLiteralsAreCheckedAgainstIpAltNames) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  for (const std::string name : {"localhost", "127.0.0.1", "::1", "[::1]"}) {
    auto [c, s] = HandshakeWith(*client, name);
    EXPECT_EQ(c.status, IoStatus::kOk) << name << ": " << c.message;
    EXPECT_EQ(s.status, IoStatus::kOk) << name << ": " << s.message;
  }
  auto [c, s] = HandshakeWith(*client, "10.0.0.1");
  EXPECT_EQ(c.status, IoStatus::kError);
  EXPECT_THAT(c.message, HasSubstr("certificate verify failed: IP address mismatch"));
}

TEST(TlsVerifyTest, InsecureSkipsVerification) {
  std::unique_ptr<TlsClientContext> client = NewClient({.insecure = true});
  for (const std::string name : {"localhost", "example.com", ""}) {
    auto [c, s] = HandshakeWith(*client, name);
    EXPECT_EQ(c.status, IoStatus::kOk) << name << ": " << c.message;
    EXPECT_EQ(s.status, IoStatus::kOk) << name << ": " << s.message;
  }
}

TEST(TlsVerifyTest, VerificationNeedsAServerName) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  SocketPair sockets = ConnectedPair(false);
  absl::StatusOr<std::unique_ptr<Transport>> t = client->Wrap(std::move(sockets.client), "");
  EXPECT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("server name"));
}

TEST(TlsVerifyTest, CaFileIsReadAndMissingCaFileIsAClearError) {
  std::string path = TempDir() + "/ca.pem";
  WriteFile(path, SharedServer().certificate_pem());
  std::unique_ptr<TlsClientContext> client = NewClient({.ca_file = path});
  auto [c, s] = HandshakeWith(*client, "localhost");
  EXPECT_EQ(c.status, IoStatus::kOk) << c.message;

  absl::StatusOr<std::unique_ptr<TlsClientContext>> missing =
      TlsClientContext::Create({.ca_file = TempDir() + "/no-such-ca.pem"});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("no-such-ca.pem: No such file or directory"));

  WriteFile(path, "not a certificate\n");
  absl::StatusOr<std::unique_ptr<TlsClientContext>> garbage =
      TlsClientContext::Create({.ca_file = path});
  ASSERT_FALSE(garbage.ok());
  EXPECT_THAT(std::string(garbage.status().message()), HasSubstr("no PEM certificate"));
}

// ---- Certificates ----

TEST(TlsCertificateTest, FromFilesServesTheSameCertificate) {
  std::unique_ptr<TlsServerContext> made = NewServer();
  std::string cert_path = TempDir() + "/cert.pem";
  std::string key_path = TempDir() + "/key.pem";
  WriteFile(cert_path, made->certificate_pem());
  WriteFile(key_path, made->private_key_pem());
  EXPECT_THAT(made->private_key_pem(), HasSubstr("-----BEGIN PRIVATE KEY-----"));

  absl::StatusOr<std::unique_ptr<TlsServerContext>> loaded =
      TlsServerContext::FromFiles(cert_path, key_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ((*loaded)->Sha256Fingerprint(), made->Sha256Fingerprint());
  EXPECT_EQ((*loaded)->certificate_pem(), made->certificate_pem());

  std::unique_ptr<TlsClientContext> client = TrustingClient(*made);
  TlsPair pair = WrapPair(ConnectedPair(true), **loaded, *client);
  auto [c, s] = HandshakeBoth(pair);
  EXPECT_EQ(c.status, IoStatus::kOk) << c.message;
  EXPECT_EQ(s.status, IoStatus::kOk) << s.message;
}

TEST(TlsCertificateTest, FromFilesErrorsAreClear) {
  std::unique_ptr<TlsServerContext> made = NewServer();
  std::unique_ptr<TlsServerContext> other = NewServer();
  std::string cert_path = TempDir() + "/cert2.pem";
  std::string key_path = TempDir() + "/key2.pem";
  std::string other_key_path = TempDir() + "/other-key.pem";
  WriteFile(cert_path, made->certificate_pem());
  WriteFile(key_path, made->private_key_pem());
  WriteFile(other_key_path, other->private_key_pem());

  absl::StatusOr<std::unique_ptr<TlsServerContext>> r =
      TlsServerContext::FromFiles("/nonexistent/c.pem", key_path);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("certificate file /nonexistent/c.pem: No such file or directory"));

  r = TlsServerContext::FromFiles(cert_path, "/nonexistent/k.pem");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("private key file /nonexistent/k.pem: No such file or directory"));

  r = TlsServerContext::FromFiles(cert_path, other_key_path);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("does not match the certificate"));

  r = TlsServerContext::FromFiles(key_path, key_path);  // a key where the certificate should be
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("no PEM certificate"));

  r = TlsServerContext::FromFiles(cert_path, cert_path);  // a certificate where the key should be
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("private key"));
}

TEST(TlsCertificateTest, FingerprintFormat) {
  std::string fingerprint = SharedServer().Sha256Fingerprint();
  // 32 bytes as "AB:CD:...": upper-case hex pairs joined by colons.
  ASSERT_EQ(fingerprint.size(), 32 * 3 - 1) << fingerprint;
  for (size_t i = 0; i < fingerprint.size(); ++i) {
    char c = fingerprint[i];
    if (i % 3 == 2) {
      EXPECT_EQ(c, ':') << fingerprint;
    } else {
      EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F')) << fingerprint;
    }
  }
  EXPECT_EQ(SharedServer().Sha256Fingerprint(), fingerprint);
  EXPECT_NE(NewServer()->Sha256Fingerprint(),
            fingerprint);  // a fresh key and certificate each time
}

// Runs a program to its end; returns (exit status, what it printed). -1 when it could not be run.
std::pair<int, std::string> RunProgram(const std::vector<std::string>& argv) {
  ChildProcess child(argv);
  if (!child.started()) return {-1, ""};
  std::string out = child.ReadRest();
  return {child.Wait(), out};
}

TEST(TlsCertificateTest, FingerprintMatchesOpensslCommand) {
  if (access("/usr/bin/openssl", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/openssl";
  std::string path = TempDir() + "/fingerprint.pem";
  WriteFile(path, SharedServer().certificate_pem());
  auto [rc, out] =
      RunProgram({"/usr/bin/openssl", "x509", "-noout", "-fingerprint", "-sha256", "-in", path});
  ASSERT_EQ(rc, 0);
  // "sha256 Fingerprint=AB:CD:..." (OpenSSL 3) or "SHA256 Fingerprint=..." (1.1).
  EXPECT_THAT(out, HasSubstr("Fingerprint=" + SharedServer().Sha256Fingerprint() + "\n"));
}

TEST(TlsCertificateTest, SelfSignedHasTheAltNamesAndValidity) {
  absl::StatusOr<SelfSignedCertificate> made = MakeSelfSignedCertificate("bench.test");
  ASSERT_TRUE(made.ok()) << made.status();
  X509* x = made->certificate.get();
  EXPECT_EQ(X509_check_host(x, "bench.test", 10, 0, nullptr), 1);
  EXPECT_EQ(X509_check_host(x, "localhost", 9, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(x, "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(x, "::1", 0), 1);
  EXPECT_EQ(X509_check_host(x, "example.com", 11, 0, nullptr), 0);
  EXPECT_EQ(X509_cmp_current_time(X509_get0_notBefore(x)), -1);  // already valid
  EXPECT_EQ(X509_cmp_current_time(X509_get0_notAfter(x)), 1);    // not yet expired
  EXPECT_EQ(EVP_PKEY_id(made->key.get()), EVP_PKEY_EC);
  EXPECT_TRUE(X509_verify(x, made->key.get()));  // self-signed

  EXPECT_FALSE(MakeSelfSignedCertificate("").ok());
}

// ---- Session resumption ----

// One full exchange over a non-blocking pair: handshake, a byte each way (the byte read by the
// client takes in the TLS 1.3 session tickets). Returns whether the client resumed.
bool ExchangeOnce(TlsServerContext& server, TlsClientContext& client) {
  TlsPair pair = WrapPair(ConnectedPair(true), server, client);
  auto [c, s] = HandshakeBoth(pair);
  EXPECT_EQ(c.status, IoStatus::kOk) << c.message;
  EXPECT_EQ(s.status, IoStatus::kOk) << s.message;
  EXPECT_EQ(pair.server->Write("x", 1).status, IoStatus::kOk);
  char byte = 0;
  IoResult r;
  for (int round = 0; round < 100; ++round) {
    r = pair.client->Read(&byte, 1);
    if (r.status != IoStatus::kWantRead) break;
    pollfd fd = {pair.client->fd(), POLLIN, 0};
    EXPECT_EQ(poll(&fd, 1, 10000), 1);
  }
  EXPECT_EQ(r.status, IoStatus::kOk) << r.message;
  EXPECT_EQ(byte, 'x');
  EXPECT_EQ(TlsSessionReused(*pair.client), TlsSessionReused(*pair.server));
  return TlsSessionReused(*pair.client);
}

TEST(TlsSessionTest, SecondConnectionResumes) {
  std::unique_ptr<TlsServerContext> server = NewServer();
  std::unique_ptr<TlsClientContext> client = TrustingClient(*server);
  EXPECT_FALSE(ExchangeOnce(*server, *client));
  EXPECT_TRUE(ExchangeOnce(*server, *client));
  EXPECT_TRUE(ExchangeOnce(*server, *client));
  EXPECT_EQ(client->stats().handshakes, 3);
  EXPECT_EQ(client->stats().resumed, 2);
  EXPECT_EQ(server->stats().handshakes, 3);
  EXPECT_EQ(server->stats().resumed, 2);
}

TEST(TlsSessionTest, ResumptionCanBeTurnedOff) {
  std::unique_ptr<TlsServerContext> server = NewServer();
  std::unique_ptr<TlsClientContext> client =
      NewClient({.ca_pem = server->certificate_pem(), .session_resumption = false});
  EXPECT_FALSE(ExchangeOnce(*server, *client));
  EXPECT_FALSE(ExchangeOnce(*server, *client));
  EXPECT_EQ(client->stats().resumed, 0);
}

TEST(TlsSessionTest, SessionsAreKeptPerServerName) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  auto& server = SharedServer();
  EXPECT_FALSE(ExchangeOnce(server, *client));
  // Same server, another name: nothing cached for it.
  TlsPair pair = WrapPair(ConnectedPair(true), server, *client, "127.0.0.1");
  auto [c, s] = HandshakeBoth(pair);
  ASSERT_EQ(c.status, IoStatus::kOk) << c.message;
  EXPECT_FALSE(TlsSessionReused(*pair.client));
  EXPECT_FALSE(TlsSessionReused(*MakePlainTransport(UniqueFd())));
}

// ---- EOF ----

TEST(TlsEofTest, CloseNotifyAndTruncationAreBothEofAndSaySo) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  for (bool close_notify : {true, false}) {
    TlsPair pair = WrapPair(ConnectedPair(true), SharedServer(), *client);
    auto [c, s] = HandshakeBoth(pair);
    ASSERT_EQ(c.status, IoStatus::kOk) << c.message;
    if (close_notify) {
      pair.server->ShutdownWrite();
    } else {
      ASSERT_EQ(::shutdown(pair.server->fd(), SHUT_WR), 0);  // a TCP FIN with no alert before it
    }
    IoResult r;
    char buffer[64];
    for (int round = 0; round < 100; ++round) {
      r = pair.client->Read(buffer, sizeof(buffer));
      if (r.status != IoStatus::kWantRead) break;
      pollfd fd = {pair.client->fd(), POLLIN, 0};
      ASSERT_EQ(poll(&fd, 1, 10000), 1);
    }
    EXPECT_EQ(r.status, IoStatus::kEof) << r.message;
    if (close_notify) {
      EXPECT_STREQ(r.message, "peer closed the TLS connection (close_notify)");
    } else {
      EXPECT_THAT(r.message, HasSubstr("without TLS close_notify"));
    }
  }
}

TEST(TlsEofTest, PeerClosingDuringHandshakeIsAnError) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  SocketPair sockets = ConnectedPair(false);
  ASSERT_EQ(::shutdown(sockets.server.get(), SHUT_WR), 0);
  absl::StatusOr<std::unique_ptr<Transport>> t =
      client->Wrap(std::move(sockets.client), "localhost");
  ASSERT_TRUE(t.ok());
  IoResult r = (*t)->Handshake();
  EXPECT_EQ(r.status, IoStatus::kError);
  EXPECT_THAT(r.message, HasSubstr("TLS handshake: peer closed the connection"));
}

TEST(TlsEofTest, PlainTextPeerIsAClearError) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  SocketPair sockets = ConnectedPair(false);
  const char kHttp[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
  ASSERT_EQ(::write(sockets.server.get(), kHttp, sizeof(kHttp) - 1),
            static_cast<ssize_t>(sizeof(kHttp) - 1));
  absl::StatusOr<std::unique_ptr<Transport>> t =
      client->Wrap(std::move(sockets.client), "localhost");
  ASSERT_TRUE(t.ok());
  IoResult r = (*t)->Handshake();
  EXPECT_EQ(r.status, IoStatus::kError);
  EXPECT_THAT(r.message, HasSubstr("TLS handshake: "));
  EXPECT_THAT(r.message, HasSubstr("WRONG_VERSION_NUMBER"));
}

TEST(TlsEofTest, WritingToAResetPeerIsAnErrnoNotASignal) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  TlsPair pair = WrapPair(ConnectedPair(true), SharedServer(), *client);
  auto [c, s] = HandshakeBoth(pair);
  ASSERT_EQ(c.status, IoStatus::kOk) << c.message;
  // SO_LINGER 0: close sends RST at once.
  linger hard = {1, 0};
  ASSERT_EQ(setsockopt(pair.server->fd(), SOL_SOCKET, SO_LINGER, &hard, sizeof(hard)), 0);
  pair.server.reset();
  std::string data(4096, 'z');
  IoResult r;
  for (int i = 0; i < 1000; ++i) {
    r = pair.client->Write(data.data(), data.size());
    if (r.status == IoStatus::kError) break;
    if (r.status == IoStatus::kWantWrite) {
      pollfd fd = {pair.client->fd(), POLLOUT, 0};
      ASSERT_GE(poll(&fd, 1, 10000), 1);
    }
  }
  EXPECT_EQ(r.status, IoStatus::kError);
  EXPECT_TRUE(r.error == EPIPE || r.error == ECONNRESET) << r.error << " " << r.message;
  EXPECT_THAT(r.message, HasSubstr("TLS write: "));
}

// ---- Large transfers, partial writes, the retry contract ----

void SetSmallBuffers(int fd) {
  int size = 65536;
  ASSERT_EQ(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)), 0);
  ASSERT_EQ(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)), 0);
}

// One non-blocking read appended to `received`. Returns kOk, kWantRead/kWantWrite, or kError (a
// failure).
IoStatus ReadInto(Transport& t, std::string& received) {
  char buffer[20000];
  IoResult r = t.Read(buffer, sizeof(buffer));
  if (r.status == IoStatus::kOk) {
    received.append(buffer, r.bytes);
  } else if (!Pending(r.status)) {
    ADD_FAILURE() << "read: " << r.message;
    return IoStatus::kError;
  }
  return r.status;
}

// A non-blocking pair to the shared server with 64 KiB socket buffers, handshake done (nulls on
// failure).
TlsPair SmallBufferPair(TlsClientContext& client) {
  SocketPair sockets = ConnectedPair(true);
  SetSmallBuffers(sockets.client.get());
  SetSmallBuffers(sockets.server.get());
  TlsPair pair = WrapPair(std::move(sockets), SharedServer(), client);
  auto [c, s] = HandshakeBoth(pair);
  EXPECT_EQ(c.status, IoStatus::kOk) << c.message;
  EXPECT_EQ(s.status, IoStatus::kOk) << s.message;
  if (c.status != IoStatus::kOk || s.status != IoStatus::kOk) return {};
  return pair;
}

TEST(TlsTransferTest, OneMebibyteNonBlockingWithPartialWritesAndMovingRetries) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  TlsPair pair = SmallBufferPair(*client);
  ASSERT_NE(pair.client, nullptr);

  const std::string data = Pattern(1 << 20);
  std::string received;
  received.reserve(data.size());
  size_t sent = 0;
  int partial_writes = 0, want_writes = 0;
  IoStatus writer_wants = IoStatus::kOk, reader_wants = IoStatus::kOk;
  std::string moved;  // a retry after kWantWrite passes the same bytes from another address
  for (int round = 0; round < 1000000 && received.size() < data.size(); ++round) {
    if (Pending(writer_wants) && Pending(reader_wants)) {
      WaitFor(*pair.client, writer_wants, *pair.server, reader_wants);
    }
    if (sent < data.size()) {
      size_t length = data.size() - sent;
      const char* from = data.data() + sent;
      if (writer_wants == IoStatus::kWantWrite) {
        moved.assign(from, std::min<size_t>(length, 65536));
        from = moved.data();
        length = moved.size();
      }
      IoResult w = pair.client->Write(from, length);
      writer_wants = w.status;
      if (w.status == IoStatus::kOk) {
        if (w.bytes < length) ++partial_writes;
        sent += w.bytes;
      } else {
        ASSERT_TRUE(Pending(w.status)) << w.message;
        ++want_writes;
      }
    } else {
      writer_wants = IoStatus::kWantRead;  // done writing: only the reader's readiness matters
    }
    if (want_writes == 0 && sent < data.size())
      continue;  // the reader waits until the socket is full
    reader_wants = ReadInto(*pair.server, received);
    ASSERT_NE(reader_wants, IoStatus::kError);
  }
  ASSERT_EQ(received.size(), data.size());
  EXPECT_TRUE(received == data);
  EXPECT_GT(partial_writes, 0);  // a record (16 KiB) at most per Write
  EXPECT_GT(want_writes, 0);     // the 64 KiB socket buffers filled up
}

TEST(TlsTransferTest, OneMebibyteEachWayBlockingAcrossThreads) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  TlsPair pair = WrapPair(ConnectedPair(false), SharedServer(), *client);
  const std::string up = Pattern(1 << 20);
  const std::string down = Pattern((1 << 20) + 7);
  std::thread server([&] {
    ASSERT_EQ(pair.server->Handshake().status, IoStatus::kOk);
    EXPECT_TRUE(ReadExactly(*pair.server, up.size()) == up);
    WriteAll(*pair.server, down);
    pair.server->ShutdownWrite();
  });
  WriteAll(*pair.client, up);  // the handshake happens inside the first write
  EXPECT_TRUE(ReadExactly(*pair.client, down.size()) == down);
  char byte;
  IoResult r = pair.client->Read(&byte, 1);
  EXPECT_EQ(r.status, IoStatus::kEof) << r.message;
  server.join();
}

TEST(TlsTransferTest, WritevGathersSmallBuffersAndHonoursTheRetryContract) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  TlsPair pair = SmallBufferPair(*client);
  ASSERT_NE(pair.client, nullptr);

  // 2000 "messages" of a 2-byte header and a 100-byte payload, each sent as two iovecs, as a
  // WebSocket client sends a frame; then one large payload behind a header.
  std::string expected;
  const std::string payload = Pattern(100);
  const std::string big = Pattern(100000);
  std::vector<std::pair<std::string, const std::string*>> messages;
  for (int i = 0; i < 2000; ++i) messages.push_back({std::string{char(0x82), char(100)}, &payload});
  messages.push_back({std::string{char(0x82), char(127)}, &big});
  for (const auto& [header, body] : messages) expected += header + *body;

  std::string received;
  size_t message = 0, offset = 0;  // position within messages[message] (header then body)
  int want_writes = 0;
  IoStatus writer_wants = IoStatus::kOk, reader_wants = IoStatus::kOk;
  for (int round = 0; round < 1000000 && received.size() < expected.size(); ++round) {
    if (Pending(writer_wants) && Pending(reader_wants)) {
      WaitFor(*pair.client, writer_wants, *pair.server, reader_wants);
    }
    if (message < messages.size()) {
      const auto& [header, body] = messages[message];
      iovec iov[2];
      int count = 0;
      if (offset < header.size())
        iov[count++] = {const_cast<char*>(header.data() + offset), header.size() - offset};
      size_t body_offset = offset > header.size() ? offset - header.size() : 0;
      iov[count++] = {const_cast<char*>(body->data() + body_offset), body->size() - body_offset};
      IoResult w = pair.client->Writev(iov, count);
      writer_wants = w.status;
      if (w.status == IoStatus::kOk) {
        offset += w.bytes;
        if (offset == header.size() + body->size()) ++message, offset = 0;
      } else {
        ASSERT_TRUE(Pending(w.status)) << w.message;
        ++want_writes;
      }
    } else {
      writer_wants = IoStatus::kWantRead;
    }
    if (want_writes == 0 && message < messages.size())
      continue;  // the reader waits until the socket is full
    reader_wants = ReadInto(*pair.server, received);
    ASSERT_NE(reader_wants, IoStatus::kError);
  }
  ASSERT_EQ(received.size(), expected.size());
  EXPECT_TRUE(received == expected);
  EXPECT_GT(want_writes, 0);
}

TEST(TlsTransferTest, ManySmallRecordsReadInSmallPiecesThenTheSocketIsEmpty) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  TlsPair pair = WrapPair(ConnectedPair(true), SharedServer(), *client);
  auto [c, s] = HandshakeBoth(pair);
  ASSERT_EQ(c.status, IoStatus::kOk) << c.message;
  // 300 records of 10 bytes arrive in one burst: the transport takes them in with few recv calls
  // (read-ahead) and must hand every byte out before it reports kWantRead, or a caller waiting in
  // poll would hang.
  std::string expected;
  for (int i = 0; i < 300; ++i) {
    std::string message = absl::StrCat("msg-", 100000 + i).substr(0, 10);
    ASSERT_EQ(pair.client->Write(message.data(), message.size()).bytes, message.size());
    expected += message;
  }
  EXPECT_EQ(ReadNonBlocking(*pair.server, expected.size(), 7), expected);
  char byte;
  EXPECT_EQ(pair.server->Read(&byte, 1).status, IoStatus::kWantRead);
}

// ---- Pending(): bytes held inside the transport ----

// Two records sent in one TCP segment (the client's socket is corked while it writes them), so
// that one recv takes in both. After a read of less than the first record, the socket has nothing
// more to say, yet the transport holds the rest of the first record and all of the second:
// Pending() counts them, and reading while Pending() > 0 hands out every byte without the socket.
TEST(TlsPendingTest, CountsWhatTheSocketNoLongerSignals) {
  std::unique_ptr<TlsClientContext> client = TrustingClient(SharedServer());
  TlsPair pair = WrapPair(ConnectedPair(true), SharedServer(), *client);
  auto [c, s] = HandshakeBoth(pair);
  ASSERT_EQ(c.status, IoStatus::kOk) << c.message;
  ASSERT_EQ(s.status, IoStatus::kOk) << s.message;
  EXPECT_EQ(pair.server->Pending(), 0u);

  const std::string first = "first record, 28 bytes long";
  const std::string second = "the second one";
  int on = 1, off = 0;
  ASSERT_EQ(setsockopt(pair.client->fd(), IPPROTO_TCP, TCP_CORK, &on, sizeof(on)), 0);
  ASSERT_EQ(pair.client->Write(first.data(), first.size()).bytes, first.size());
  ASSERT_EQ(pair.client->Write(second.data(), second.size()).bytes, second.size());
  ASSERT_EQ(setsockopt(pair.client->fd(), IPPROTO_TCP, TCP_CORK, &off, sizeof(off)), 0);

  pollfd readable = {pair.server->fd(), POLLIN, 0};
  ASSERT_EQ(poll(&readable, 1, 10000), 1);
  char buffer[64];
  IoResult r = pair.server->Read(buffer, 4);
  ASSERT_EQ(r.status, IoStatus::kOk) << r.message;
  std::string received(buffer, r.bytes);

  // The rest of the first record is decrypted already; the second record is still encrypted, so
  // it counts with its framing: more than the plaintext left.
  const size_t plaintext_left = first.size() + second.size() - received.size();
  EXPECT_GT(pair.server->Pending(), plaintext_left);
  readable.revents = 0;
  EXPECT_EQ(poll(&readable, 1, 0), 0) << "the socket still signals input";

  while (pair.server->Pending() > 0) {
    r = pair.server->Read(buffer, sizeof(buffer));
    ASSERT_EQ(r.status, IoStatus::kOk) << r.message;
    received.append(buffer, r.bytes);
  }
  EXPECT_EQ(received, first + second);
  EXPECT_EQ(pair.server->Read(buffer, sizeof(buffer)).status, IoStatus::kWantRead);
}

TEST(TlsPendingTest, PlainTcpHoldsNothing) {
  SocketPair sockets = ConnectedPair(true);
  std::unique_ptr<Transport> plain = MakePlainTransport(std::move(sockets.server));
  ASSERT_EQ(write(sockets.client.get(), "abcdef", 6), 6);
  pollfd readable = {plain->fd(), POLLIN, 0};
  ASSERT_EQ(poll(&readable, 1, 10000), 1);
  char buffer[2];
  ASSERT_EQ(plain->Read(buffer, sizeof(buffer)).bytes, 2u);
  EXPECT_EQ(plain->Pending(), 0u);  // the other 4 bytes wait in the kernel, where poll sees them
  readable.revents = 0;
  EXPECT_EQ(poll(&readable, 1, 0), 1);
}

// ---- Concurrency: contexts shared by threads ----

TEST(TlsConcurrencyTest, ManyThreadsShareOneClientAndOneServerContext) {
  constexpr int kThreads = 4, kConnectionsPerThread = 4;
  std::unique_ptr<TlsServerContext> server = NewServer();
  std::unique_ptr<TlsClientContext> client = TrustingClient(*server);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kConnectionsPerThread; ++i) ExchangeOnce(*server, *client);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(client->stats().handshakes, kThreads * kConnectionsPerThread);
  EXPECT_EQ(server->stats().handshakes, kThreads * kConnectionsPerThread);
  // Each thread's later connections find a session from some earlier one.
  EXPECT_GE(client->stats().resumed, kThreads * (kConnectionsPerThread - 1));
}

TEST(TlsConcurrencyTest, TransportsOutliveTheirContexts) {
  std::unique_ptr<TlsServerContext> server = NewServer();
  std::unique_ptr<TlsClientContext> client = TrustingClient(*server);
  TlsPair pair = WrapPair(ConnectedPair(true), *server, *client);
  server.reset();
  client.reset();
  auto [c, s] = HandshakeBoth(pair);
  EXPECT_EQ(c.status, IoStatus::kOk) << c.message;
  EXPECT_EQ(s.status, IoStatus::kOk) << s.message;
  EXPECT_EQ(pair.server->Write("x", 1).status, IoStatus::kOk);
  char byte;
  pollfd fd = {pair.client->fd(), POLLIN, 0};
  ASSERT_EQ(poll(&fd, 1, 10000), 1);
  EXPECT_EQ(pair.client->Read(&byte, 1).status,
            IoStatus::kOk);  // takes in tickets: the cache callback runs
}

// ---- Interoperability: curl (OpenSSL 3) against our server ----

TEST(TlsInteropTest, CurlVerifiesOurSelfSignedServer) {
  if (access("/usr/bin/curl", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/curl";
  std::unique_ptr<TlsServerContext> server = NewServer();
  std::string ca_path = TempDir() + "/curl-ca.pem";
  WriteFile(ca_path, server->certificate_pem());
  absl::StatusOr<Listener> listener = Listen({.host = "127.0.0.1", .port = 0});
  ASSERT_TRUE(listener.ok()) << listener.status();

  std::thread server_thread([&] {
    absl::StatusOr<UniqueFd> fd = Accept(listener->fd.get(), false);
    ASSERT_TRUE(fd.ok()) << fd.status();
    absl::StatusOr<std::unique_ptr<Transport>> t = server->Wrap(*std::move(fd));
    ASSERT_TRUE(t.ok());
    IoResult r = (*t)->Handshake();
    ASSERT_EQ(r.status, IoStatus::kOk) << r.message;
    std::string request;
    char buffer[4096];
    while (!absl::StrContains(request, "\r\n\r\n")) {
      r = (*t)->Read(buffer, sizeof(buffer));
      ASSERT_EQ(r.status, IoStatus::kOk) << r.message;
      request.append(buffer, r.bytes);
    }
    EXPECT_TRUE(absl::StartsWith(request, "GET /hello HTTP/1.1\r\n")) << request;
    WriteAll(**t,
             "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\nhello, curl\n");
    (*t)->ShutdownWrite();
    (*t)->Read(buffer, sizeof(buffer));  // curl's close_notify or EOF
  });
  std::string port = absl::StrCat(listener->port);
  auto [rc, out] =
      RunProgram({"/usr/bin/curl", "--silent", "--show-error", "--max-time", "20", "--http1.1",
                  "--cacert", ca_path, "--resolve", absl::StrCat("localhost:", port, ":127.0.0.1"),
                  absl::StrCat("https://localhost:", port, "/hello")});
  server_thread.join();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out, "hello, curl\n");
}

// ---- Interoperability: our client against `openssl s_server` (OpenSSL 3) ----

TEST(TlsInteropTest, OurClientVerifiesOpensslServerWithOurCertificate) {
  if (access("/usr/bin/openssl", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/openssl";
  std::unique_ptr<TlsServerContext> made = NewServer();
  std::string cert_path = TempDir() + "/s_server-cert.pem";
  std::string key_path = TempDir() + "/s_server-key.pem";
  WriteFile(cert_path, made->certificate_pem());
  WriteFile(key_path, made->private_key_pem());
  for (const std::string version : {"-tls1_2", "-tls1_3"}) {
    SCOPED_TRACE(version);
    ChildProcess server({"/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:0", "-cert",
                         cert_path, "-key", key_path, version, "-www", "-naccept", "2"});
    ASSERT_TRUE(server.started());
    std::string accept = server.ReadLineStartingWith("ACCEPT ", 10000);  // "ACCEPT 127.0.0.1:34501"
    ASSERT_FALSE(accept.empty()) << "openssl s_server did not start";
    int port = std::atoi(accept.substr(accept.rfind(':') + 1).c_str());
    std::unique_ptr<TlsClientContext> client = NewClient({.ca_file = cert_path});
    for (int connection = 0; connection < 2; ++connection) {
      absl::StatusOr<UniqueFd> fd = Connect("127.0.0.1", port);
      ASSERT_TRUE(fd.ok()) << fd.status();
      absl::StatusOr<std::unique_ptr<Transport>> t = client->Wrap(*std::move(fd), "localhost");
      ASSERT_TRUE(t.ok()) << t.status();
      WriteAll(**t, "GET / HTTP/1.0\r\n\r\n");
      std::string response;
      char buffer[16384];
      IoResult r;
      while ((r = (*t)->Read(buffer, sizeof(buffer))).status == IoStatus::kOk)
        response.append(buffer, r.bytes);
      EXPECT_EQ(r.status, IoStatus::kEof) << r.message;
      EXPECT_TRUE(absl::StartsWith(response, "HTTP/1.0 200 ok")) << response.substr(0, 200);
      EXPECT_EQ(AsTls(**t)->version(), version == "-tls1_2" ? "TLSv1.2" : "TLSv1.3");
      EXPECT_EQ(TlsSessionReused(**t), connection == 1) << "connection " << connection;
    }
  }
}

}  // namespace
}  // namespace netbench
