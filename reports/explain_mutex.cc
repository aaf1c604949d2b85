// The mutex check's explanation: who acquired while whom still believed, what etcd really
// held, why the earlier holder lost its key, and what it did next.
#include <algorithm>
#include <string>

#include "reports/explain_parts.h"
#include "reports/report_text.h"

namespace lockstep::reports {

namespace {

struct Holding {
  std::string process;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = kStillOpen;
  std::string ended_by;
  const HistoryEvent* acquired = nullptr;  // the acquire's ok event
};

bool read_holding(const RunFacts& facts, const nlohmann::json& j, Holding& out) {
  if (!j.is_object() || !j.contains("process") || !j["process"].is_string()) return false;
  out.process = j["process"].get<std::string>();
  out.start_ns = int_of(j, "start_ns");
  out.end_ns = int_of(j, "end_ns", kStillOpen);
  out.ended_by = j.value("ended_by", "");
  out.acquired = facts.event(int_of(j, "start_event", -1));
  return true;
}

std::string revision_note(const Holding& h) {
  if (h.acquired == nullptr) return "";
  const std::int64_t rev = int_of(h.acquired->result, "key_revision");
  return rev != 0 ? " (key revision " + std::to_string(rev) + ")" : "";
}

// The faults that can keep a holder from renewing its lease, most telling first; message
// duplication and reordering cannot, so they are left out of a "because".
std::vector<const FaultBand*> likely_causes(std::vector<const FaultBand*> faults) {
  static const std::vector<std::string> rank = {"pause", "crash", "lease-drop", "partition",
                                                "loss", "delay", "clock"};
  auto rank_of = [](const FaultBand* f) {
    return static_cast<std::size_t>(std::find(rank.begin(), rank.end(), f->kind) - rank.begin());
  };
  faults.erase(std::remove_if(faults.begin(), faults.end(),
                              [&](const FaultBand* f) { return rank_of(f) == rank.size(); }),
               faults.end());
  std::stable_sort(faults.begin(), faults.end(),
                   [&](const FaultBand* a, const FaultBand* b) { return rank_of(a) < rank_of(b); });
  return faults;
}

// Why the earlier holder's key went away (or that it did not).
void explain_key_and_lease(const RunFacts& facts, const Holding& earlier, const Holding& later,
                           std::vector<std::string>& out) {
  const std::int64_t rev = earlier.acquired ? int_of(earlier.acquired->result, "key_revision") : 0;
  const KeyLifetime* key = facts.key_of(earlier.process, rev, earlier.start_ns);
  if (key != nullptr) {
    if (key->end_ns <= later.start_ns) {
      out.push_back(earlier.process + "'s lock key " + key->key + " had been deleted at " +
                    format_seconds(key->end_ns) +
                    (key->delete_revision ? " (revision " + std::to_string(key->delete_revision) + ")" : "") +
                    (key->deleted_by_lease_expiry ? ", when its lease expired" : "") + ".");
    } else {
      out.push_back(earlier.process + "'s lock key " + key->key + " (created at revision " +
                    std::to_string(key->create_revision) +
                    ") still existed in etcd at that moment: the algorithm let " + later.process +
                    " in while the key was there.");
    }
  }

  std::int64_t lease = earlier.acquired ? int_of(earlier.acquired->result, "lease") : 0;
  if (lease == 0 && key != nullptr) lease = key->lease;
  const LeaseLifetime* l = lease != 0 ? facts.truth().find_lease(lease) : nullptr;
  const std::int64_t until = later.start_ns;
  auto own = facts.faults_hitting(earlier.process, earlier.start_ns, until);
  if (l != nullptr && l->expired_ns) {
    std::string s = earlier.process + "'s lease expired at " + format_seconds(*l->expired_ns) +
                    " on the leader's clock (" + l->expired_by + ")";
    auto causes = likely_causes(facts.faults_hitting(earlier.process, earlier.start_ns, *l->expired_ns));
    // Faults on the leader's own clock decide expiry too.
    for (const FaultBand* f : facts.faults_hitting(l->expired_by, earlier.start_ns, *l->expired_ns))
      if (f->kind == "clock") causes.push_back(f);
    if (!causes.empty())
      s += " because " + fault_clauses(causes);
    else
      s += "; no fault hit " + earlier.process + " before that";
    out.push_back(s + ".");
  } else if (!own.empty()) {
    out.push_back("Meanwhile " + fault_clauses(own) + ".");
  } else {
    const std::string from = format_seconds(earlier.start_ns), to = format_seconds(until);
    out.push_back("No fault hit " + earlier.process +
                  (from == to ? " at " + from : " between " + from + " and " + to) + ".");
  }
}

// What a client did from `from_ns` until its belief ended.
std::vector<std::string> actions(const RunFacts& facts, const std::string& process,
                                 std::int64_t from_ns, std::int64_t to_ns, std::size_t max_count,
                                 const std::string& only_op = "") {
  std::vector<std::string> out;
  std::size_t more = 0;
  for (const auto& e : facts.history().events) {
    if (e.true_ns < from_ns) continue;
    if (e.true_ns > to_ns) break;
    if (e.process != process || e.kind != EventKind::invoke) continue;
    if (!only_op.empty() && e.op != only_op) continue;
    if (out.size() < max_count)
      out.push_back(operation_phrase(facts, e));
    else
      ++more;
  }
  if (more > 0) out.push_back("did " + std::to_string(more) + " more operations");
  return out;
}

}  // namespace

std::vector<std::string> explain_mutex(const RunFacts& facts, const nlohmann::json& check) {
  const nlohmann::json w = check.value("witness", nlohmann::json::object());
  Holding earlier, later;
  if (!w.is_object() || !read_holding(facts, w.value("earlier", nlohmann::json()), earlier) ||
      !read_holding(facts, w.value("later", nlohmann::json()), later))
    return {};
  std::vector<std::string> out;
  out.push_back(later.process + " acquired the lock at " + format_seconds(later.start_ns) +
                revision_note(later) + " while " + earlier.process +
                " still believed it held the lock since " + format_seconds(earlier.start_ns) +
                revision_note(earlier) + ".");
  explain_key_and_lease(facts, earlier, later, out);

  // What the earlier holder did while the later one held: this is where damage is done.
  const std::int64_t earlier_end = earlier.end_ns == kStillOpen ? facts.end_ns() : earlier.end_ns;
  auto did = actions(facts, earlier.process, later.start_ns, earlier_end, 3);
  std::string resumed;
  for (const FaultBand* f : facts.faults_hitting(earlier.process, later.start_ns, later.start_ns))
    if (f->kind == "pause" && !f->open_end) resumed = " resumed at " + format_seconds(f->end_ns) + " and";
  if (!did.empty()) {
    std::string steps;
    for (std::size_t i = 0; i < did.size(); ++i) steps += (i == 0 ? "" : "; then ") + did[i];
    out.push_back(earlier.process + (resumed.empty() ? " then" : resumed) + " " + steps + ".");
  } else if (earlier.ended_by == "crash") {
    out.push_back(earlier.process + " crashed at " + format_seconds(earlier.end_ns) + ".");
  } else if (earlier.end_ns == kStillOpen) {
    out.push_back(earlier.process + " still believed it held the lock when the history ended.");
  }

  const std::int64_t overlap_start = int_of(w, "overlap_start_ns", later.start_ns);
  const std::int64_t overlap_end = int_of(w, "overlap_end_ns", facts.end_ns());
  auto writes = actions(facts, later.process, overlap_start, overlap_end, 1, "write");
  if (!writes.empty() && writes.front().find("more operations") == std::string::npos)
    out.push_back("Meanwhile " + later.process + " " + writes.front() + ".");
  std::string overlap = "The two beliefs overlapped for " +
                        format_duration(overlap_end - overlap_start) + ", from " +
                        format_seconds(overlap_start) + " to " + format_seconds(overlap_end);
  const std::int64_t pairs = int_of(check.value("figures", nlohmann::json::object()), "overlaps");
  if (pairs > 1) overlap += "; the check found " + std::to_string(pairs) + " overlapping pairs in all";
  out.push_back(overlap + ".");
  return out;
}

}  // namespace lockstep::reports
