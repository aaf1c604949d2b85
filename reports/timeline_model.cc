#include "lockstep/reports/timeline_model.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "lockstep/reports/causes.h"
#include "lockstep/reports/elections.h"
#include "lockstep/reports/report_text.h"

namespace lockstep::reports {

namespace {

constexpr int kBeliefRow = 0, kKeyRow = 1, kLeaseRow = 2, kOpsRow = 3;  // client lanes
constexpr int kLeaderRow = 0, kMemberEventsRow = 1;                     // member lanes
constexpr int kWritesRow = 0, kReadsRow = 1;                            // the resource lane

// "client-10" after "client-9": by prefix, then by the number at the end.
bool process_less(const std::string& a, const std::string& b) {
  auto split = [](const std::string& s) {
    std::size_t i = s.size();
    while (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]))) --i;
    const long long n = i < s.size() && s.size() - i < 18 ? std::stoll(s.substr(i)) : -1;
    return std::pair<std::string, long long>(s.substr(0, i), n);
  };
  return split(a) < split(b);
}

std::string lane_kind(const std::string& process) {
  if (process.rfind("client-", 0) == 0) return "client";
  if (process.rfind("member-", 0) == 0) return "member";
  if (process == "resource") return "resource";
  return "other";
}

std::vector<std::string> rows_for(const std::string& kind) {
  if (kind == "client") return {"believed holding", "lock key in etcd", "lease", "operations"};
  if (kind == "member") return {"leader", "events"};
  if (kind == "resource") return {"writes", "reads"};
  return {"keys", "events"};
}

std::string compact(const nlohmann::json& j, std::size_t max_chars = 120) {
  if (j.is_null() || (j.is_object() && j.empty())) return "";
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > max_chars) s = s.substr(0, max_chars - 3) + "...";
  return s;
}

void collect_names(const nlohmann::json& args, const char* field, std::set<std::string>& out) {
  if (!args.is_object() || !args.contains(field) || !args[field].is_array()) return;
  for (const auto& n : args[field])
    if (n.is_string()) out.insert(n.get<std::string>());
}

std::vector<Lane> make_lanes(const RunFacts& facts) {
  const History& h = facts.history();
  std::set<std::string> names;
  for (const auto& e : h.events) {
    if (e.process != "world" && e.process != "etcd") names.insert(e.process);
    if (e.kind == EventKind::fault) {
      collect_names(e.args, "targets", names);
      collect_names(e.args, "from", names);
      collect_names(e.args, "to", names);
    }
  }
  // Every member gets a lane even if it never did anything the history records.
  const auto& meta = h.header.meta;
  if (meta.is_object() && meta.contains("members") && meta["members"].is_number_integer())
    for (std::int64_t i = 0; i < meta["members"].get<std::int64_t>() && i < 64; ++i)
      names.insert("member-" + std::to_string(i));
  bool etcd_lane = false;
  for (const auto& k : facts.truth().keys) etcd_lane |= k.owner.empty();
  std::vector<std::string> sorted(names.begin(), names.end());
  const std::map<std::string, int> order = {{"client", 0}, {"resource", 1}, {"member", 2}, {"other", 3}};
  std::stable_sort(sorted.begin(), sorted.end(), [&](const std::string& a, const std::string& b) {
    const int oa = order.at(lane_kind(a)), ob = order.at(lane_kind(b));
    return oa != ob ? oa < ob : process_less(a, b);
  });
  if (etcd_lane) sorted.push_back("etcd");
  std::vector<Lane> lanes;
  for (const auto& n : sorted) lanes.push_back({n, lane_kind(n), rows_for(lane_kind(n))});
  return lanes;
}

class Builder {
 public:
  Builder(const RunFacts& facts, TimelineModel& m) : facts_(facts), m_(m) {}

  void beliefs() {
    for (const auto& h : facts_.holdings()) {
      const int lane = m_.lane_of(h.process);
      if (lane < 0) continue;
      const bool open = h.end_ns == kStillOpen;
      const HistoryEvent* ok = facts_.event(h.start_event);
      const std::string token = ok && ok->result.is_object() && ok->result.contains("token")
                                    ? ok->result["token"].dump() : "";
      add(lane, kBeliefRow, open ? ItemKind::belief_open : ItemKind::belief, h.start_ns,
          open ? m_.end_ns : h.end_ns, token.empty() ? "" : "t" + token,
          h.process + " believed it held the lock" + (token.empty() ? "" : " (token " + token + ")") +
              ", ended by " + h.ended_by);
    }
  }

