// Who held the lock while a waiter waited, and what stretched each hold (see explain_parts.h).
#include <algorithm>

#include "lockstep/reports/explain_parts.h"
#include "lockstep/reports/report_text.h"

namespace lockstep::reports {

std::string hold_words(const RunFacts& facts, const HoldingInterval& h, std::int64_t until_ns,
                       std::vector<const FaultBand*>& named) {
  const std::int64_t end_ns = std::min<std::int64_t>(h.end_ns, facts.end_ns());
  std::string s = h.process + " held the lock from " + format_seconds(h.start_ns) +
                  (h.end_ns >= facts.end_ns() ? std::string(" to the end of the history") : " to " + format_seconds(h.end_ns));
  const std::int64_t window_end_ns = std::min(end_ns, until_ns);
  // The faults on the holder, the resource's own stops, and faults on the holder's link to the
  // resource (another client's cut that lists the resource held nothing of this hold).
  std::vector<const FaultBand*> during = facts.faults_hitting(h.process, h.start_ns, window_end_ns);
  std::vector<const FaultBand*> resource_down;
  for (const FaultBand* f : facts.faults_hitting("resource", h.start_ns, window_end_ns)) {
    const bool link = f->args.contains("from") || f->args.contains("to");
    if (link && !f->on_link(h.process, "resource") && !f->on_link("resource", h.process)) continue;
    if (!link) resource_down.push_back(f);
    if (std::find(during.begin(), during.end(), f) == during.end()) during.push_back(f);
  }
  // The longest operation of the hold, when it took a second or more: what stretched it.
  const HistoryEvent* longest = nullptr;
  const HistoryEvent* longest_end = nullptr;  // its completion, or nullptr: still open
  std::int64_t longest_ns = 1'000'000'000 - 1;
  for (std::size_t i = static_cast<std::size_t>(std::max<std::int64_t>(h.start_event, 0)); i < facts.history().events.size(); ++i) {
    const HistoryEvent& e = facts.history().events[i];
    if (e.true_ns > end_ns) break;
    if (e.kind != EventKind::invoke || e.process != h.process || e.op == "acquire" || e.op == "release") continue;
    const HistoryEvent* done = facts.completion_of(static_cast<std::int64_t>(i));
    if (const std::int64_t took_ns = (done != nullptr ? done->true_ns : end_ns) - e.true_ns; took_ns > longest_ns) {
      longest = &e;
      longest_end = done;
      longest_ns = took_ns;
    }
  }
  std::string leaderless;
  if (longest != nullptr) {
    const bool of_resource = longest->op == "read" || longest->op == "write";
    s += ": its " + longest->op + (of_resource ? " of the resource" : "") + ", invoked at " + format_seconds(longest->true_ns);
    if (of_resource && std::any_of(resource_down.begin(), resource_down.end(), [&](const FaultBand* f) {
          return f->start_ns <= longest->true_ns && (f->open_end || f->end_ns > longest->true_ns);
        }))
      s += " while the resource was down";
    if (longest_end == nullptr) s += ", was still open at the end of the history";
    else if (longest_end->kind == EventKind::info && ended_by_timeout(*longest_end))
      s += ", went unanswered until its timeout at " + format_seconds(longest_end->true_ns);
    else if (const std::string error = text_of(longest_end->result, "error"); longest_end->kind == EventKind::info)
      s += ", ended indeterminate" + (error.empty() ? std::string() : " (" + error + ")") + " at " +
           format_seconds(longest_end->true_ns);
    else s += ", ended " + std::string(event_kind_name(longest_end->kind)) + " at " + format_seconds(longest_end->true_ns);
    // What stretched it is what acted on its way, not every fault on the holder then.
    const std::int64_t op_end_ns = longest_end != nullptr ? longest_end->true_ns : end_ns;
    during = faults_on_way(facts, *longest, op_end_ns);
    if (std::any_of(facts.calls().begin(), facts.calls().end(),
                    [&](const CallRecord& c) { return c.invoke == longest->index; }))
      leaderless = leaderless_words(facts, longest->true_ns, op_end_ns, 100'000'000);
  }
  // A lease-drop loses keep-alives and a duplicate adds a copy: neither holds an operation up.
  std::erase_if(during, [&](const FaultBand* f) {
    return f->kind == "lease-drop" || f->kind == "duplicate" || std::find(named.begin(), named.end(), f) != named.end();
  });
  named.insert(named.end(), during.begin(), during.end());
  std::string why = during.empty() ? std::string() : fault_clauses(during, 3);
  if (!leaderless.empty()) why += (why.empty() ? "" : "; ") + leaderless;
  if (!why.empty()) s += (longest != nullptr ? " (" : ", while ") + why + (longest != nullptr ? ")" : "");
  return s;
}

std::string holds_in_wait_words(const RunFacts& facts, const KeyLifetime& ahead, const std::string& waiter,
                                std::int64_t key_start_ns, std::int64_t wait_end_ns) {
  const std::string whose = key_made_for(ahead);
  std::string s;
  // Who held the lock in the waiter's time, and what stretched each hold: the key's owner from
  // its key on; others' holds of a second or more (a hold of the usual length is not what made
  // the wait run out).
  std::vector<const FaultBand*> named;
  std::vector<std::string> holds;
  bool owner_held = false;
  for (const HoldingInterval& h : facts.holdings()) {
    if (h.process == waiter || h.end_ns < key_start_ns || h.start_ns > wait_end_ns) continue;
    const bool owners = h.process == ahead.owner && h.start_ns >= ahead.start_ns;
    if (!owners && (h.process == ahead.owner || std::min(h.end_ns, facts.end_ns()) - h.start_ns < 1'000'000'000)) continue;
    owner_held = owner_held || owners;
    if (holds.size() == 4) break;
    holds.push_back(hold_words(facts, h, wait_end_ns, named));
  }
  if (!holds.empty()) s += "; in its wait, " + join_words(holds);
  // An owner that never held the lock in that time was waiting itself.
  if (!owner_held && !whose.empty())
    for (const HistoryEvent& e : facts.history().events) {
      if (e.true_ns > wait_end_ns) break;
      if (e.kind != EventKind::invoke || e.op != "acquire" || e.process != whose || e.true_ns > ahead.start_ns) continue;
      const HistoryEvent* done = facts.completion_of(e.index);
      if (done != nullptr && done->true_ns <= wait_end_ns) continue;
      s += "; " + whose + " did not hold the lock then: its own acquire, invoked at " + format_seconds(e.true_ns) +
           ", was still waiting" +
           (done == nullptr ? std::string()
                            : " (it ended " + std::string(event_kind_name(done->kind)) + " at " + format_seconds(done->true_ns) + ")");
      break;  // a client has one acquire open at a time
    }
  return s;
}

}  // namespace lockstep::reports
