#include "lockstep/reports/request_way.h"

#include <algorithm>

#include "lockstep/reports/causes.h"
#include "lockstep/reports/elections.h"
#include "lockstep/reports/explain_parts.h"
#include "lockstep/reports/report_text.h"

namespace lockstep::reports {

namespace {

// A leg at least this long is told even when no fault held it (a member without a leader).
constexpr std::int64_t kHeldLegNs = 100'000'000;
// An entry not committed within this (a round trip takes a few milliseconds) was held from its
// majority.
constexpr std::int64_t kHeldCommitNs = 20'000'000;
// A pause or crash that ended this shortly before a member's step is what it waited for.
constexpr std::int64_t kWokeSlackNs = 5'000'000;

// The leadership of `member` at `at_ns`, or nullptr.
const LeaderTerm* leading_at(const RunFacts& facts, const std::string& member, std::int64_t at_ns) {
  for (const auto& t : facts.truth().leaders)
    if (t.member == member && t.start_ns <= at_ns && (t.end_ns == kStillOpen || at_ns < t.end_ns)) return &t;
  return nullptr;
}

bool stops_member(const FaultBand& f) { return f.kind == "pause" || f.kind == "crash"; }
bool on_links(const FaultBand& f) {
  // A reorder fault delays each message by up to its window.
  return (f.kind == "partition" || f.kind == "delay" || f.kind == "loss" || f.kind == "reorder") && !f.processes.empty();
}
std::int64_t end_of(const RunFacts& facts, const FaultBand& f) { return f.open_end ? facts.end_ns() : f.end_ns; }

// The end of the log leg's wait for a majority: the leader's step-down, else the applying.
std::int64_t commit_wait_end(const RunFacts& facts, const RequestLeg& leg) {
  const LeaderTerm* t = leading_at(facts, leg.member, leg.from_ns);
  return t != nullptr && t->end_ns != kStillOpen && t->end_ns < leg.to_ns ? t->end_ns : leg.to_ns;
}

// ", when its pause ended" when a pause or crash of `member` ended just before `at_ns`.
std::string woke_words(const RunFacts& facts, const std::string& member, std::int64_t at_ns) {
  for (const auto& f : facts.faults())
    if (stops_member(f) && !f.open_end && f.hits(member) && f.end_ns <= at_ns && at_ns - f.end_ns <= kWokeSlackNs)
      return f.kind == "pause" ? ", when its pause ended" : ", when it restarted after its crash";
  return "";
}

// "it had stepped down at 23.200 s, on seeing term 2 in member-1's append": the last step-down
// `member` recorded within [from_ns, to_ns], or "".
std::string own_step_down_words(const RunFacts& facts, const std::string& member, std::int64_t from_ns,
                                std::int64_t to_ns) {
  const HistoryEvent* down = nullptr;
  for (const HistoryEvent& e : facts.history().events) {
    if (e.true_ns > to_ns) break;
    if (e.true_ns >= from_ns && e.kind == EventKind::truth && e.op == "leader-stepped-down" && e.process == member &&
        e.args.is_object())
      down = &e;
  }
  if (down == nullptr) return "";
  const std::string s = "it had stepped down at " + format_seconds(down->true_ns);
  if (text_of(down->args, "reason") == "check-quorum") return s + " by check-quorum";
  const std::string why = higher_term_words(*down);
  return why.empty() ? s : s + ", " + why;
}

}  // namespace

std::vector<RequestLeg> request_legs(const RunFacts& facts, const ChangeCause& by, std::int64_t applied_ns) {
  const std::vector<const RequestStep*> steps = facts.request_steps(by);
  if (steps.empty() || by.sent_ns < 0) return {};
  std::vector<RequestLeg> legs;
  // A lock service's request goes to its own member in process: no link carried it there.
  RequestLeg leg{by.member, by.lock_service.empty() ? by.client : std::string(), by.sent_ns, by.sent_ns, 0, nullptr, false};
  for (const RequestStep* step : steps) {
    // A step by another member than the one holding it, or after the append: more than one
    // copy went its way (a duplicated message). The way is not one line: say nothing of it.
    if (step->member != leg.member || leg.in_log || step->at_ns < leg.from_ns || step->at_ns > applied_ns) return {};
    leg.to_ns = step->at_ns;
    leg.out = step;
    legs.push_back(leg);
    leg = step->appended() ? RequestLeg{step->member, "", step->at_ns, step->at_ns, applied_ns, nullptr, true}
                           : RequestLeg{step->to, step->member, step->at_ns, step->at_ns, 0, nullptr, false};
  }
  // Applied without a recorded append: the record is incomplete.
  if (!leg.in_log) return {};
  legs.push_back(leg);
  // A cut link that held it delivered it late: its member had it only from then.
  for (RequestLeg& l : legs) {
    l.reached_ns = l.from_ns;
    if (l.sender.empty()) continue;
    if (const LinkEvent* hold = link_hold_of(facts, l.sender, l.member, l.from_ns);
        hold != nullptr && !hold->dead && hold->at_ns <= l.to_ns)
      l.reached_ns = std::max(l.from_ns, hold->at_ns);
  }
  return legs;
}

std::vector<const FaultBand*> faults_on_legs(const RunFacts& facts, const std::vector<RequestLeg>& legs) {
  std::vector<const FaultBand*> held;
  for (const auto& f : facts.faults()) {
    const std::int64_t end = end_of(facts, f);
    bool holds = false;
    for (const RequestLeg& leg : legs) {
      if (leg.in_log) {
        // Until committed, the entry needs a majority: the leader and the members it
        // replicates to, over the links between them.
        // A wait of a round trip is replication's own pace; only a longer one was held.
        const std::int64_t wait_end = commit_wait_end(facts, leg);
        if (wait_end - leg.from_ns < kHeldCommitNs || f.start_ns >= wait_end || end <= leg.from_ns) continue;
        // A delay adds its amount to each message sent after it began: one that began too late
        // for any message it delayed to arrive before the wait ended held nothing of it.
        if (f.kind == "delay" && f.start_ns + int_of(f.args, "amount_ms") * 1'000'000 >= wait_end) continue;
        const auto other_member = [&](const std::string& p) { return p != leg.member && is_member(p); };
        if (stops_member(f)) holds = holds || f.hits(leg.member) || std::any_of(f.processes.begin(), f.processes.end(), other_member);
        else if (on_links(f))
          for (const std::string& p : f.processes)
            holds = holds || (other_member(p) && (f.on_link(leg.member, p) || f.on_link(p, leg.member)));
        continue;
      }
      // The member that had it was stopped while it did.
      if (stops_member(f) && f.hits(leg.member) && f.start_ns < leg.to_ns && end > leg.reached_ns) holds = true;
      // Its link held it: the fault was on when it was sent there.
      if (on_links(f) && !leg.sender.empty() && f.on_link(leg.sender, leg.member) && f.start_ns <= leg.from_ns &&
          end > leg.from_ns)
        holds = true;
    }
    if (holds) held.push_back(&f);
  }
  return held;
}

std::string request_way_words(const RunFacts& facts, const std::vector<RequestLeg>& legs, std::int64_t applied_ns,
                              bool held) {
  if (legs.empty()) return "";
  // One quick step (appended at once by the member it was sent to) says nothing new.
  const bool long_leg = std::any_of(legs.begin(), legs.end(), [](const RequestLeg& l) {
    return !l.in_log && l.to_ns - l.from_ns >= kHeldLegNs;
  });
  const RequestLeg& log_leg = legs.back();
  const LeaderTerm* appender = leading_at(facts, log_leg.member, log_leg.from_ns);
  // Its leadership ended before the entry was applied (a step-down that says the entry was
  // already committed is not this case).
  bool stepped_down = appender != nullptr && appender->end_ns != kStillOpen && appender->end_ns < applied_ns;
  if (const HistoryEvent* down = stepped_down ? facts.event(appender->stepped_down_event) : nullptr;
      down != nullptr && down->args.is_object() && down->args.contains("commit_index") &&
      int_of(down->args, "commit_index") >= legs[legs.size() - 2].out->index)
    stepped_down = false;
  if (!held && !long_leg && !stepped_down) return "";
  std::vector<std::string> parts;
  for (const RequestLeg& leg : legs) {
    if (leg.out == nullptr) break;
    const RequestStep& step = *leg.out;
    // A member holds what it cannot serve while it knows no leader: say so where it did.
    if (leg.to_ns - leg.reached_ns >= kHeldLegNs)
      if (std::string alone = member_without_leader_words(facts, leg.member, leg.reached_ns, leg.to_ns, kHeldLegNs);
          !alone.empty())
        parts.push_back(alone + kHeldWithoutLeader);
    std::string s = leg.member + (step.appended() ? " appended it as entry " + std::to_string(step.index) + " of term " +
                                                        std::to_string(step.term)
                                                  : " passed it on to " + step.to + ", the leader it knew,") +
                    " at " + format_seconds(step.at_ns) + woke_words(facts, leg.member, step.at_ns);
    // It had been the leader the request was passed on to, and was deposed meanwhile.
    if (!step.appended())
      if (const std::string down = own_step_down_words(facts, leg.member, leg.from_ns, step.at_ns); !down.empty())
        s += " (" + down + ")";
    parts.push_back(std::move(s));
  }
  if (stepped_down) {
    // Its own step-down, when recorded; else its crash, or the newer leader's election that
    // ended its term.
    const HistoryEvent* down = facts.event(appender->stepped_down_event);
    const bool crashed = std::any_of(facts.faults().begin(), facts.faults().end(), [&](const FaultBand& f) {
      return f.kind == "crash" && f.hits(appender->member) && f.start_ns == appender->end_ns;
    });
    const bool succeeded = std::any_of(facts.truth().leaders.begin(), facts.truth().leaders.end(),
                                       [&](const LeaderTerm& t) { return t.term > appender->term && t.start_ns == appender->end_ns; });
    std::string s = down != nullptr ? "and stepped down at " + format_seconds(appender->end_ns) + " before committing it"
                    : crashed       ? "and crashed at " + format_seconds(appender->end_ns) + " before committing it"
                    : succeeded     ? "and lost the lead before committing it (a newer leader was elected at " +
                                          format_seconds(appender->end_ns) + ")"
                                    : "and lost the lead at " + format_seconds(appender->end_ns) + " before committing it";
    if (down != nullptr && down->args.is_object() && down->args.contains("commit_index"))
      s += " (it had committed up to entry " + std::to_string(int_of(down->args, "commit_index")) + ")";
    parts.back() += ", " + s;
    // The leader that committed it in the end: its entry outlived the step-down.
    for (const auto& t : facts.truth().leaders)
      if (&t != appender && t.start_ns <= applied_ns && (t.end_ns == kStillOpen || applied_ns <= t.end_ns)) {
        parts.push_back(t.member + " committed it as leader of term " + std::to_string(t.term) + ", elected at " +
                        format_seconds(t.start_ns));
        break;
      }
  }
  std::string s = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) s += "; " + parts[i];
  return s;
}

}  // namespace lockstep::reports
