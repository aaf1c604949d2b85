// TLS against a real etcd: a CA, a server certificate for 127.0.0.1 and a client
// certificate made at test time with openssl (TestCertificates), one etcd member serving
// clients over TLS with client-certificate authentication (LocalClusterTls), and what
// clients with the right, missing and wrong credentials get. Every test's cluster and
// directory are removed when the test ends, pass or fail (destructors).
#include <grpcpp/create_channel.h>
#include <signal.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <filesystem>

#include "etcdpb/rpc.grpc.pb.h"
#include "lockstep/real_etcd/channel_credentials.h"
#include "lockstep/real_etcd/etcd_kv_client.h"
#include "lockstep/real_etcd/event_loop.h"
#include "lockstep/real_etcd/local_cluster.h"
#include "lockstep/real_etcd/test_certificates.h"
#include "lockstep/real_etcd/test_cluster.h"

namespace lockstep::real {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Certificates, then a one-member cluster inside their directory: the cluster is destroyed
// first (members are declared in that order), then the directory with everything in it.
struct TlsCluster {
  std::unique_ptr<TestCertificates> certs;
  std::unique_ptr<LocalCluster> cluster;

  std::string endpoint() const { return cluster->client_endpoint(0); }
};

std::unique_ptr<TestCertificates> make_certificates() {
  auto certs = TestCertificates::make();
  if (!certs) FAIL(certs.error().to_string());
  return std::move(certs.value());
}

TlsCluster start_tls_cluster() {
  TlsCluster c;
  c.certs = make_certificates();
  LocalClusterOptions options;
  options.members = 1;
  options.kill_on_stop = true;
  options.work_dir = c.certs->dir();
  options.client_tls.cert_file = c.certs->server_cert();
  options.client_tls.key_file = c.certs->server_key();
  options.client_tls.trusted_ca_file = c.certs->ca_cert();
  options.client_tls.client_cert_auth = true;
  options.client_tls.probe.ca_file = c.certs->ca_cert();
  options.client_tls.probe.cert_file = c.certs->client_cert();
  options.client_tls.probe.key_file = c.certs->client_key();
  auto cluster = LocalCluster::start(options);
  if (!cluster) FAIL(cluster.error().to_string());
  c.cluster = std::move(cluster.value());
  return c;
}

EtcdTlsOptions full_tls(const TestCertificates& certs) {
  EtcdTlsOptions tls;
  tls.enabled = true;
  tls.ca_file = certs.ca_cert();
  tls.cert_file = certs.client_cert();
  tls.key_file = certs.client_key();
  return tls;
}

std::unique_ptr<EtcdKvClient> client(EventLoop& loop, const std::string& endpoint,
                                     EtcdTlsOptions tls, Duration deadline = seconds(3)) {
  EtcdClientOptions options;
  options.endpoints = {endpoint};
  options.call_deadline = deadline;
  options.tls = std::move(tls);
  auto c = EtcdKvClient::create(loop, options);
  if (!c) FAIL(c.error().to_string());
  return std::move(c.value());
}

PutRequest put(std::string key, std::string value) {
  PutRequest r;
  r.key = std::move(key);
  r.value = std::move(value);
  return r;
}

RangeRequest get(std::string key) {
  RangeRequest r;
  r.key = std::move(key);
  return r;
}

bool process_gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

TEST_CASE("tls: a client with the CA and a client certificate puts and reads back - nothing is left after") {
  pid_t pid = 0;
  std::string dir;
  {
    TlsCluster c = start_tls_cluster();
    pid = c.cluster->pid(0);
    dir = c.certs->dir();
    REQUIRE(c.endpoint().starts_with("https://127.0.0.1:"));
    EventLoop loop;
    auto kv = client(loop, c.endpoint(), full_tls(*c.certs));
    Result<PutResponse> p = loop.run(kv->put(put("tls-key", "over tls")));
    INFO((p.ok() ? "" : p.error().to_string()));
    REQUIRE(p.ok());
    Result<RangeResponse> r = loop.run(kv->range(get("tls-key")));
    REQUIRE(r.ok());
    REQUIRE(r->kvs.size() == 1);
    CHECK(r->kvs[0].value == "over tls");
    CHECK(r->kvs[0].mod_revision == p->header.revision);
  }
  CHECK(process_gone(pid));
  CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("tls: a client without a client certificate is refused with a clear error") {
  TlsCluster c = start_tls_cluster();
  EventLoop loop;
  EtcdTlsOptions tls;
  tls.enabled = true;
  tls.ca_file = c.certs->ca_cert();
  auto kv = client(loop, c.endpoint(), tls, seconds(2));
  const auto start = SteadyClock::now();
  Result<PutResponse> p = loop.run(kv->put(put("k", "v")));
  const auto took = SteadyClock::now() - start;
  REQUIRE_FALSE(p.ok());
  INFO(p.error().to_string());
  // The member ends the handshake; gRPC says only "Endpoint read failed", the hint says why.
  CHECK(p.error().code == ErrorCode::unavailable);
  CHECK(p.error().outcome == Outcome::definite);
  CHECK(p.error().message.find("it may demand a client certificate (--cert, --key)") != std::string::npos);
  CHECK(took < std::chrono::seconds(2));
}

TEST_CASE("tls: a client that trusts another CA fails within its deadline with a clear error") {
  TlsCluster c = start_tls_cluster();
  EventLoop loop;
  EtcdTlsOptions tls = full_tls(*c.certs);
  tls.ca_file = c.certs->other_ca_cert();
  auto kv = client(loop, c.endpoint(), tls, seconds(2));
  const auto start = SteadyClock::now();
  Result<PutResponse> p = loop.run(kv->put(put("k", "v")));
  const auto took = SteadyClock::now() - start;
  REQUIRE_FALSE(p.ok());
  INFO(p.error().to_string());
  CHECK(p.error().code == ErrorCode::unavailable);
  CHECK(p.error().outcome == Outcome::definite);
  CHECK(p.error().message.find("certificate verify failed") != std::string::npos);
  CHECK(p.error().message.find("not signed by the trusted CA (--cacert)") != std::string::npos);
  CHECK(took < std::chrono::seconds(2));
}

TEST_CASE("tls: a plain-text client gets no answer from a TLS member - a clear error within its deadline") {
  TlsCluster c = start_tls_cluster();
  EventLoop loop;
  const std::string plain = c.endpoint().substr(std::string("https://").size());
  auto kv = client(loop, plain, EtcdTlsOptions{}, seconds(2));
  const auto start = SteadyClock::now();
  Result<PutResponse> p = loop.run(kv->put(put("k", "v")));
  const auto took = SteadyClock::now() - start;
  REQUIRE_FALSE(p.ok());
  INFO(p.error().to_string());
  CHECK(p.error().code == ErrorCode::unavailable);
  CHECK(p.error().message.find("if it serves TLS, write the endpoint https://") != std::string::npos);
  CHECK(took < std::chrono::seconds(2));
}

TEST_CASE("tls: a TLS client of a plain-text member fails at once with a clear error") {
  EventLoop loop;
  const std::string address = testing::shared_cluster().client_endpoint(0);
  REQUIRE_FALSE(address.starts_with("https://"));
  std::unique_ptr<TestCertificates> certs = make_certificates();
  auto kv = client(loop, "https://" + address, full_tls(*certs), seconds(2));
  const auto start = SteadyClock::now();
  Result<PutResponse> p = loop.run(kv->put(put("k", "v")));
  const auto took = SteadyClock::now() - start;
  REQUIRE_FALSE(p.ok());
  INFO(p.error().to_string());
  CHECK(p.error().code == ErrorCode::unavailable);
  CHECK(p.error().message.find("serve https") != std::string::npos);
  CHECK(took < std::chrono::seconds(2));
}

// Turns on authentication (user root with the root role) through a TLS channel.
void enable_auth(const TlsCluster& c, const std::string& password) {
  auto creds = make_channel_credentials(full_tls(*c.certs), true);
  REQUIRE(creds.ok());
  const std::string address = c.endpoint().substr(std::string("https://").size());
  auto auth = etcdserverpb::Auth::NewStub(grpc::CreateChannel(address, creds.value()));
  auto ok = [](const grpc::Status& status) { REQUIRE(status.error_message() == ""); };
  {
    grpc::ClientContext ctx;
    etcdserverpb::AuthUserAddRequest req;
    req.set_name("root");
    req.set_password(password);
    etcdserverpb::AuthUserAddResponse resp;
    ok(auth->UserAdd(&ctx, req, &resp));
  }
  {
    grpc::ClientContext ctx;
    etcdserverpb::AuthRoleAddRequest req;
    req.set_name("root");
    etcdserverpb::AuthRoleAddResponse resp;
    ok(auth->RoleAdd(&ctx, req, &resp));
  }
  {
    grpc::ClientContext ctx;
    etcdserverpb::AuthUserGrantRoleRequest req;
    req.set_user("root");
    req.set_role("root");
    etcdserverpb::AuthUserGrantRoleResponse resp;
    ok(auth->UserGrantRole(&ctx, req, &resp));
  }
  {
    grpc::ClientContext ctx;
    etcdserverpb::AuthEnableResponse resp;
    ok(auth->AuthEnable(&ctx, etcdserverpb::AuthEnableRequest(), &resp));
  }
}

// What every client of `lockstep run --backend etcd --cacert --cert --key --user` gets.
TEST_CASE("tls: a client with TLS and a login is served - TLS without the login is refused") {
  TlsCluster c = start_tls_cluster();
  enable_auth(c, "s3cret");
  EventLoop loop;
  EtcdClientOptions options;
  options.endpoints = {c.endpoint()};
  options.call_deadline = seconds(2);
  options.set_security(EtcdClientSecurity{full_tls(*c.certs), "root", "s3cret"});
  auto kv = EtcdKvClient::create(loop, options);
  REQUIRE(kv.ok());
  Result<PutResponse> p = loop.run(kv.value()->put(put("secured", "v")));
  INFO((p.ok() ? "" : p.error().to_string()));
  CHECK(p.ok());
  // TLS, but no login.
  EtcdClientOptions anonymous_options = options;
  anonymous_options.set_security(EtcdClientSecurity{full_tls(*c.certs), "", ""});
  auto anonymous = EtcdKvClient::create(loop, anonymous_options);
  REQUIRE(anonymous.ok());
  Result<RangeResponse> refused = loop.run(anonymous.value()->range(get("secured")));
  REQUIRE_FALSE(refused.ok());
  INFO(refused.error().to_string());
  CHECK(refused.error().code == ErrorCode::invalid_argument);  // no user: permission denied
}

TEST_CASE("tls: a missing CA file is a clear error when the client is made") {
  EventLoop loop;
  EtcdClientOptions options;
  options.endpoints = {"https://127.0.0.1:1"};
  options.tls.enabled = true;
  options.tls.ca_file = "/nonexistent/ca.crt";
  auto kv = EtcdKvClient::create(loop, options);
  REQUIRE_FALSE(kv.ok());
  CHECK(kv.error().code == ErrorCode::invalid_argument);
  CHECK(kv.error().message ==
        "cannot read TLS CA file '/nonexistent/ca.crt': No such file or directory");
}

}  // namespace
}  // namespace lockstep::real
