// External lock clients (docs/external-clients.md) on a real 1-member etcd that the runner
// starts: a client process's history is judged like any other, pause and crash reach the
// process, and every way a client can break the protocol ends the run as a bad client, with its
// history kept, its open operation closed as `info`, and nothing left running.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lockstep/real_run/runner.h"

namespace lockstep {
namespace {

const std::string kNoLockClient = std::string("python3 ") + LOCKSTEP_REAL_RUN_TESTDATA + "/no_lock_client.py";

// Answers hello as a client of protocol 1 should, then runs `rest` (shell).
std::string after_hello(const std::string& rest) {
  return "read hello; echo '{\"id\":1,\"type\":\"ok\",\"protocol\":1}'; " + rest;
}

RealRunConfig external_config(const std::string& command, int clients) {
  RealRunConfig c;
  c.run.algorithm = "etcd-mutex";
  c.run.seed = 11;
  c.run.etcd.members = 1;
  c.run.workload.clients = clients;
  c.run.workload.duration = seconds(3);
  c.run.workload.critical_section = milliseconds(50);
  c.run.workload.think_time = milliseconds(20);
  c.run.workload.drain_timeout = seconds(10);
  c.run.extend_load_for_liveness = false;
  c.backend.client_cmd = command;
  return c;
}

sim::FaultSpec client_fault(const std::string& kind, int start_ms, int duration_ms) {
  sim::FaultSpec f;
  f.kind = kind;
  f.targets = {"client-0"};
  f.start = milliseconds(start_ms);
  f.duration = milliseconds(duration_ms);
  return f;
}

CheckStatus status_of(const RunResult& r, const std::string& check) {
  for (const auto& c : r.checks)
    if (c.name == check) return c.status;
  FAIL("no check named " << check);
  return CheckStatus::unknown;
}

// Whether a process whose command line contains `marker` is still running.
bool process_running(const std::string& marker) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string line = text.str();
    for (char& ch : line)
      if (ch == '\0') ch = ' ';
    if (line.find(marker) != std::string::npos && line.find("catch") == std::string::npos) return true;
  }
  return false;
}

// The true times of the fault's start and end events.
std::pair<std::int64_t, std::int64_t> fault_window(const History& h, const std::string& kind) {
  std::int64_t start = -1, end = -1;
  for (const auto& e : h.events) {
    if (e.kind != EventKind::fault || e.op != kind) continue;
    (e.args.value("phase", "") == "start" ? start : end) = e.true_ns;
  }
  return {start, end};
}

TEST_CASE("external clients: a client that takes no lock is caught breaking mutual exclusion") {
  const RealRunOutcome out = run_real(external_config(kNoLockClient, 3), nullptr);
  REQUIRE(out.error == "");
  CHECK(out.bad_client == "");
  CHECK(status_of(out.result, "mutex") == CheckStatus::violated);
  // Every client read end of input and exited by itself; its stderr was kept.
  REQUIRE(out.client_stderr.size() == 3);
  for (const auto& [client, text] : out.client_stderr) {
    INFO(client << ": " << text);
    CHECK(text.find("process 1 of " + client + " started") != std::string::npos);
    CHECK(text.find("no-lock client: end of input") != std::string::npos);
  }
}

TEST_CASE("external clients: a pause stops the client's process and lockstep asks it nothing") {
  RealRunConfig c = external_config(kNoLockClient, 1);
  c.run.faults = {client_fault("pause", 1000, 800)};
  const RealRunOutcome out = run_real(c, nullptr);
  REQUIRE(out.error == "");
  const auto [start, end] = fault_window(out.result.history, "pause");
  REQUIRE(start > 0);
  REQUIRE(end > start);
  int before = 0, during = 0, after = 0;
  for (const auto& e : out.result.history.events) {
    if (e.process != "client-0" || e.kind != EventKind::invoke) continue;
    (e.true_ns < start ? before : e.true_ns > end ? after : during)++;
  }
  CHECK(before > 3);
  CHECK(during == 0);
  CHECK(after > 3);
  CHECK(status_of(out.result, "mutex") == CheckStatus::ok);
}