  void keys_and_leases() {
    const int etcd = m_.lane_of("etcd");
    for (const auto& k : facts_.truth().keys) {
      const int lane = k.owner.empty() ? etcd : m_.lane_of(k.owner);
      if (lane < 0) continue;
      const bool open = k.end_ns == kStillOpen;
      std::string tip = "key " + k.key + " created at revision " + std::to_string(k.create_revision);
      if (k.lease != 0) tip += " under lease " + std::to_string(k.lease);
      if (!open) tip += "; deleted at revision " + std::to_string(k.delete_revision) +
                        (k.deleted_by_lease_expiry ? " because its lease expired" : "");
      add(lane, m_.lanes[lane].kind == "client" ? kKeyRow : 0, open ? ItemKind::key_open : ItemKind::key,
          k.start_ns, open ? m_.end_ns : k.end_ns, "r" + std::to_string(k.create_revision), tip);
    }
    for (const auto& l : facts_.truth().leases) {
      const int lane = m_.lane_of(l.owner);
      if (lane < 0 || m_.lanes[lane].kind != "client") continue;
      const std::int64_t end = l.expired_ns ? *l.expired_ns : l.last_seen_ns;
      add(lane, kLeaseRow, ItemKind::lease, l.first_seen_ns, end, "",
          "lease " + std::to_string(l.lease) + " seen from " + format_seconds(l.first_seen_ns) +
              (l.expired_ns ? ", expired by " + l.expired_by : ", last seen"));
      if (l.expired_ns)
        add(lane, kLeaseRow, ItemKind::lease_expired, *l.expired_ns, *l.expired_ns, "",
            "lease " + std::to_string(l.lease) + " expired on the leader's clock (" + l.expired_by + ")");
    }
    for (const auto& t : facts_.truth().leaders) {
      const int lane = m_.lane_of(t.member);
      if (lane < 0) continue;
      add(lane, kLeaderRow, ItemKind::leader, t.start_ns, t.end_ns == kStillOpen ? m_.end_ns : t.end_ns,
          "term " + std::to_string(t.term), leader_words(t));
    }
  }

  // A leader bar's note: its term, and why it ended when a step-down says so.
  std::string leader_words(const LeaderTerm& t) const {
    std::string words = t.member + " led the cluster in term " + std::to_string(t.term);
    if (const std::string why = step_down_words(facts_, t); !why.empty()) words += "; " + why;
    return words;
  }

  void events() {
    static const std::set<std::string> drawn_elsewhere = {"key-put", "key-delete", "leader-elected",
                                                          "leader-stepped-down"};
    for (const auto& e : facts_.history().events) {
      if (e.kind == EventKind::invoke) {
        operation(e);
      } else if (e.kind == EventKind::truth && (e.op == "resource-write" || e.op == "resource-read")) {
        resource(e);
      } else if (e.kind == EventKind::truth && !drawn_elsewhere.count(e.op)) {
        int lane = m_.lane_of(e.process);
        if (lane < 0) lane = m_.lane_of("etcd");
        if (lane < 0) continue;
        add(lane, static_cast<int>(m_.lanes[lane].rows.size()) - 1, ItemKind::truth_point, e.true_ns,
            e.true_ns, "", e.op + " " + compact(e.args));
      } else if (e.kind == EventKind::trace) {
        const int lane = m_.lane_of(e.process);
        if (lane < 0) continue;
        add(lane, static_cast<int>(m_.lanes[lane].rows.size()) - 1, ItemKind::trace, e.true_ns, e.true_ns,
            "", "trace " + e.op + " " + compact(e.args));
      }
    }
  }

 private:
  void operation(const HistoryEvent& e) {
    const int lane = m_.lane_of(e.process);
    if (lane < 0) return;
    const HistoryEvent* done = facts_.completion_of(e.index);
    ItemKind kind = ItemKind::op_open;
    if (done && done->kind == EventKind::ok) kind = ItemKind::op_ok;
    if (done && done->kind == EventKind::fail) kind = ItemKind::op_fail;
    if (done && done->kind == EventKind::info) kind = ItemKind::op_info;
    std::string tip = e.op + " " + compact(e.args, 60) + " -> " +
                      (done ? std::string(event_kind_name(done->kind)) + " " + compact(done->result, 80)
                            : std::string("never answered"));
    if (kind == ItemKind::op_info || kind == ItemKind::op_open)
      tip += " (indeterminate: may take effect at any time after its invoke, or never)";
    std::string label = e.op;
    if (done && done->result.is_object() && done->result.contains("token"))
      label += " t" + done->result["token"].dump();
    const int row = m_.lanes[lane].kind == "client" ? kOpsRow
                                                    : static_cast<int>(m_.lanes[lane].rows.size()) - 1;
    add(lane, row, kind, e.true_ns, done ? done->true_ns : m_.end_ns, label, tip);
  }

