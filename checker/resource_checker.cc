#include "lockstep/checker/resource_checker.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

namespace lockstep {

namespace {

struct AppliedWrite {
  std::int64_t order = 0;
  std::int64_t base = 0;
  std::int64_t value = 0;
  std::int64_t token = 0;
  bool has_token = false;
  std::string client;  // when the resource knows it
  std::int64_t event = 0;
};

nlohmann::json write_json(const AppliedWrite& w) {
  nlohmann::json j = {{"order", w.order}, {"base", w.base}, {"value", w.value}, {"event", w.event}};
  if (!w.client.empty()) j["client"] = w.client;
  if (w.has_token) j["token"] = w.token;
  return j;
}

}  // namespace

CheckResult check_resource(const History& history, const ResourceCheckOptions& options) {
  CheckResult r;
  r.name = "resource";
  std::vector<AppliedWrite> applied;
  std::int64_t rejected = 0;
  for (const auto& e : history.events) {
    if (e.kind != EventKind::truth) continue;
    if (e.op == "resource-write") {
      if (!e.args.value("accepted", false)) {
        ++rejected;
        continue;
      }
      AppliedWrite w;
      w.order = e.args.value("order", std::int64_t{0});
      w.base = e.args.value("base", std::int64_t{0});
      w.value = e.args.value("value", std::int64_t{0});
      w.token = e.args.value("token", std::int64_t{0});
      w.has_token = e.args.contains("token");
      w.client = e.args.value("client", "");
      w.event = e.index;
      applied.push_back(w);
    } else if (e.op == "key-put" && !options.guarded_data_key.empty() &&
               e.args.value("key", "") == options.guarded_data_key) {
      AppliedWrite w;
      w.order = e.args.value("revision", std::int64_t{0});
      if (!parse_guarded_value(e.args.value("value", ""), w.value, w.base, w.token)) continue;
      w.has_token = true;
      w.event = e.index;
      applied.push_back(w);
    }
  }
  // Acknowledged writes by order; the acknowledging client.
  std::map<std::int64_t, std::string> acknowledged;
  std::int64_t writes_ok = 0, writes_indeterminate = 0, writes_rejected_seen = 0;
  for (const auto& e : history.events) {
    if (e.op != "write") continue;
    if (e.kind == EventKind::ok) {
      ++writes_ok;
      if (e.result.contains("order")) acknowledged[e.result["order"].get<std::int64_t>()] = e.process;
    } else if (e.kind == EventKind::info) {
      ++writes_indeterminate;
    } else if (e.kind == EventKind::fail && e.result.value("error", "") == "rejected") {
      ++writes_rejected_seen;
    }
  }
  std::stable_sort(applied.begin(), applied.end(),
                   [](const AppliedWrite& a, const AppliedWrite& b) { return a.order < b.order; });

  std::int64_t current = 0;
  std::vector<const AppliedWrite*> since_last_read;  // writes that produced `current`
  const AppliedWrite* last = nullptr;
  std::int64_t lost_acknowledged = 0, lost_unacknowledged = 0, token_regressions = 0;
  std::int64_t highest_token = INT64_MIN;
  nlohmann::json lost_witness, token_witness;
  std::int64_t redeliveries = 0;
  for (const auto& w : applied) {
    // The same write applied again right after itself (a duplicated message) changes nothing.
    if (last && w.base == last->base && w.value == last->value && w.token == last->token &&
        w.client == last->client) {
      ++redeliveries;
      continue;
    }
    if (last && w.base != current) {
      // `w` was computed from an older value: the write that set `current` is lost.
      const bool acked = acknowledged.count(last->order) != 0;
      (acked ? lost_acknowledged : lost_unacknowledged) += 1;
      if (acked && lost_witness.empty()) {
        lost_witness = {{"lost", write_json(*last)},
                        {"lost_acknowledged_by", acknowledged[last->order]},
                        {"overwritten_by", write_json(w)}};
      }
    }
    if (options.fenced && w.has_token) {
      if (w.token < highest_token) {
        ++token_regressions;
        if (token_witness.empty())
          token_witness = {{"write", write_json(w)}, {"highest_token_before", highest_token}};
      }
      highest_token = std::max(highest_token, w.token);
    }
    current = w.value;
    last = &w;
  }
  r.figures = {{"applied_writes", static_cast<std::int64_t>(applied.size())},
               {"acknowledged_writes", writes_ok},
               {"indeterminate_writes", writes_indeterminate},
               {"rejected_writes", rejected + (rejected == 0 ? writes_rejected_seen : 0)},
               {"lost_acknowledged_updates", lost_acknowledged},
               {"lost_unacknowledged_updates", lost_unacknowledged},
               {"redelivered_writes", redeliveries},
               {"final_value", current}};
  if (options.fenced) r.figures["token_regressions"] = token_regressions;
  if (lost_acknowledged > 0 || token_regressions > 0) {
    r.status = CheckStatus::violated;
    if (!lost_witness.empty()) {
      r.witness = lost_witness;
      r.summary = "an acknowledged update was lost: " +
                  lost_witness["lost_acknowledged_by"].get<std::string>() + "'s write of " +
                  std::to_string(lost_witness["lost"]["value"].get<std::int64_t>()) +
                  " was overwritten by a write computed from " +
                  std::to_string(lost_witness["overwritten_by"]["base"].get<std::int64_t>()) +
                  " (" + std::to_string(lost_acknowledged) + " lost)";
    } else {
      r.witness = token_witness;
      r.summary = "the resource accepted a fencing token lower than one it had accepted before";
    }
  } else {
    r.status = CheckStatus::ok;
    r.summary = "no acknowledged update lost (" + std::to_string(applied.size()) +
                " writes applied, final value " + std::to_string(current) + ")";
  }
  return r;
}

std::string format_guarded_value(std::int64_t value, std::int64_t base, std::int64_t token) {
  return std::to_string(value) + "@" + std::to_string(base) + "@" + std::to_string(token);
}

bool parse_guarded_value(const std::string& text, std::int64_t& value, std::int64_t& base,
                         std::int64_t& token) {
  const char* p = text.data();
  const char* end = p + text.size();
  for (std::int64_t* field : {&value, &base, &token}) {
    auto r = std::from_chars(p, end, *field);
    if (r.ec != std::errc()) return false;
    p = r.ptr;
    if (field != &token) {
      if (p == end || *p != '@') return false;
      ++p;
    }
  }
  return p == end;
}

}  // namespace lockstep
