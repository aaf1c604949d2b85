#include "lockstep/reports/violation_focus.h"

#include <algorithm>
#include <set>

namespace lockstep::reports {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool names_a_moment(const std::string& key) {
  if (!ends_with(key, "_ns")) return false;
  return !ends_with(key, "bound_ns") && key != "idle_ns" && key.find("duration") == std::string::npos &&
         !ends_with(key, "overlap_ns");
}

struct Walk {
  const History& history;
  const std::set<std::string>& processes;
  std::vector<std::int64_t> instants;
  std::vector<std::string> named;

  void add_process(const std::string& p) {
    if (std::find(named.begin(), named.end(), p) == named.end()) named.push_back(p);
  }

  void visit(const nlohmann::json& j, const std::string& key) {
    if (j.is_object()) {
      for (auto it = j.begin(); it != j.end(); ++it) visit(it.value(), it.key());
    } else if (j.is_array()) {
      for (const auto& v : j) visit(v, key);
    } else if (j.is_number_integer()) {
      const auto v = j.get<std::int64_t>();
      if (names_a_moment(key)) {
        instants.push_back(v);
      } else if ((key == "event" || ends_with(key, "_event")) && v >= 0 &&
                 v < static_cast<std::int64_t>(history.events.size())) {
        instants.push_back(history.events[static_cast<std::size_t>(v)].true_ns);
      }
    } else if (j.is_string()) {
      const auto& s = j.get_ref<const std::string&>();
      if (processes.count(s) || ((key == "process" || key == "client" || ends_with(key, "_by")) &&
                                 s.rfind("client-", 0) == 0))
        add_process(s);
    }
  }
};

}  // namespace

std::vector<ViolationFocus> violation_foci(const History& history, const nlohmann::json& verdict) {
  std::vector<ViolationFocus> out;
  if (!verdict.is_object() || !verdict.contains("checks") || !verdict["checks"].is_array())
    return out;
  std::set<std::string> processes;
  for (const auto& e : history.events)
    if (e.process != "world") processes.insert(e.process);
  const std::int64_t first_ns = history.events.empty() ? 0 : history.events.front().true_ns;
  const std::int64_t last_ns = history.events.empty() ? 0 : history.events.back().true_ns;

  for (const auto& check : verdict["checks"]) {
    if (!check.is_object() || check.value("status", "") != "violated") continue;
    ViolationFocus f;
    f.check = check.value("name", "");
    f.summary = check.value("summary", "");
    Walk walk{history, processes, {}, {}};
    if (check.contains("witness")) walk.visit(check["witness"], "");
    f.processes = walk.named;
    f.context_start_ns = first_ns;
    f.context_end_ns = last_ns;
    if (!walk.instants.empty()) {
      f.located = true;
      auto [lo, hi] = std::minmax_element(walk.instants.begin(), walk.instants.end());
      f.context_start_ns = std::clamp(*lo, first_ns, last_ns);
      f.context_end_ns = std::clamp(*hi, first_ns, last_ns);
    }
    const nlohmann::json& w = check.contains("witness") ? check["witness"] : nlohmann::json();
    if (w.is_object() && w.contains("heal_ns") && w["heal_ns"].is_number_integer()) f.context_end_ns = last_ns;
    f.core_start_ns = f.context_start_ns;
    f.core_end_ns = f.context_end_ns;
    if (w.is_object() && w.contains("overlap_start_ns") && w["overlap_start_ns"].is_number_integer()) {
      f.core_start_ns = w["overlap_start_ns"].get<std::int64_t>();
      f.core_end_ns = w.contains("overlap_end_ns") && w["overlap_end_ns"].is_number_integer()
                          ? w["overlap_end_ns"].get<std::int64_t>()
                          : last_ns;  // still overlapping when the history ends
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace lockstep::reports
