#include "lockstep/reports/fault_bands.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>

#include "lockstep/reports/report_text.h"

namespace lockstep::reports {

namespace {

void append_names(const nlohmann::json& args, const char* field, std::vector<std::string>& out) {
  if (!args.contains(field) || !args[field].is_array()) return;
  for (const auto& name : args[field])
    if (name.is_string() && std::find(out.begin(), out.end(), name.get<std::string>()) == out.end())
      out.push_back(name.get<std::string>());
}

void append_member(const nlohmann::json& args, const char* field, std::vector<std::string>& out) {
  if (!args.contains(field) || !args[field].is_number_integer()) return;
  const std::string name = "member-" + std::to_string(args[field].get<std::int64_t>());
  if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
}

std::vector<std::string> names_in(const nlohmann::json& args, const char* field) {
  std::vector<std::string> out;
  append_names(args, field, out);
  return out;
}

std::int64_t int_arg(const nlohmann::json& args, const char* field) {
  return args.contains(field) && args[field].is_number() ? args[field].get<std::int64_t>() : 0;
}

}  // namespace

bool FaultBand::hits(const std::string& process) const {
  return std::find(processes.begin(), processes.end(), process) != processes.end();
}

bool FaultBand::on_link(const std::string& sender, const std::string& receiver) const {
  const auto side = [this](const char* field, const std::string& process) {
    const std::vector<std::string> names = names_in(args, field);
    return names.empty() || std::find(names.begin(), names.end(), process) != names.end();
  };
  if (side("from", sender) && side("to", receiver)) return true;
  return args.value("symmetric", true) && side("from", receiver) && side("to", sender);
}

namespace {

// Sets leader_moved on each leader change that named its members: etcd's hand-over makes the
// successor campaign at once when it is caught up, and the leader gives the hand-over up after
// an election timeout (the successor could not be reached or caught up), so the next election
// says whether it happened.
void mark_leader_moves(const History& history, std::vector<FaultBand>& bands) {
  std::vector<const HistoryEvent*> elections;
  for (const auto& e : history.events)
    if (e.kind == EventKind::truth && e.op == "leader-elected") elections.push_back(&e);
  if (elections.empty()) return;  // the history records no elections
  std::int64_t election_timeout_ns = 1'000'000'000;
  if (const auto it = history.header.meta.find("election_timeout_ms");
      it != history.header.meta.end() && it->is_number_integer())
    election_timeout_ns = it->get<std::int64_t>() * 1'000'000;
  for (FaultBand& band : bands) {
    if (band.kind != "leader-change" || !band.args.contains("from_member") || !band.args.contains("to_member"))
      continue;
    const auto next = std::find_if(elections.begin(), elections.end(),
                                   [&](const HistoryEvent* e) { return e->true_ns >= band.start_ns; });
    band.leader_moved = next != elections.end() &&
                        int_arg((*next)->args, "member") == int_arg(band.args, "to_member") &&
                        (*next)->true_ns <= band.start_ns + 2 * election_timeout_ns;
  }
}

}  // namespace

std::vector<FaultBand> fault_bands(const History& history) {
  std::vector<FaultBand> bands;
  // Open bands by (op, args without phase): the end event repeats the start's args.
  std::map<std::string, std::vector<std::size_t>> open;
  for (const auto& e : history.events) {
    if (e.kind != EventKind::fault) continue;
    nlohmann::json key_args = e.args.is_object() ? e.args : nlohmann::json::object();
    const std::string phase = key_args.value("phase", "");
    key_args.erase("phase");
    const std::string key = e.op + "\n" + key_args.dump();
    if (phase == "end") {
      auto it = open.find(key);
      if (it == open.end() || it->second.empty()) continue;  // an end with no start: ignored
      FaultBand& band = bands[it->second.front()];
      band.end_ns = e.true_ns;
      band.open_end = false;
      it->second.erase(it->second.begin());
      continue;
    }
    FaultBand band;
    band.kind = e.op;
    band.start_ns = e.true_ns;
    band.end_ns = e.true_ns;
    band.start_event = e.index;
    band.args = e.args;
    append_names(e.args, "targets", band.processes);
    append_names(e.args, "from", band.processes);
    append_names(e.args, "to", band.processes);
    append_member(e.args, "from_member", band.processes);
    append_member(e.args, "to_member", band.processes);
    band.hits_cluster = band.processes.empty();
    // A started fault with a duration waits for its end event; until then it is open.
    if (phase == "start" && int_arg(e.args, "duration_ms") > 0) {
      band.open_end = true;
      open[key].push_back(bands.size());
    }
    bands.push_back(std::move(band));
  }
  mark_leader_moves(history, bands);
  return bands;
}

std::string clock_rate_words(std::int64_t rate_ppm) {
  constexpr std::int64_t kNominal = 1'000'000;
  if (rate_ppm == kNominal) return "ran at nominal speed";
  char buf[64];
  if (rate_ppm < kNominal) {
    std::snprintf(buf, sizeof buf, "ran slow, at %.4g %% of nominal speed",
                  100.0 * static_cast<double>(rate_ppm) / kNominal);
  } else {
    std::snprintf(buf, sizeof buf, "ran fast, at %.4g times nominal speed",
                  static_cast<double>(rate_ppm) / kNominal);
  }
  return buf;
}

std::string describe_fault(const FaultBand& band) {
  const nlohmann::json& a = band.args;
  // "the resource", as a sentence names it; processes by their own names.
  const auto words = [&a](const char* field) {
    std::vector<std::string> names = names_in(a, field);
    for (auto& n : names)
      if (n == "resource") n = "the resource";
    return join_words(names);
  };
  const std::string targets = words("targets");
  const std::string from = words("from");
  const std::string to = words("to");
  const bool symmetric = a.value("symmetric", true);
  // "between A and B, C and D" would read as two pairs: a side of several is "each of".
  const auto side = [&](const char* field, const std::string& words) {
    return names_in(a, field).size() > 1 ? "each of " + words : words;
  };
  const std::string link =
      symmetric ? (names_in(a, "from").size() > 1 && names_in(a, "to").size() > 1
                       ? "between each of " + from + " on one side and each of " + to + " on the other"
                       : "between " + side("from", from) + " and " + side("to", to))
                : "from " + from + " to " + to;
  const std::string& k = band.kind;
  if (k == "pause") return targets + (names_in(a, "targets").size() > 1 ? " were" : " was") + " paused";
  if (k == "crash") return targets + " crashed";
  if (k == "partition") return "the links " + link + " were cut (their messages held)";
  if (k == "delay")
    return "messages " + link + " were delayed by " +
           format_duration(int_arg(a, "amount_ms") * 1'000'000);
  if (k == "loss") return "transmissions " + link + " were lost with probability " +
                          std::to_string(a.value("probability", 0.0)).substr(0, 4) + " (TCP resent them, late)";
  if (k == "duplicate") return "messages " + link + " were duplicated";
  if (k == "reorder") return "messages " + link + " were reordered";
  if (k == "lease-drop") return targets + "'s lease keep-alives were dropped";
  if (k == "clock") {
    const std::string clock = a.value("clock", std::string("monotonic"));
    const bool both = clock == "both";
    std::string s = targets + "'s " + (both ? std::string("wall and monotonic clocks") : clock + " clock");
    const std::int64_t jump_ms = int_arg(a, "amount_ms");
    // rate_ppm is the clock's absolute rate while the fault lasts: 1000000 is nominal speed,
    // 250000 a clock at a quarter of it (slow), 0 unchanged.
    const std::int64_t rate_ppm = int_arg(a, "rate_ppm");
    if (jump_ms != 0)
      s += std::string(" jumped ") + (jump_ms > 0 ? "forward" : "back") + " by " +
           format_duration((jump_ms > 0 ? jump_ms : -jump_ms) * 1'000'000);
    if (jump_ms != 0 && rate_ppm != 0) s += " and";
    if (rate_ppm != 0) s += " " + clock_rate_words(rate_ppm);
    if (jump_ms == 0 && rate_ppm == 0) s += both ? " were left unchanged" : " was left unchanged";
    return s;
  }
  if (k == "leader-change") {
    if (a.contains("skipped")) return "a leader change was skipped (" + a.value("skipped", "") + ")";
    if (a.contains("from_member") && a.contains("to_member")) {
      const std::string from = "member-" + std::to_string(int_arg(a, "from_member"));
      const std::string to = "member-" + std::to_string(int_arg(a, "to_member"));
      if (band.leader_moved == false) return from + " was told, in vain, to hand the leadership over to " + to;
      return "the leader was moved from " + from + " to " + to;
    }
    return "the leader was changed";
  }
  if (k == "compaction") return "the store was compacted";
  if (k == "slow-revoke")
    return "lease revocations were delayed by " +
           format_duration(int_arg(a, "amount_ms") * 1'000'000);
  const std::string who = join_words(band.processes);
  return "fault " + k + (who.empty() ? std::string(" hit the cluster") : " hit " + who);
}

std::int64_t monotonic_deadline_ns(const std::vector<FaultBand>& bands, const std::string& member,
                                   std::int64_t from_ns, std::int64_t ttl_ns) {
  // The member's monotonic clock faults as changes in true time: a jump, a rate's start, a
  // rate's end (back to nominal).
  struct Change {
    std::int64_t at_ns;
    std::int64_t jump_ns;  // added to the clock at at_ns
    double rate;           // the rate from at_ns on; < 0: unchanged
  };
  std::vector<Change> changes;
  double rate = 1.0;
  for (const FaultBand& b : bands) {
    if (b.kind != "clock" || !b.hits(member) || b.args.value("clock", std::string("monotonic")) == "wall") continue;
    const std::int64_t jump_ms = int_arg(b.args, "amount_ms");
    const std::int64_t rate_ppm = int_arg(b.args, "rate_ppm");
    const std::int64_t end_ns = b.open_end ? std::numeric_limits<std::int64_t>::max() : b.end_ns;
    if (jump_ms != 0 && b.start_ns > from_ns) changes.push_back({b.start_ns, jump_ms * 1'000'000, -1});
    if (rate_ppm <= 0) continue;
    const double r = static_cast<double>(rate_ppm) / 1e6;
    if (b.start_ns <= from_ns && end_ns > from_ns) rate = r;
    if (b.start_ns > from_ns) changes.push_back({b.start_ns, 0, r});
    if (end_ns > from_ns && end_ns != std::numeric_limits<std::int64_t>::max()) changes.push_back({end_ns, 0, 1.0});
  }
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.at_ns < b.at_ns; });
  std::int64_t now_ns = from_ns;
  double remaining_ns = static_cast<double>(ttl_ns);
  for (const Change& c : changes) {
    const double passes_ns = static_cast<double>(c.at_ns - now_ns) * rate;
    if (passes_ns >= remaining_ns) break;
    remaining_ns -= passes_ns;
    now_ns = c.at_ns;
    remaining_ns -= static_cast<double>(c.jump_ns);
    if (remaining_ns <= 0) return now_ns;
    if (c.rate >= 0) rate = c.rate;
  }
  return now_ns + static_cast<std::int64_t>(remaining_ns / rate);
}

}  // namespace lockstep::reports
