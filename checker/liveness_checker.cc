#include "lockstep/checker/liveness_checker.h"

#include <algorithm>
#include <map>

#include "lockstep/checker/mutex_checker.h"

namespace lockstep {

namespace {

struct Attempt {
  std::string process;
  std::int64_t invoke_ns = 0;
  std::int64_t invoke_event = 0;
  std::int64_t end_ns = -1;  // -1: still open
  bool ok = false;
  std::string outcome;
};

double seconds_of(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }

std::string fmt_s(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", seconds_of(ns));
  return buf;
}

}  // namespace

CheckResult check_liveness(const History& history, const LivenessOptions& options) {
  CheckResult r;
  r.name = "liveness";
  std::int64_t heal_ns = 0, end_ns = 0;
  for (const auto& e : history.events) {
    end_ns = std::max(end_ns, e.true_ns);
    if (e.kind == EventKind::fault) heal_ns = std::max(heal_ns, e.true_ns);
  }
  std::vector<Attempt> attempts;
  std::map<std::string, std::size_t> open;
  for (const auto& e : history.events) {
    if (e.op != "acquire" || e.args.value("reentrant", false)) {
      if (e.op == "acquire" && e.kind != EventKind::invoke) open.erase(e.process);
      continue;
    }
    if (e.kind == EventKind::invoke) {
      Attempt a;
      a.process = e.process;
      a.invoke_ns = e.true_ns;
      a.invoke_event = e.index;
      open[e.process] = attempts.size();
      attempts.push_back(a);
    } else if (auto it = open.find(e.process); it != open.end()) {
      Attempt& a = attempts[it->second];
      a.end_ns = e.true_ns;
      a.ok = e.kind == EventKind::ok;
      a.outcome = a.ok ? "ok" : e.result.value("error", event_kind_name(e.kind));
      open.erase(it);
    }
  }
  const auto holdings = believed_holding_intervals(history);

  std::int64_t after_heal = 0, granted_after_heal = 0, stuck = 0, missed = 0;
  nlohmann::json witness;
  std::string summary;
  bool late_attempts = false;
  for (const auto& a : attempts) {
    if (a.invoke_ns < heal_ns) continue;
    ++after_heal;
    if (a.ok) ++granted_after_heal;
    if (a.invoke_ns >= heal_ns + options.bound_ns) late_attempts = true;
    if (a.end_ns < 0 && end_ns - a.invoke_ns > options.bound_ns) {
      ++stuck;
      if (witness.empty()) {
        witness = {{"rule", "waits-for-ever"}, {"process", a.process},
                   {"invoke_ns", a.invoke_ns}, {"invoke_event", a.invoke_event}};
        summary = a.process + " has been waiting for the lock since " + fmt_s(a.invoke_ns) +
                  ", after every fault had healed at " + fmt_s(heal_ns);
      }
    }
    if (!a.ok) {
      // The longest stretch of the wait during which nobody believed it held the lock.
      const std::int64_t wait_end = a.end_ns < 0 ? end_ns : a.end_ns;
      std::int64_t cursor = a.invoke_ns, longest = 0, longest_start = a.invoke_ns;
      for (const auto& h : holdings) {
        if (h.end_ns <= cursor || h.start_ns >= wait_end) continue;
        if (h.start_ns > cursor && h.start_ns - cursor > longest) {
          longest = h.start_ns - cursor;
          longest_start = cursor;
        }
        cursor = std::max(cursor, std::min(h.end_ns, wait_end));
      }
      if (wait_end - cursor > longest) {
        longest = wait_end - cursor;
        longest_start = cursor;
      }
      if (longest >= options.idle_bound_ns) {
        ++missed;
        if (witness.empty()) {
          witness = {{"rule", "missed-wake-up"}, {"process", a.process},
                     {"invoke_ns", a.invoke_ns}, {"invoke_event", a.invoke_event},
                     {"idle_from_ns", longest_start}, {"idle_ns", longest},
                     {"outcome", a.outcome}};
          summary = a.process + " waited from " + fmt_s(a.invoke_ns) + " and gave up (" +
                    a.outcome + ") although nobody held the lock for " + fmt_s(longest) +
                    " from " + fmt_s(longest_start);
        }
      }
    }
  }
  const bool starved = late_attempts && granted_after_heal == 0;
  if (starved && witness.empty()) {
    witness = {{"rule", "never-granted-after-healing"}, {"heal_ns", heal_ns}};
    summary = "none of the " + std::to_string(after_heal) +
              " acquires tried after every fault had healed at " + fmt_s(heal_ns) + " succeeded";
  }
  r.figures = {{"healed_at_ns", heal_ns},
               {"acquires_after_healing", after_heal},
               {"granted_after_healing", granted_after_heal},
               {"waiting_for_ever", stuck},
               {"missed_wake_ups", missed},
               {"bound_ns", options.bound_ns},
               {"idle_bound_ns", options.idle_bound_ns},
               {"judged", end_ns - heal_ns >= options.bound_ns}};
  if (stuck > 0 || missed > 0 || starved) {
    r.status = CheckStatus::violated;
    r.witness = witness;
    r.summary = summary;
  } else {
    r.status = CheckStatus::ok;
    r.summary = end_ns - heal_ns >= options.bound_ns
                    ? "the lock kept being granted after faults healed (" +
                          std::to_string(granted_after_heal) + " of " +
                          std::to_string(after_heal) + " acquires)"
                    : "too little history after faults healed to judge starvation";
  }
  return r;
}

}  // namespace lockstep
