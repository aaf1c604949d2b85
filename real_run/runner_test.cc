// The real runner end to end on real etcd clusters (started by the runner itself): lock
// algorithms under member kill/pause and client pause are judged by the same checks as in the
// simulator; the runner refuses what it cannot do, and leaves nothing behind.
//
// Catch2's assertion macros may evaluate their argument more than once under g++ 12:
// never co_await inside REQUIRE/CHECK.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdio>

#include <set>
#include <filesystem>
#include <fstream>
#include <thread>

#include "lockstep/real_run/faults.h"
#include "lockstep/real_run/interrupt.h"
#include "lockstep/real_run/run_request.h"
#include "lockstep/real_run/runner.h"
#include "lockstep/real_etcd/etcd_kv_client.h"
#include "lockstep/real_etcd/local_cluster.h"
#include "lockstep/real_etcd/prefixed_kv_client.h"
#include "lockstep/real_etcd/test_certificates.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

// A scenario's client-1 first held the lock, then client-0; client-2 never did.
TEST_CASE("faults follow roles: the k-th first holder of the scenario is the k-th real one") {
  const std::vector<std::string> roles = {"client-1", "client-0", "client-2"};
  const std::vector<std::string> all = {"client-0", "client-1", "client-2"};
  using M = std::map<std::string, std::string>;
  // Nobody holds yet: names stay.
  CHECK(client_role_mapping(roles, {}, all) == M{{"client-0", "client-0"}, {"client-1", "client-1"},
                                                 {"client-2", "client-2"}});
  // client-2 won the first acquire on the real cluster: it plays client-1's role; client-0
  // keeps its name; client-2, whose name is taken, gets the one left, client-1.
  CHECK(client_role_mapping(roles, {"client-2"}, all) ==
        M{{"client-1", "client-2"}, {"client-0", "client-0"}, {"client-2", "client-1"}});
  // Two first holders known: client-0 then client-2.
  CHECK(client_role_mapping(roles, {"client-0", "client-2"}, all) ==
        M{{"client-1", "client-0"}, {"client-0", "client-2"}, {"client-2", "client-1"}});
  // The same order as the scenario: the identity.
  CHECK(client_role_mapping(roles, {"client-1", "client-0"}, all) ==
        M{{"client-0", "client-0"}, {"client-1", "client-1"}, {"client-2", "client-2"}});
  // Always one to one.
  for (const auto& holders : std::vector<std::vector<std::string>>{
           {}, {"client-0"}, {"client-1"}, {"client-2"}, {"client-2", "client-0", "client-1"}}) {
    std::set<std::string> real;
    for (const auto& [scenario_client, real_client] : client_role_mapping(roles, holders, all))
      real.insert(real_client);
    CHECK(real.size() == all.size());
  }
}

sim::FaultSpec process_fault(const std::string& kind, const std::string& target, int start_ms,
                             int duration_ms) {
  sim::FaultSpec f;
  f.kind = kind;
  f.targets = {target};
  f.start = milliseconds(start_ms);
  f.duration = milliseconds(duration_ms);
  return f;
}

RealRunConfig base_config(const std::string& algorithm, int members, int clients) {
  RealRunConfig c;
  c.run.algorithm = algorithm;
  c.run.seed = 7;
  c.run.etcd.members = members;
  c.run.workload.clients = clients;
  c.run.workload.duration = seconds(6);
  c.run.workload.critical_section = milliseconds(200);
  c.run.workload.think_time = milliseconds(50);
  c.run.workload.drain_timeout = seconds(15);
  c.run.liveness_bound = seconds(4);
  const AlgorithmInfo* info = find_algorithm(algorithm);
  REQUIRE(info != nullptr);
  c.run.algorithm_options["lease_ttl_seconds"] = 2;
  REQUIRE_FALSE(resolve_options(*info, c.run.algorithm_options).has_value());
  c.backend.call_deadline = seconds(1);
  return c;
}

const CheckResult& check_named(const RunResult& r, const std::string& name) {
  for (const auto& c : r.checks)
    if (c.name == name) return c;
  FAIL("no check named " << name);
  throw std::logic_error("unreachable");
}