  void resource(const HistoryEvent& e) {
    const int lane = m_.lane_of(e.process);
    if (lane < 0) return;
    const bool write = e.op == "resource-write";
    const bool accepted = e.args.is_object() && e.args.value("accepted", false);
    const std::string token = e.args.is_object() && e.args.contains("token") ? e.args["token"].dump() : "";
    const std::string client = e.args.is_object() ? e.args.value("client", std::string("?")) : "?";
    ItemKind kind = write ? (accepted ? ItemKind::write_accepted : ItemKind::write_rejected) : ItemKind::read;
    if (!write && !accepted) kind = ItemKind::write_rejected;  // a refused read is a refusal all the same
    add(lane, write ? kWritesRow : kReadsRow, kind, e.true_ns, e.true_ns, token.empty() ? "" : "t" + token,
        std::string(write ? "write" : "read") + " by " + client + (token.empty() ? "" : " with token " + token) +
            (accepted ? " accepted" : " rejected") + " " + compact(e.args, 100));
  }

  void add(int lane, int row, ItemKind kind, std::int64_t start, std::int64_t end, std::string label,
           std::string tip) {
    m_.items.push_back({lane, row, kind, start, std::max(start, end), 1, std::move(label), std::move(tip)});
  }

  const RunFacts& facts_;
  TimelineModel& m_;
};

void add_bands(const RunFacts& facts, TimelineModel& m) {
  std::vector<int> members, all;
  for (int i = 0; i < static_cast<int>(m.lanes.size()); ++i) {
    all.push_back(i);
    if (m.lanes[i].kind == "member") members.push_back(i);
  }
  for (const auto& f : facts.faults()) {
    TimelineBand b;
    b.kind = f.kind;
    b.start_ns = f.start_ns;
    b.end_ns = f.open_end ? m.end_ns : f.end_ns;
    b.open_end = f.open_end;
    for (const auto& p : f.processes)
      if (int lane = m.lane_of(p); lane >= 0) b.lanes.push_back(lane);
    if (b.lanes.empty()) b.lanes = f.hits_cluster && !members.empty() ? members : all;
    b.tip = describe_fault(f) + " " + fault_span(f);
    m.bands.push_back(std::move(b));
  }
}

}  // namespace

const char* item_kind_name(ItemKind kind) {
  switch (kind) {
    case ItemKind::belief: return "belief";
    case ItemKind::belief_open: return "belief-open";
    case ItemKind::key: return "key";
    case ItemKind::key_open: return "key-open";
    case ItemKind::lease: return "lease";
    case ItemKind::lease_expired: return "lease-expired";
    case ItemKind::op_ok: return "op-ok";
    case ItemKind::op_fail: return "op-fail";
    case ItemKind::op_info: return "op-info";
    case ItemKind::op_open: return "op-open";
    case ItemKind::leader: return "leader";
    case ItemKind::truth_point: return "truth";
    case ItemKind::write_accepted: return "write-accepted";
    case ItemKind::write_rejected: return "write-rejected";
    case ItemKind::read: return "read";
    case ItemKind::trace: return "trace";
  }
  return "truth";
}

int TimelineModel::lane_of(const std::string& process) const {
  auto it = lane_index.find(process);
  return it == lane_index.end() ? -1 : it->second;
}

TimelineModel build_timeline(const RunFacts& facts) {
  TimelineModel m;
  const auto& events = facts.history().events;
  if (!events.empty()) {
    m.start_ns = events.front().true_ns;
    m.end_ns = events.back().true_ns;
  }
  m.lanes = make_lanes(facts);
  for (std::size_t i = 0; i < m.lanes.size(); ++i) m.lane_index[m.lanes[i].name] = static_cast<int>(i);
  Builder b(facts, m);
  b.beliefs();
  b.keys_and_leases();
  b.events();
  add_bands(facts, m);
  return m;
}

}  // namespace lockstep::reports