TEST_CASE("external clients: a crash kills the client's process and a fresh one takes over") {
  RealRunConfig c = external_config(kNoLockClient, 1);
  c.run.faults = {client_fault("crash", 1000, 500)};
  const RealRunOutcome out = run_real(c, nullptr);
  REQUIRE(out.error == "");
  CHECK(out.bad_client == "");
  const std::string& text = out.client_stderr.at("client-0");
  INFO(text);
  CHECK(text.find("process 2 of client-0 started") != std::string::npos);
  // The first process was killed (it never read end of input); the second one did.
  CHECK(text.find("no-lock client: end of input") == text.rfind("no-lock client: end of input"));
  const auto [start, end] = fault_window(out.result.history, "crash");
  int after = 0;
  for (const auto& e : out.result.history.events)
    if (e.process == "client-0" && e.kind == EventKind::ok && e.true_ns > end) ++after;
  CHECK(after > 3);
}

TEST_CASE("external clients: a client that breaks the protocol before its hello answer cannot start") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"read hello; echo hello-there", "client-0: not a JSON object: line 1 of its output, hello-there"},
      {"exit 3", "client-0: exited with status 3 before answering request 1 (hello)"},
      {"read hello; echo '{\"id\":1,\"type\":\"ok\",\"protocol\":2}'",
       "answers hello with protocol 2, lockstep speaks protocol 1"},
  };
  for (const auto& [command, message] : cases) {
    INFO(command);
    const RealRunOutcome out = run_real(external_config(command, 1), nullptr);
    CHECK(out.error.find(message) != std::string::npos);
    CHECK(out.error.find("client-0.stderr") != std::string::npos);
  }
}

TEST_CASE("external clients: a bad client mid-run ends the run, its history kept, nothing left running") {
  struct Case {
    std::string command, message;
  };
  const std::vector<Case> cases = {
      {after_hello("read acquire; echo '{\"id\":7,\"type\":\"ok\"}'; sleep 97.5"),
       "client-0: answers request 7, but the open request is 2: line 2 of its output"},
      {after_hello("read acquire; echo '{\"call\":\"read\"}'; sleep 97.5"),
       "client-0: calls the resource outside a critical section: line 2 of its output"},
      {after_hello("read acquire; exit 0"), "client-0: exited with status 0 before answering request 2 (acquire)"},
      {after_hello("read acquire; sleep 97.5"), "client-0: did not answer request 2 (acquire) in time"},
  };
  for (const auto& c : cases) {
    INFO(c.command);
    RealRunConfig config = external_config(c.command, 1);
    // The silent client's deadline is 1 s + 10 s after its acquire: within the drain.
    config.run.workload.acquire_timeout = seconds(1);
    config.run.workload.drain_timeout = seconds(20);
    const RealRunOutcome out = run_real(config, nullptr);
    REQUIRE(out.error == "");
    CHECK(out.bad_client.find(c.message) != std::string::npos);
    // Its acquire ends as info with the reason; the checks still judged the history.
    REQUIRE(!out.result.history.events.empty());
    const HistoryEvent* last = nullptr;
    for (const auto& e : out.result.history.events)
      if (e.process == "client-0" && (e.kind == EventKind::invoke || e.kind == EventKind::info)) last = &e;
    REQUIRE(last != nullptr);
    CHECK(last->kind == EventKind::info);
    CHECK(last->result.value("error", "").rfind("bad client: ", 0) == 0);
    CHECK(!out.result.checks.empty());
    CHECK(!process_running("sleep 97.5"));
  }
}

TEST_CASE("external clients: faults that cannot reach another process are refused up front") {
  RealRunConfig c = external_config(kNoLockClient, 1);
  c.run.faults = {client_fault("clock", 500, 500)};
  c.run.faults[0].rate_ppm = 2'000'000;
  CHECK(validate_real_run_config(c).find("with external clients (--client-cmd) does not support the fault class clock") !=
        std::string::npos);
  c.run.faults = {client_fault("lease-drop", 500, 500)};
  CHECK(validate_real_run_config(c).find("lease-drop") != std::string::npos);
  c = external_config(kNoLockClient, 1);
  c.run.algorithm = "etcd-mutex-guarded";
  CHECK(validate_real_run_config(c).find("writes through etcd") != std::string::npos);
}

}  // namespace
}  // namespace lockstep
