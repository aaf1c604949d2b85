#include "lockstep/checker/mutex_checker.h"

#include <algorithm>
#include <climits>
#include <map>

namespace lockstep {

std::vector<HoldingInterval> believed_holding_intervals(const History& history) {
  std::vector<HoldingInterval> done;
  std::map<std::string, HoldingInterval> open;      // by process
  std::map<std::string, std::string> invoked_mode;  // mode of an outstanding acquire
  std::map<std::string, int> depth;                 // reentrant holdings per process
  auto close = [&](const std::string& process, const HistoryEvent& e, const char* why) {
    auto it = open.find(process);
    if (it == open.end()) return;
    it->second.end_ns = e.true_ns;
    it->second.end_event = e.index;
    it->second.ended_by = why;
    done.push_back(std::move(it->second));
    open.erase(it);
    depth.erase(process);
  };
  for (const auto& e : history.events) {
    if (e.kind == EventKind::fault && e.op == "crash") {
      if (e.args.value("phase", "start") != "start") continue;
      if (e.args.contains("targets") && e.args["targets"].is_array()) {
        for (const auto& t : e.args["targets"])
          if (t.is_string()) close(t.get<std::string>(), e, "crash");
      } else {
        close(e.process, e, "crash");
      }
      continue;
    }
    if (e.op == "acquire" && e.kind == EventKind::invoke) {
      invoked_mode[e.process] = e.args.value("mode", "exclusive");
    } else if (e.op == "acquire" && e.kind == EventKind::ok) {
      HoldingInterval h;
      h.process = e.process;
      h.shared = invoked_mode[e.process] == "shared";
      h.start_ns = e.true_ns;
      h.start_event = e.index;
      h.end_ns = INT64_MAX;
      h.ended_by = "end-of-history";
      // A reentrant acquire by a holder extends the holding it already has.
      if (!open.count(e.process)) open[e.process] = h;
      ++depth[e.process];
    } else if (e.op == "release" && e.kind == EventKind::invoke) {
      // The belief ends with the release of the outermost holding.
      if (--depth[e.process] <= 0) close(e.process, e, "release");
    }
  }
  for (auto& [process, h] : open) done.push_back(std::move(h));
  std::sort(done.begin(), done.end(), [](const HoldingInterval& a, const HoldingInterval& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.start_event < b.start_event;
  });
  return done;
}

namespace {
nlohmann::json interval_json(const HoldingInterval& h) {
  nlohmann::json j = {{"process", h.process},
                      {"mode", h.shared ? "shared" : "exclusive"},
                      {"start_ns", h.start_ns},
                      {"start_event", h.start_event},
                      {"ended_by", h.ended_by}};
  if (h.end_ns != INT64_MAX) {
    j["end_ns"] = h.end_ns;
    j["end_event"] = h.end_event;
  }
  return j;
}
}  // namespace

CheckResult check_mutual_exclusion(const History& history) {
  CheckResult r;
  r.name = "mutex";
  const auto intervals = believed_holding_intervals(history);
  std::int64_t indeterminate = 0, acquired = 0;
  for (const auto& e : history.events) {
    if (e.op != "acquire") continue;
    if (e.kind == EventKind::info) ++indeterminate;
    if (e.kind == EventKind::ok) ++acquired;
  }
  r.figures["holdings"] = static_cast<std::int64_t>(intervals.size());
  r.figures["acquires_ok"] = acquired;
  r.figures["acquires_indeterminate"] = indeterminate;

  // Sweep in start order; `active` holds intervals that may still overlap later ones.
  std::int64_t overlaps = 0;
  std::vector<const HoldingInterval*> active;
  nlohmann::json first_witness;
  std::int64_t worst_overlap_ns = 0;
  for (const auto& h : intervals) {
    active.erase(std::remove_if(active.begin(), active.end(),
                                [&](const HoldingInterval* a) { return a->end_ns < h.start_ns; }),
                 active.end());
    for (const HoldingInterval* a : active) {
      if (a->process == h.process || (a->shared && h.shared)) continue;
      ++overlaps;
      const std::int64_t overlap_end = std::min(a->end_ns, h.end_ns);
      const std::int64_t overlap_ns =
          overlap_end == INT64_MAX ? INT64_MAX : overlap_end - h.start_ns;
      worst_overlap_ns = std::max(worst_overlap_ns, overlap_ns);
      if (first_witness.empty()) {
        first_witness = {{"earlier", interval_json(*a)},
                         {"later", interval_json(h)},
                         {"overlap_start_ns", h.start_ns}};
        if (overlap_end != INT64_MAX) first_witness["overlap_end_ns"] = overlap_end;
      }
    }
    active.push_back(&h);
  }
  r.figures["overlaps"] = overlaps;
  if (overlaps == 0) {
    r.status = CheckStatus::ok;
    r.summary = "no two clients believed they held the lock at the same time (" +
                std::to_string(intervals.size()) + " holdings)";
  } else {
    r.status = CheckStatus::violated;
    r.figures["longest_overlap_ns"] = worst_overlap_ns;
    r.witness = first_witness;
    r.summary = first_witness["later"]["process"].get<std::string>() +
                " acquired the lock while " +
                first_witness["earlier"]["process"].get<std::string>() +
                " still believed it held it (" + std::to_string(overlaps) + " overlaps)";
  }
  return r;
}

}  // namespace lockstep