std::int64_t count_events(const History& h, EventKind kind, const std::string& op,
                          const std::string& process = "") {
  std::int64_t n = 0;
  for (const auto& e : h.events)
    if (e.kind == kind && e.op == op && (process.empty() || e.process == process)) ++n;
  return n;
}

// The etcd processes that are children of this test process (none must outlive a run).
int etcd_children() {
  int n = 0;
  DIR* d = ::opendir("/proc");
  while (dirent* e = d ? ::readdir(d) : nullptr) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    const std::string comm = line.substr(open + 1, close - open - 1);
    int ppid = 0;
    char state = 0;
    std::istringstream rest(line.substr(close + 2));
    rest >> state >> ppid;
    if (comm == "etcd" && ppid == ::getpid()) ++n;
  }
  if (d) ::closedir(d);
  return n;
}

// A fresh directory for a run's cluster; the test checks it is empty afterwards.
std::string fresh_work_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() /
                       ("lockstep-real-runner-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

bool dir_empty_then_remove(const std::string& dir) {
  const bool empty = fs::is_empty(dir);
  fs::remove_all(dir);
  return empty;
}

TEST_CASE("real run: etcd-mutex keeps mutual exclusion under member kill and pause and a short client pause") {
  RealRunConfig c = base_config("etcd-mutex", 3, 3);
  c.run.algorithm_options["lease_ttl_seconds"] = 5;  // the client pause stays below it
  c.backend.work_dir = fresh_work_dir("mutex");
  c.run.faults = {process_fault("pause", "member-0", 1000, 1500),
                  process_fault("pause", "client-1", 1500, 1000),
                  process_fault("crash", "member-1", 3000, 2000)};
  RealRunOutcome out = run_real(c, nullptr);
  INFO(out.error);
  REQUIRE(out.error.empty());
  const History& h = out.result.history;
  CHECK(check_named(out.result, "mutex").status == CheckStatus::ok);
  CHECK(check_named(out.result, "resource").status == CheckStatus::ok);
  CHECK(check_named(out.result, "liveness").status == CheckStatus::ok);
  // The faults happened and were recorded as the simulator records them, none skipped.
  CHECK(count_events(h, EventKind::fault, "pause") == 4);
  CHECK(count_events(h, EventKind::fault, "crash") == 2);
  for (const auto& e : h.events) {
    if (e.kind != EventKind::fault) continue;
    CHECK_FALSE(e.args.contains("skipped"));
    CHECK(e.args.contains("phase"));
  }
  // Progress without a figure that depends on the machine's speed (under ASan on a loaded
  // machine a few seconds hold fewer cycles): every client held the lock, and the truth
  // watcher saw a key created for every holding.
  std::set<std::string> holders;
  for (const auto& e : h.events)
    if (e.kind == EventKind::ok && e.op == "acquire") holders.insert(e.process);
  CHECK(holders.size() == 3);
  CHECK(count_events(h, EventKind::truth, "key-put") >= count_events(h, EventKind::ok, "acquire"));
  CHECK(h.header.meta["backend"] == "etcd");
  CHECK(etcd_children() == 0);
  CHECK(dir_empty_then_remove(c.backend.work_dir));
}

TEST_CASE("real run: a txn-try-lock holder paused past its TTL is caught by the mutex check") {
  // client-1 is paused from the start for a moment, so client-0 acquires first and holds for
  // a long critical section; then client-0 pauses past its lease TTL: etcd deletes its key
  // and client-1 acquires while client-0 still believes it holds: the simulator's paused
  // holder scenario, on a real cluster. (Pausing both at once does not work: a waiter
  // paused past the TTL loses its own lease, and txn-try-lock then fails every later attempt
  // with "lease not found".) The member faults come after: a leader change during the pause
  // would renew the holder's lease (etcd extends every lease on promotion).
  RealRunConfig c = base_config("txn-try-lock", 3, 2);
  c.backend.work_dir = fresh_work_dir("txn");
  c.run.workload.critical_section = milliseconds(6500);
  c.run.workload.acquire_timeout = seconds(15);
  c.run.workload.max_cycles_per_client = 1;  // one holding each: the overlap is all we need
  c.run.workload.duration = seconds(4);
  c.run.checks = {"mutex", "resource"};
  c.run.liveness_bound = seconds(1);
  c.run.faults = {process_fault("pause", "client-1", 0, 300),
                  process_fault("pause", "client-0", 1000, 4000),
                  process_fault("pause", "member-2", 5500, 1000),
                  process_fault("crash", "member-0", 6000, 1500)};
  RealRunOutcome out = run_real(c, nullptr);
  INFO(out.error);
  REQUIRE(out.error.empty());
  const CheckResult& mutex = check_named(out.result, "mutex");
  CHECK(mutex.status == CheckStatus::violated);
  // The paused client is the one that still believed it held the lock.
  CHECK(mutex.witness["earlier"]["process"] == "client-0");
  CHECK(etcd_children() == 0);
  CHECK(dir_empty_then_remove(c.backend.work_dir));
}

TEST_CASE("real run: etcd-mutex-fenced keeps the fenced resource correct when holders pause past the TTL") {
  RealRunConfig c = base_config("etcd-mutex-fenced", 3, 3);
  c.backend.work_dir = fresh_work_dir("fenced");
  c.run.workload.critical_section = milliseconds(600);
  // The faults end at 6 s; 4 s of load after them leave room for the three writes asked for
  // below even on a loaded machine (with the default 6 s, a Debug build beside other tests
  // sometimes applied only two).
  c.run.workload.duration = seconds(10);
  c.run.checks = {"mutex", "resource"};
  c.run.liveness_bound = seconds(1);
  c.run.faults = {process_fault("pause", "member-0", 500, 1500),
                  process_fault("pause", "client-0", 1000, 3500),
                  process_fault("pause", "client-1", 2500, 3500),
                  process_fault("crash", "member-2", 3500, 1500)};
  RealRunOutcome out = run_real(c, nullptr);
  INFO(out.error);
  REQUIRE(out.error.empty());
  const CheckResult& resource = check_named(out.result, "resource");
  INFO(resource.summary);
  CHECK(resource.status == CheckStatus::ok);
  CHECK(resource.figures["applied_writes"].get<std::int64_t>() >= 3);
  CHECK(count_events(out.result.history, EventKind::truth, "resource-write") >= 3);
  CHECK(etcd_children() == 0);
  CHECK(dir_empty_then_remove(c.backend.work_dir));
}

TEST_CASE("real run: a partition between a client and every member stalls only that client") {
  RealRunConfig c = base_config("etcd-mutex", 3, 2);
  c.backend.work_dir = fresh_work_dir("partition");
  c.run.workload.duration = seconds(5);
  c.run.checks = {"mutex", "resource"};
  c.run.liveness_bound = seconds(1);
  sim::FaultSpec cut;
  cut.kind = "partition";
  cut.from = {"client-0"};
  cut.to = {"member-0", "member-1", "member-2"};
  cut.start = milliseconds(500);
  cut.duration = milliseconds(3000);
  c.run.faults = {cut};
  RealRunOutcome out = run_real(c, nullptr);
  INFO(out.error);
  REQUIRE(out.error.empty());
  const History& h = out.result.history;
  CHECK(check_named(out.result, "mutex").status == CheckStatus::ok);
  // While cut off, client-0 completes nothing that needs the cluster; client-1 keeps going.
  std::int64_t cut_start = 0, cut_end = 0;
  for (const auto& e : h.events)
    if (e.kind == EventKind::fault && e.op == "partition")
      (e.args["phase"] == "start" ? cut_start : cut_end) = e.true_ns;
  REQUIRE(cut_end > cut_start);
  std::int64_t c0_ok = 0, c1_ok = 0;
  for (const auto& e : h.events) {
    // 1.5 s in: the client's calls in flight at the cut (1 s deadline) have all ended.
    if (e.kind != EventKind::ok || e.op != "acquire" || e.true_ns < cut_start + 1'500'000'000 ||
        e.true_ns > cut_end)
      continue;
    (e.process == "client-0" ? c0_ok : c1_ok) += 1;
  }
  CHECK(c0_ok == 0);
  CHECK(c1_ok >= 2);
  CHECK(dir_empty_then_remove(c.backend.work_dir));
}

TEST_CASE("real run: an existing cluster reports its etcd version - an endpoint that does not answer is named") {
  real::LocalClusterOptions lo;
  lo.members = 1;
  lo.kill_on_stop = true;
  auto cluster = real::LocalCluster::start(lo);
  if (!cluster) FAIL(cluster.error().to_string());
  RealBackendOptions backend;
  backend.endpoints = cluster.value()->client_endpoints();
  Result<std::string> version = existing_cluster_version(backend);
  REQUIRE(version.ok());
  // The same as the binary says (`etcd --version`: "etcd Version: 3.4.23").
  std::string said;
  if (FILE* pipe = ::popen("etcd --version 2>/dev/null", "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, pipe) != nullptr) said += buf;
    ::pclose(pipe);
  }
  CHECK(said.find("etcd Version: " + version.value() + "\n") != std::string::npos);
  backend.endpoints = {"127.0.0.1:1"};
  backend.call_deadline = milliseconds(500);
  Result<std::string> none = existing_cluster_version(backend);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message.find("127.0.0.1:1") != std::string::npos);
}

TEST_CASE("real run: an existing cluster is used under a prefix of the run's own - which is removed afterwards") {
  real::LocalClusterOptions lo;
  lo.members = 1;
  lo.kill_on_stop = true;
  auto cluster = real::LocalCluster::start(lo);
  if (!cluster) FAIL(cluster.error().to_string());
  RealRunConfig c = base_config("etcd-mutex", 1, 2);
  c.run.workload.duration = seconds(2);
  c.backend.endpoints = cluster.value()->client_endpoints();
  c.run.faults = {process_fault("pause", "client-0", 300, 500),
                  process_fault("lease-drop", "client-1", 200, 800)};
  c.run.checks = {"mutex", "resource"};
  c.run.liveness_bound = seconds(1);
  RealRunOutcome out = run_real(c, nullptr);
  INFO(out.error);
  REQUIRE(out.error.empty());
  CHECK(out.result.history.header.meta["cluster"] == "external");
  CHECK(check_named(out.result, "mutex").status == CheckStatus::ok);
  CHECK(out.key_prefix.rfind("lockstep-run/", 0) == 0);
  CHECK(count_events(out.result.history, EventKind::ok, "acquire") >= 2);
  // Nothing of the run is left in the user's cluster.
  real::EventLoop loop;
  real::EtcdClientOptions options;
  options.endpoints = c.backend.endpoints;
  auto kv = real::EtcdKvClient::create(loop, options);
  REQUIRE(kv.ok());
  RangeRequest all;
  all.key = out.key_prefix;
  all.range_end = prefix_range_end(out.key_prefix);
  all.count_only = true;
  auto read = [](KvClient* k, RangeRequest r) -> Task<Result<RangeResponse>> {
    co_return co_await k->range(r);
  };
  Result<RangeResponse> left = loop.run(read(kv.value().get(), all));
  REQUIRE(left.ok());
  CHECK(left.value().count == 0);
  kv.value().reset();
}

TEST_CASE("real run: an interrupt stops the run and removes the cluster") {
  RealRunConfig c = base_config("etcd-mutex", 1, 2);
  c.backend.work_dir = fresh_work_dir("interrupt");
  c.run.workload.duration = seconds(60);
  std::atomic<bool> interrupt{false};
  std::thread ctrl_c([&interrupt] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    interrupt = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  RealRunOutcome out = run_real(c, &interrupt);
  ctrl_c.join();
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
  CHECK(out.interrupted);
  CHECK(out.error.empty());
  CHECK(count_events(out.result.history, EventKind::invoke, "acquire") >= 1);
  CHECK(etcd_children() == 0);
  CHECK(dir_empty_then_remove(c.backend.work_dir));
}

TEST_CASE("real run: SIGINT under an InterruptGuard only sets the flag - and the guard restores the handler") {
  struct sigaction before {};
  sigaction(SIGINT, nullptr, &before);
  {
    InterruptGuard guard;
    CHECK_FALSE(InterruptGuard::requested());
    ::raise(SIGINT);
    CHECK(InterruptGuard::requested());
  }
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  CHECK(after.sa_handler == before.sa_handler);
}

TEST_CASE("real run: what the real backend cannot do is refused with a clear message") {
  RunRequest request;
  request.algorithm = "etcd-mutex";
  request.members = 3;
  request.duration = seconds(5);
  RealBackendOptions local;
  RealRunConfig out;

  request.faults = "pause,reorder,slow-revoke";
  std::string err = expand_real_run_request(request, local, out);
  CHECK(err.find("does not support the fault classes reorder, slow-revoke") != std::string::npos);
  CHECK(err.find("supported: partition, delay, loss, pause, crash, clock, leader-change, compaction, lease-drop") !=
        std::string::npos);

  RealBackendOptions external;
  external.endpoints = {"127.0.0.1:1"};
  request.faults = "partition";
  err = expand_real_run_request(request, external, out);
  CHECK(err.find("with --endpoints") != std::string::npos);
  CHECK(err.find("partition") != std::string::npos);

  // Random schedules for real runs name only what the backend can hit.
  request.faults = "all";
  err = expand_real_run_request(request, local, out);
  CHECK(err.find("duplicate") != std::string::npos);
  request.faults = "pause,clock,crash,partition";
  request.seed = 11;
  request.clients = 2;
  REQUIRE(expand_real_run_request(request, local, out).empty());
  REQUIRE_FALSE(out.run.faults.empty());
  for (const auto& f : out.run.faults) {
    for (const auto* names : {&f.targets, &f.from, &f.to})
      for (const auto& n : *names) CHECK(n != "resource");
    if (f.kind == "clock")
      for (const auto& t : f.targets) CHECK(t.rfind("client-", 0) == 0);
  }
  CHECK(out.run.liveness_bound == seconds(70));  // the 60 s TTL + 10 s

  request.members = 5;
  request.faults = "none";
  CHECK(expand_real_run_request(request, local, out).find("1 or 3 members") != std::string::npos);

  RealRunConfig c = base_config("etcd-mutex", 1, 1);
  c.backend.endpoints = {"10.20.30.40:2379"};
  RealRunOutcome remote = run_real(c, nullptr);
  CHECK(remote.error.find("--allow-remote") != std::string::npos);

  c.backend.endpoints.clear();
  c.backend.etcd_binary = "/nonexistent/etcd";
  RealRunOutcome missing = run_real(c, nullptr);
  CHECK(missing.error.find("apt-get install etcd-server") != std::string::npos);
}

// --cacert/--cert/--key/--user (expand_real_security): every refusal names its option.
TEST_CASE("real run: TLS and login options are checked - each refusal names the option") {
  const std::string dir = fresh_work_dir("security-args");
  const std::string pem = dir + "/ca.crt";
  const std::string not_pem = dir + "/notes.txt";
  std::ofstream(pem) << "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  std::ofstream(not_pem) << "hello\n";
  const std::vector<std::string> https = {"https://127.0.0.1:23790"};
  real::EtcdClientSecurity out;
  auto refusal = [&](RealSecurityArgs a, std::vector<std::string> endpoints = {"https://127.0.0.1:23790"},
                     std::optional<std::string> env = std::nullopt) {
    return expand_real_security(a, endpoints, env, out);
  };

  // Nothing given: no TLS, no user, whatever the endpoints.
  REQUIRE(refusal({}, {}).empty());
  CHECK(out.empty());

  CHECK(refusal({pem, "", "", ""}, {}) ==
        "--cacert needs --endpoints: the local cluster lockstep starts serves plain http without users");
  CHECK(refusal({"", "", "", "root:pw"}, {}).rfind("--user needs --endpoints", 0) == 0);
  CHECK(refusal({"", pem, "", ""}) == "--cert needs --key (the client certificate's private key)");
  CHECK(refusal({"", "", pem, ""}) == "--key needs --cert (the client certificate it belongs to)");
  CHECK(refusal({dir + "/missing.crt", "", "", ""}) == "--cacert '" + dir + "/missing.crt': no such file");
  CHECK(refusal({pem, pem, dir + "/missing.key", ""}) == "--key '" + dir + "/missing.key': no such file");
  CHECK(refusal({dir, "", "", ""}) == "--cacert '" + dir + "': is a directory, expected a PEM file");
  CHECK(refusal({"", not_pem, pem, ""}) == "--cert '" + not_pem + "': not a PEM file (no -----BEGIN line)");
  CHECK(refusal({pem, "", "", ""}, {"http://127.0.0.1:23790"}) ==
        "--cacert asks for TLS but endpoint 'http://127.0.0.1:23790' is plain http: write it "
        "https://127.0.0.1:23790");
  CHECK(refusal({"", "", "", ":pw"}) == "--user: the user name is empty (expected NAME or NAME:PASSWORD)");
  CHECK(refusal({"", "", "", "root"}) ==
        "--user root: no password; give --user root:PASSWORD or set LOCKSTEP_ETCD_PASSWORD");

  // Accepted: TLS on with the files; the password after the first ':', else from the variable.
  REQUIRE(refusal({pem, pem, pem, "root:p:w"}, {"127.0.0.1:23790"}).empty());
  CHECK(out.tls.enabled);
  CHECK(out.tls.ca_file == pem);
  CHECK(out.tls.cert_file == pem);
  CHECK(out.tls.key_file == pem);
  CHECK(out.username == "root");
  CHECK(out.password == "p:w");
  REQUIRE(refusal({"", "", "", "root"}, {"http://127.0.0.1:23790"}, std::string("from-env")).empty());
  CHECK_FALSE(out.tls.enabled);
  CHECK(out.username == "root");
  CHECK(out.password == "from-env");
  REQUIRE(refusal({"", "", "", "root:given"}, https, std::string("from-env")).empty());
  CHECK(out.password == "given");
  fs::remove_all(dir);
}

// What `lockstep run --backend etcd --endpoints https://... --cacert --cert --key` does:
// the options go into the backend options of the run, and every client it makes connects
// with them; a cluster that demands client certificates serves it.
TEST_CASE("real run: an existing cluster over mutual TLS serves every client of the run") {
  auto certs = real::TestCertificates::make();
  if (!certs) FAIL(certs.error().to_string());
  const real::TestCertificates& pki = *certs.value();
  real::LocalClusterOptions lo;
  lo.members = 1;
  lo.kill_on_stop = true;
  lo.work_dir = pki.dir();
  lo.client_tls.cert_file = pki.server_cert();
  lo.client_tls.key_file = pki.server_key();
  lo.client_tls.trusted_ca_file = pki.ca_cert();
  lo.client_tls.client_cert_auth = true;
  lo.client_tls.probe.ca_file = pki.ca_cert();
  lo.client_tls.probe.cert_file = pki.client_cert();
  lo.client_tls.probe.key_file = pki.client_key();
  auto cluster = real::LocalCluster::start(lo);
  if (!cluster) FAIL(cluster.error().to_string());

  RealRunConfig c = base_config("etcd-mutex", 1, 2);
  c.run.workload.duration = seconds(2);
  c.backend.endpoints = cluster.value()->client_endpoints();
  REQUIRE(c.backend.endpoints.at(0).rfind("https://", 0) == 0);
  c.run.checks = {"mutex", "resource"};
  c.run.liveness_bound = seconds(1);
  RealSecurityArgs args;
  args.cacert = pki.ca_cert();
  args.cert = pki.client_cert();
  args.key = pki.client_key();
  real::EtcdClientSecurity security;
  REQUIRE(expand_real_security(args, c.backend.endpoints, std::nullopt, security).empty());
  c.backend.security = security;
  const RealRunOutcome out = run_real(c, nullptr);
  INFO(out.error);
  INFO(out.error);
  REQUIRE(out.error.empty());
  CHECK(check_named(out.result, "mutex").status == CheckStatus::ok);
  CHECK(count_events(out.result.history, EventKind::ok, "acquire") >= 2);
  // The truth watcher saw the run's keys over TLS too.
  CHECK(count_events(out.result.history, EventKind::truth, "key-put", "etcd") >= 2);

  // Without the defaults a client of the same endpoints gets nowhere (the system's roots do
  // not know the test CA).
  real::EventLoop loop;
  real::EtcdClientOptions plain;
  plain.endpoints = c.backend.endpoints;
  plain.call_deadline = seconds(2);
  auto kv = real::EtcdKvClient::create(loop, plain);
  REQUIRE(kv.ok());
  RangeRequest probe;
  probe.key = "x";
  auto read = [](KvClient* k, RangeRequest r) -> Task<Result<RangeResponse>> {
    co_return co_await k->range(r);
  };
  Result<RangeResponse> refused = loop.run(read(kv.value().get(), probe));
  CHECK_FALSE(refused.ok());
  kv.value().reset();
}

}  // namespace
}  // namespace lockstep
