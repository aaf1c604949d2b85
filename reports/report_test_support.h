// Hand-built histories for the reports tests. Test-only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "lockstep/checker/check_result.h"
#include "lockstep/checker/history.h"

namespace lockstep::reports_test {

constexpr std::int64_t ms_to_ns(double milliseconds) { return static_cast<std::int64_t>(milliseconds * 1'000'000); }

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A truth event's `cause` naming a client's request (docs/history-format.md).
inline nlohmann::json request_cause(const std::string& client, std::int64_t call, const std::string& request,
                                    std::int64_t sent_ns, const std::string& member = "member-2") {
  return {{"kind", "request"}, {"request", request}, {"client", client}, {"call", call},
          {"member", member},  {"sent_ns", sent_ns}};
}

// Appends events with consecutive indices; times must not decrease.
class HistoryBuilder {
 public:
  HistoryBuilder& add(const std::string& process, EventKind kind, const std::string& op, std::int64_t true_ns,
                      nlohmann::json args = nlohmann::json::object(),
                      nlohmann::json result = nlohmann::json::object()) {
    HistoryEvent e;
    e.index = static_cast<std::int64_t>(history.events.size());
    e.process = process;
    e.kind = kind;
    e.op = op;
    e.args = std::move(args);
    e.result = std::move(result);
    e.true_ns = true_ns;
    history.events.push_back(std::move(e));
    return *this;
  }
  HistoryBuilder& truth(const std::string& process, const std::string& op, std::int64_t t, nlohmann::json args) {
    return add(process, EventKind::truth, op, t, std::move(args));
  }
  HistoryBuilder& fault(const std::string& op, const std::string& phase, std::int64_t t, nlohmann::json args) {
    args["phase"] = phase;
    return add("world", EventKind::fault, op, t, std::move(args));
  }
  std::int64_t last_index() const { return static_cast<std::int64_t>(history.events.size()) - 1; }
  // Puts events added out of time order (a story told in parts) in order, renumbered.
  void sort_by_time() {
    std::stable_sort(history.events.begin(), history.events.end(),
                     [](const HistoryEvent& a, const HistoryEvent& b) { return a.true_ns < b.true_ns; });
    for (std::size_t i = 0; i < history.events.size(); ++i) history.events[i].index = static_cast<std::int64_t>(i);
  }

  History history;
};

// verdict.json as harness/run_files.cc writes it, around the given checks.
inline nlohmann::json verdict_of(const std::vector<CheckResult>& checks, const History& history) {
  nlohmann::json v = {{"format", "lockstep-verdict"}, {"version", 1}, {"algorithm", "test-lock"},
                      {"seed", 7},  {"events", static_cast<std::int64_t>(history.events.size())},
                      {"replay", "lockstep replay scenarios/test.json"}};
  bool ok = true;
  v["checks"] = nlohmann::json::array();
  for (const auto& c : checks) {
    v["checks"].push_back(c.to_json());
    ok = ok && c.status == CheckStatus::ok;
  }
  v["verdict"] = ok ? "ok" : "violated";
  return v;
}

// The story of docs/report.md: client-0 holds the lock, is paused, its lease expires, client-2
// acquires, client-0 resumes and writes to the resource with its stale token.
inline History paused_holder_history() {
  HistoryBuilder b;
  b.truth("member-1", "leader-elected", ms_to_ns(100), {{"member", 1}, {"term", 1}});
  b.add("client-0", EventKind::invoke, "acquire", ms_to_ns(1000), {{"mode", "exclusive"}});
  b.truth("etcd", "key-put", ms_to_ns(1050), {{"key", "/lock"}, {"revision", 5}, {"create_revision", 5}, {"lease", 77}, {"value", "client-0"}});
  b.add("client-0", EventKind::ok, "acquire", ms_to_ns(1100), {}, {{"token", 5}, {"key", "/lock"}, {"key_revision", 5}, {"lease", 77}});
  // A keep-alive renews the lease at 1.3 s; the next one is sent during the pause's run-up
  // and never answered.
  b.add("client-0", EventKind::trace, "kv-send", ms_to_ns(1290), {{"call", 4}, {"request", "lease_keep_alive"}, {"member", "member-1"}, {"lease", 77}});
  b.add("client-0", EventKind::trace, "kv-end", ms_to_ns(1310), {{"call", 4}, {"outcome", "ok"}});
  b.fault("pause", "start", ms_to_ns(1500), {{"targets", {"client-0"}}, {"duration_ms", 2700}, {"start_ms", 1500}});
  b.add("client-2", EventKind::invoke, "acquire", ms_to_ns(2000), {{"mode", "exclusive"}});
  const nlohmann::json expiry = {{"lease", 77}, {"leader", "member-1"}, {"term", 1}, {"found_ns", ms_to_ns(3090)},
                                 {"renewed_ns", ms_to_ns(1300)}, {"renewed_by", "keep-alive"}};
  b.truth("member-1", "lease-revoke-attempt", ms_to_ns(3090), expiry);
  b.truth("member-1", "lease-expired", ms_to_ns(3100), expiry);
  nlohmann::json cause = expiry;
  cause["kind"] = "lease-expiry";
  b.truth("etcd", "key-delete", ms_to_ns(3110), {{"key", "/lock"}, {"revision", 6}, {"lease_expired", true}, {"cause", cause}});
  b.truth("etcd", "key-put", ms_to_ns(3150), {{"key", "/lock"}, {"revision", 7}, {"create_revision", 7}, {"lease", 88}, {"value", "client-2"}});
  b.add("client-2", EventKind::ok, "acquire", ms_to_ns(3200), {}, {{"token", 7}, {"key", "/lock"}, {"key_revision", 7}, {"lease", 88}});
  b.add("client-2", EventKind::invoke, "write", ms_to_ns(3300), {{"token", 7}, {"base", 0}, {"value", 1}});
  b.truth("resource", "resource-write", ms_to_ns(3310), {{"client", "client-2"}, {"token", 7}, {"accepted", true}, {"base", 0}, {"value", 1}, {"order", 1}});
  b.add("client-2", EventKind::ok, "write", ms_to_ns(3320), {}, {{"order", 1}});
  b.fault("pause", "end", ms_to_ns(4200), {{"targets", {"client-0"}}, {"duration_ms", 2700}, {"start_ms", 1500}});
  b.add("client-0", EventKind::invoke, "write", ms_to_ns(4250), {{"token", 5}, {"base", 0}, {"value", 1}});
  b.truth("resource", "resource-write", ms_to_ns(4260), {{"client", "client-0"}, {"token", 5}, {"accepted", true}, {"base", 0}, {"value", 1}, {"order", 2}});
  b.add("client-0", EventKind::ok, "write", ms_to_ns(4270), {}, {{"order", 2}});
  b.add("client-0", EventKind::invoke, "release", ms_to_ns(4300));
  b.add("client-0", EventKind::info, "release", ms_to_ns(4800), {}, {{"error", "timeout"}});
  b.add("client-2", EventKind::invoke, "release", ms_to_ns(5000));
  b.truth("etcd", "key-delete", ms_to_ns(5010), {{"key", "/lock"}, {"revision", 8}});
  b.add("client-2", EventKind::ok, "release", ms_to_ns(5020));
  b.history.header.meta = {{"members", 3}, {"clients", 3}};
  return b.history;
}

}  // namespace lockstep::reports_test
