// The fan-out client end to end: each client model against the origin in each server model (500
// requests, every body checked by length and checksum), HTTPS with verification on and its failure
// path, keep-alive across repetitions (and a retry when a kept connection was closed), peers that
// never answer (the library and the built program give up within --timeout, naming the phase), and
// interoperability with Debian's `python3 -m http.server` and nginx (when installed).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/connection_handler.h"
#include "common/server.h"
#include "common/socket.h"
#include "common/tls.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httpfanout/fanout_client.h"
#include "httpfanout/origin_body.h"
#include "httpfanout/origin_handler.h"
#include "testing/black_hole.h"
#include "testing/child_process.h"

namespace netbench {
namespace {

using ::testing::HasSubstr;

// The models this build has (epoll on Linux only), for clients and servers alike.
const std::vector<ClientModel> kClientModels = AvailableClientModels();

Url LocalUrl(bool https, int port, const std::string& path = "/") {
  absl::StatusOr<Url> url = ParseUrl(
      absl::StrCat(https ? "https" : "http", "://127.0.0.1:", port, path), UrlFamily::kHttp);
  EXPECT_TRUE(url.ok()) << url.status();
  return *url;
}

RepetitionResult Fetch(const FanoutOptions& options) {
  absl::StatusOr<std::unique_ptr<FanoutClient>> client = FanoutClient::Create(options);
  EXPECT_TRUE(client.ok()) << client.status();
  if (!client.ok()) return RepetitionResult();
  return (*client)->RunRepetition();
}

// Every request succeeded with 200 and exactly the expected body.
void ExpectAllBodies(const RepetitionResult& rep, int requests, size_t size, uint64_t checksum) {
  EXPECT_EQ(rep.ok, requests);
  EXPECT_EQ(rep.failed, 0);
  ASSERT_EQ(rep.outcomes.size(), static_cast<size_t>(requests));
  for (int i = 0; i < requests; ++i) {
    const RequestOutcome& o = rep.outcomes[i];
    ASSERT_TRUE(o.ok) << "request " << i << ": " << o.error.cause << ": " << o.error.message;
    ASSERT_EQ(o.status, 200) << i;
    ASSERT_EQ(o.body_bytes, size) << i;
    ASSERT_EQ(o.checksum, checksum) << i;
  }
  EXPECT_EQ(rep.body_bytes, static_cast<uint64_t>(requests) * size);
  EXPECT_EQ(rep.total.count(), requests);
}

struct ModelPair {
  ClientModel client;
  ServerModel server;
};

class FanoutOriginTest : public testing::TestWithParam<ModelPair> {};

TEST_P(FanoutOriginTest, FiveHundredBodiesCheckedByLengthAndChecksum) {
  auto content = std::make_shared<const OriginContent>(OriginOptions{});
  ServerOptions server_options;
  server_options.model = GetParam().server;
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start(server_options, OriginHandlerFactory(content));
  ASSERT_TRUE(server.ok()) << server.status();
  FanoutOptions options;
  options.url = LocalUrl(false, (*server)->port(), "/index.html?x=1");
  options.model = GetParam().client;
  options.requests = 500;
  options.verify_checksum = true;
  RepetitionResult rep = Fetch(options);
  ExpectAllBodies(rep, 500, 25600, content->body_checksum());
  EXPECT_EQ(rep.connections_opened, 500);
  EXPECT_EQ(rep.status_counts.at(200), 500);
}

// The origin over HTTPS on every server model (uring included), from every client model: a
// handshake per request, every body whole.
TEST_P(FanoutOriginTest, HttpsBodiesOnEveryPairOfModels) {
  absl::StatusOr<std::unique_ptr<TlsServerContext>> server_tls = TlsServerContext::SelfSigned();
  ASSERT_TRUE(server_tls.ok()) << server_tls.status();
  auto content = std::make_shared<const OriginContent>(OriginOptions{});
  ServerOptions server_options;
  server_options.model = GetParam().server;
  server_options.tls = server_tls->get();
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start(server_options, OriginHandlerFactory(content));
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<std::unique_ptr<TlsClientContext>> client_tls = TlsClientContext::Create(
      {.ca_pem = (*server_tls)->certificate_pem(), .session_resumption = false});
  ASSERT_TRUE(client_tls.ok()) << client_tls.status();
  FanoutOptions options;
  options.url = LocalUrl(true, (*server)->port());
  options.model = GetParam().client;
  options.requests = 50;
  options.timeout_nanos = 20 * kNanosPerSecond;  // a hang fails the test in bounded time
  options.tls = client_tls->get();
  options.verify_checksum = true;
  RepetitionResult rep = Fetch(options);
  ExpectAllBodies(rep, 50, 25600, content->body_checksum());
  EXPECT_EQ(rep.tls.count(), 50);
  EXPECT_EQ((*server_tls)->stats().handshakes, 50);
}

std::vector<ModelPair> AllPairs() {
  std::vector<ModelPair> pairs;
  for (ClientModel c : kClientModels) {
    for (ServerModel s : AvailableServerModels()) pairs.push_back({c, s});
  }
  return pairs;
}

INSTANTIATE_TEST_SUITE_P(Models, FanoutOriginTest, testing::ValuesIn(AllPairs()),
                         [](const testing::TestParamInfo<ModelPair>& info) {
                           return absl::StrCat(ServerModelName(info.param.client), "_to_",
                                               ServerModelName(info.param.server));
                         });

class FanoutModelTest : public testing::TestWithParam<ClientModel> {};

TEST_P(FanoutModelTest, ChunkedKeepAliveWithLimitedConcurrencyAndLatency) {
  auto content =
      std::make_shared<const OriginContent>(OriginOptions{.body_size = 30000,
                                                          .latency_nanos = 5 * kNanosPerMilli,
                                                          .chunked = true,
                                                          .chunk_size = 4096});
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start(ServerOptions(), OriginHandlerFactory(content));
  ASSERT_TRUE(server.ok()) << server.status();
  FanoutOptions options;
  options.url = LocalUrl(false, (*server)->port());
  options.model = GetParam();
  options.requests = 200;
  options.concurrency = 20;
  options.keepalive = true;
  options.verify_checksum = true;
  absl::StatusOr<std::unique_ptr<FanoutClient>> client = FanoutClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  RepetitionResult first = (*client)->RunRepetition();
  ExpectAllBodies(first, 200, 30000, content->body_checksum());
  EXPECT_LE(first.connections_opened, 20);  // connections are reused
  RepetitionResult second = (*client)->RunRepetition();
  ExpectAllBodies(second, 200, 30000, content->body_checksum());
  // Connections kept from the first repetition serve the second: never more than 20 in all.
  EXPECT_LE(first.connections_opened + second.connections_opened, 20);
}

TEST_P(FanoutModelTest, HttpsWithVerificationAgainstTheOriginsCertificate) {
  absl::StatusOr<std::unique_ptr<TlsServerContext>> server_tls = TlsServerContext::SelfSigned();
  ASSERT_TRUE(server_tls.ok()) << server_tls.status();
  auto content = std::make_shared<const OriginContent>(OriginOptions{});
  ServerOptions server_options;
  server_options.tls = server_tls->get();
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start(server_options, OriginHandlerFactory(content));
  ASSERT_TRUE(server.ok()) << server.status();

  TlsClientContext::Options trust;
  trust.ca_pem = (*server_tls)->certificate_pem();
  trust.session_resumption = false;
  absl::StatusOr<std::unique_ptr<TlsClientContext>> client_tls = TlsClientContext::Create(trust);
  ASSERT_TRUE(client_tls.ok()) << client_tls.status();
  FanoutOptions options;
  options.url = LocalUrl(true, (*server)->port());
  options.model = GetParam();
  options.requests = 100;
  options.timeout_nanos = 20 * kNanosPerSecond;  // a hang fails the test in bounded time
  options.tls = client_tls->get();
  options.verify_checksum = true;
  RepetitionResult rep = Fetch(options);
  ExpectAllBodies(rep, 100, 25600, content->body_checksum());
  EXPECT_EQ(rep.tls.count(), 100);

  // The system CA bundle does not trust a self-signed certificate: every request fails, saying why.
  absl::StatusOr<std::unique_ptr<TlsClientContext>> system_tls = TlsClientContext::Create({});
  ASSERT_TRUE(system_tls.ok()) << system_tls.status();
  options.tls = system_tls->get();
  options.requests = 10;
  RepetitionResult refused = Fetch(options);
  EXPECT_EQ(refused.ok, 0);
  EXPECT_EQ(refused.failed, 10);
  EXPECT_EQ(refused.errors["tls"], 10);
  EXPECT_THAT(refused.outcomes[0].error.message, HasSubstr("certificate verify failed"));

  // --insecure skips verification.
  TlsClientContext::Options insecure;
  insecure.insecure = true;
  absl::StatusOr<std::unique_ptr<TlsClientContext>> insecure_tls =
      TlsClientContext::Create(insecure);
  ASSERT_TRUE(insecure_tls.ok());
  options.tls = insecure_tls->get();
  ExpectAllBodies(Fetch(options), 10, 25600, content->body_checksum());
}

TEST_P(FanoutModelTest, RefusedConnectionsAreCountedByErrno) {
  // A port with nothing listening: bind one, note it, close it.
  absl::StatusOr<Listener> listener = Listen({});
  ASSERT_TRUE(listener.ok());
  int port = listener->port;
  listener->fd.reset();
  FanoutOptions options;
  options.url = LocalUrl(false, port);
  options.model = GetParam();
  options.requests = 5;
  RepetitionResult rep = Fetch(options);
  EXPECT_EQ(rep.failed, 5);
  EXPECT_EQ(rep.errors["ECONNREFUSED"], 5);
  EXPECT_EQ(rep.outcomes[0].error.err, ECONNREFUSED);
}

// Answers every request with a 5-byte body and closes, without a "Connection: close": the way a
// server that drops idle connections looks to a client that kept one.
class AnswerThenClose : public ConnectionHandler {
 public:
  HandlerResult OnData(absl::string_view input, ByteBuffer& output) override {
    if (input.find("\r\n\r\n") == absl::string_view::npos) return {};
    output.Append("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
    return {.consumed = input.size(), .close = true};
  }
};

TEST_P(FanoutModelTest, ARequestOnAKeptConnectionTheServerClosedIsSentOnceMoreOnAFreshOne) {
  absl::StatusOr<std::unique_ptr<Server>> server =
      Server::Start(ServerOptions(), [] { return std::make_unique<AnswerThenClose>(); });
  ASSERT_TRUE(server.ok()) << server.status();
  FanoutOptions options;
  options.url = LocalUrl(false, (*server)->port());
  options.model = GetParam();
  options.requests = 10;
  options.keepalive = true;
  absl::StatusOr<std::unique_ptr<FanoutClient>> client = FanoutClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  RepetitionResult first = (*client)->RunRepetition();
  EXPECT_EQ(first.ok, 10);
  EXPECT_EQ(first.connections_opened, 10);
  // Every kept connection is dead by now: each request finds out, and goes again on a fresh one.
  RepetitionResult second = (*client)->RunRepetition();
  EXPECT_EQ(second.ok, 10);
  EXPECT_EQ(second.failed, 0);
  EXPECT_TRUE(second.errors.empty());
  EXPECT_EQ(second.connections_opened, 10);
  EXPECT_EQ(second.total.count(), 10);
}

TEST_P(FanoutModelTest, ASilentServerFailsEveryRequestWithinItsTimeoutWaitingForTheResponse) {
  SilentListener silent;  // connects, and never answers
  FanoutOptions options;
  options.url = LocalUrl(false, silent.port());
  options.model = GetParam();
  options.requests = 4;
  options.concurrency = 2;
  options.timeout_nanos = 300 * kNanosPerMilli;
  RepetitionResult rep = Fetch(options);
  EXPECT_EQ(rep.failed, 4);
  EXPECT_EQ(rep.errors["timeout"], 4);
  EXPECT_EQ(rep.outcomes[0].error.err, ETIMEDOUT);
  EXPECT_THAT(rep.outcomes[0].error.message,
              HasSubstr("no complete response within 300 ms (waiting for the response)"));
  EXPECT_EQ(rep.connections_opened, 4);
}

TEST(FanoutTimeoutsTest, TheGivenTimeoutWinsOverADefaultAndTwoGivenThatDisagreeAreAnError) {
  const FlagSetting connect{
      .name = "connect_timeout", .value = 90 * kNanosPerSecond, .given = true, .duration = true};
  const FlagSetting timeout{.name = "timeout", .value = 60 * kNanosPerSecond, .duration = true};
  FanoutOptions options;
  absl::StatusOr<std::string> note = AgreeFanoutTimeouts(connect, timeout, options);
  ASSERT_TRUE(note.ok()) << note.status();
  EXPECT_EQ(options.timeout_nanos, 90 * kNanosPerSecond);
  EXPECT_EQ(options.connect_timeout_nanos, 90 * kNanosPerSecond);
  EXPECT_THAT(*note,
              HasSubstr("--timeout raised from 1m to 1m30s to hold --connect_timeout=1m30s"));

  FlagSetting given_timeout = timeout;
  given_timeout.given = true;
  note = AgreeFanoutTimeouts(connect, given_timeout, options);
  ASSERT_FALSE(note.ok());
  EXPECT_EQ(note.status().message(),
            "--timeout=1m cannot hold --connect_timeout=1m30s (--timeout bounds a whole request, "
            "its connect included): give --timeout >= 1m30s, or --connect_timeout <= 1m");

  FlagSetting default_connect = connect;
  default_connect.given = false;
  default_connect.value = 10 * kNanosPerSecond;
  given_timeout.value = 2 * kNanosPerSecond;
  note = AgreeFanoutTimeouts(default_connect, given_timeout, options);
  ASSERT_TRUE(note.ok()) << note.status();
  EXPECT_EQ(options.connect_timeout_nanos, 2 * kNanosPerSecond);
  EXPECT_EQ(options.timeout_nanos, 2 * kNanosPerSecond);
}

TEST_P(FanoutModelTest, AServerThatDropsSynsTimesOutConnecting) {
  SynDroppingListener drop;
  FanoutOptions options;
  options.url = LocalUrl(false, drop.port());
  options.model = GetParam();
  options.requests = 3;
  options.timeout_nanos = 300 * kNanosPerMilli;  // shorter than the connect timeout: it fires
  RepetitionResult rep = Fetch(options);
  EXPECT_EQ(rep.errors["timeout"], 3);
  EXPECT_THAT(rep.outcomes[0].error.message, HasSubstr("(connecting)"));
  EXPECT_EQ(rep.connections_opened, 0);

  options.connect_timeout_nanos = 100 * kNanosPerMilli;
  options.timeout_nanos = 5 * kNanosPerSecond;
  rep = Fetch(options);
  EXPECT_EQ(rep.errors["connect_timeout"], 3);
  EXPECT_THAT(rep.outcomes[0].error.message, HasSubstr("no answer within 100 ms"));
}

TEST_P(FanoutModelTest, ASilentHttpsServerTimesOutInTheTlsHandshake) {
  SilentListener silent;
  absl::StatusOr<std::unique_ptr<TlsClientContext>> tls =
      TlsClientContext::Create({.insecure = true});
  ASSERT_TRUE(tls.ok()) << tls.status();
  FanoutOptions options;
  options.url = LocalUrl(true, silent.port());
  options.model = GetParam();
  options.requests = 2;
  options.tls = tls->get();
  options.timeout_nanos = 300 * kNanosPerMilli;
  RepetitionResult rep = Fetch(options);
  EXPECT_EQ(rep.errors["timeout"], 2);
  EXPECT_THAT(rep.outcomes[0].error.message, HasSubstr("(in the TLS handshake)"));
}

INSTANTIATE_TEST_SUITE_P(Models, FanoutModelTest, testing::ValuesIn(kClientModels),
                         [](const testing::TestParamInfo<ClientModel>& info) {
                           return std::string(ServerModelName(info.param));
                         });

// The built program against peers that never answer: it exits 1 (the test's own time limit bounds
// how long it may take, far below the kernel's connect retries), and its report names the cause and
// where the requests were.
class FanoutMainTest : public testing::TestWithParam<ClientModel> {
 protected:
  // Runs the program against `port`, which never answers: it must give up by itself, exit 1, and
  // say where its requests were when it did.
  void ExpectGivesUp(int port, const std::string& phase) {
    ChildProcess fanout({"httpfanout/fanout", absl::StrCat("--url=http://127.0.0.1:", port, "/"),
                         "--requests=3", "--repetitions=1", "--timeout=300ms",
                         absl::StrCat("--model=", ServerModelName(GetParam()))});
    const std::string output = fanout.ReadRest();
    EXPECT_EQ(fanout.Wait(), 1) << output;
    EXPECT_THAT(output, HasSubstr("3 requests failed"));
    EXPECT_THAT(output, HasSubstr(absl::StrCat("timeout: no complete response within 300 ms (",
                                               phase, ")")));
  }
};

TEST_P(FanoutMainTest, ExitsWithinItsTimeoutWhenTheServerNeverAnswers) {
  SilentListener silent;
  ExpectGivesUp(silent.port(), "waiting for the response");
}

TEST_P(FanoutMainTest, ExitsWithinItsTimeoutWhenTheServerDropsItsSyns) {
  SynDroppingListener drop;
  ExpectGivesUp(drop.port(), "connecting");
}

INSTANTIATE_TEST_SUITE_P(Models, FanoutMainTest, testing::ValuesIn(kClientModels),
                         [](const testing::TestParamInfo<ClientModel>& info) {
                           return std::string(ServerModelName(info.param));
                         });

std::string MakeTempDir() {
  std::string dir =
      absl::StrCat(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", "/fanout-XXXXXX");
  if (mkdtemp(dir.data()) == nullptr) return "";
  chmod(dir.c_str(), 0755);
  return dir;
}

TEST(FanoutInteropTest, PythonHttpServer) {
  std::string dir = MakeTempDir();
  ASSERT_FALSE(dir.empty());
  const std::string page = MakeOriginBody(25600);
  std::ofstream(dir + "/page.html", std::ios::binary) << page;
  ChildProcess python({"/usr/bin/python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
                       "--directory", dir});
  ASSERT_TRUE(python.started());
  std::string out = python.ReadUntil(") ...", 20000);
  // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
  size_t at = out.find(" port ");
  ASSERT_NE(at, std::string::npos) << out;
  int port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(out.substr(at + 6, out.find(' ', at + 6) - at - 6), &port)) << out;
  for (ClientModel model : kClientModels) {
    FanoutOptions options;
    options.url = LocalUrl(false, port, "/page.html");
    options.model = model;
    options.requests = 40;
    options.concurrency = 10;
    options.keepalive =
        true;  // HTTP/1.0 without keep-alive: the client must not reuse, and must still work
    options.verify_checksum = true;
    ExpectAllBodies(Fetch(options), 40, page.size(), Fnv1a64(page));
  }
}

TEST(FanoutInteropTest, Nginx) {
  const char* nginx = "/usr/sbin/nginx";
  if (access(nginx, X_OK) != 0)
    GTEST_SKIP() << "nginx is not installed (/usr/sbin/nginx); skipping";
  std::string dir = MakeTempDir();
  ASSERT_FALSE(dir.empty());
  mkdir((dir + "/www").c_str(), 0755);
  const std::string page = MakeOriginBody(25600);
  std::ofstream(dir + "/www/index.html", std::ios::binary) << page;
  absl::StatusOr<Listener> probe =
      Listen({});  // a free port: nginx cannot report one it picked itself
  ASSERT_TRUE(probe.ok());
  int port = probe->port;
  probe->fd.reset();
  std::ofstream(dir + "/nginx.conf") << absl::StrCat(
      "user root;\nworker_processes 1;\npid ", dir, "/nginx.pid;\nerror_log ", dir,
      "/error.log warn;\nevents { worker_connections 1024; }\nhttp {\n  access_log off;\n",
      "  client_body_temp_path ", dir, "/cb;\n  proxy_temp_path ", dir,
      "/px;\n  fastcgi_temp_path ", dir, "/fc;\n  uwsgi_temp_path ", dir, "/uw;\n  scgi_temp_path ",
      dir, "/sc;\n", "  server {\n    listen 127.0.0.1:", port, " backlog=1024;\n    root ", dir,
      "/www;\n    location / { chunked_transfer_encoding on; }\n  }\n}\n");
  const std::vector<std::string> nginx_args = {nginx,     "-e", dir + "/error.log", "-p",
                                               dir + "/", "-c", dir + "/nginx.conf"};
  // nginx opens its listening socket before it puts itself in the background, so once this command
  // has returned the port accepts connections: no polling needed.
  ChildProcess starter(nginx_args);
  ASSERT_TRUE(starter.started());
  std::string start_output = starter.ReadUntil("\n", 5000);
  ASSERT_EQ(starter.Wait(), 0) << "nginx did not start: " << start_output;
  struct Stop {
    std::vector<std::string> args;
    ~Stop() {
      args.insert(args.end(), {"-s", "quit"});
      ChildProcess(args).Wait();
    }
  } stop{nginx_args};
  for (ClientModel model : kClientModels) {
    for (bool keepalive : {false, true}) {
      FanoutOptions options;
      options.url = LocalUrl(false, port, "/index.html");
      options.model = model;
      options.requests = 100;
      options.keepalive = keepalive;
      options.verify_checksum = true;
      ExpectAllBodies(Fetch(options), 100, page.size(), Fnv1a64(page));
    }
  }
}

}  // namespace
}  // namespace netbench
