#include "lockstep/reports/elections.h"

#include <algorithm>
#include <limits>
#include <set>

#include "lockstep/reports/causes.h"
#include "lockstep/reports/explain_parts.h"
#include "lockstep/reports/report_text.h"

namespace lockstep::reports {

namespace {

// Whether link fault `f` (a cut, a delay or a loss) acted on messages from `sender` to
// `receiver`: a delay or loss that a cut of the same link held for the whole time it lasted
// acted on none (the cut held them all), so it kept nothing from anyone.
bool acts_on_link(const RunFacts& facts, const FaultBand& f, const std::string& sender, const std::string& receiver) {
  if (!f.on_link(sender, receiver)) return false;
  if (f.kind == "partition") return true;
  const std::int64_t f_end = f.open_end ? facts.end_ns() : f.end_ns;
  return std::none_of(facts.faults().begin(), facts.faults().end(), [&](const FaultBand& cut) {
    const std::int64_t cut_end = cut.open_end ? facts.end_ns() : cut.end_ns;
    return cut.kind == "partition" && cut.start_ns <= f.start_ns && cut_end >= f_end && cut.on_link(sender, receiver);
  });
}

std::string times_words(std::size_t n) {
  return n == 1 ? "once" : n == 2 ? "twice" : std::to_string(n) + " times";
}

// "once at 4.598 s (term 2)", "4 times from 20.108 s to 25.054 s (terms 2 to 5)": `cs` (one
// member's campaigns, in time order, at least one).
std::string campaign_span_words(const std::vector<const Campaign*>& cs) {
  const Campaign& first = *cs.front();
  const Campaign& last = *cs.back();
  return times_words(cs.size()) +
         (cs.size() == 1 ? " at " + format_seconds(first.at_ns) + " (term " + std::to_string(first.term) + ")"
                         : " from " + format_seconds(first.at_ns) + " to " + format_seconds(last.at_ns) + " (terms " +
                               std::to_string(first.term) + " to " + std::to_string(last.term) + ")");
}

}  // namespace

std::vector<std::pair<std::int64_t, std::int64_t>> whole_leaderless_spans(const RunFacts& facts,
                                                                          std::int64_t from_ns, std::int64_t to_ns,
                                                                          std::int64_t min_ns) {
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  const auto whole = facts.leaderless(0, facts.end_ns(), 0);
  for (const auto& [a, b] : facts.leaderless(from_ns, to_ns, std::max<std::int64_t>(min_ns, 1))) {
    std::pair<std::int64_t, std::int64_t> span{a, b};
    for (const auto& [whole_a, whole_b] : whole)
      if (whole_a <= a && b <= whole_b) span = {whole_a, whole_b};
    if (std::find(spans.begin(), spans.end(), span) == spans.end()) spans.push_back(span);
  }
  return spans;
}

std::string higher_term_words(const HistoryEvent& step_down) {
  const std::string from = member_of(step_down.args, "from");
  if (text_of(step_down.args, "reason") != "higher-term" || from.empty()) return "";
  return "on seeing term " + std::to_string(int_of(step_down.args, "new_term")) + " in " + from + "'s " +
         text_of(step_down.args, "message", "message");
}

namespace {

// Adds to `named` the faults a clause of fault_clauses(faults, max_count) says, not those it
// leaves in "and 2 more faults": a later clause may still say them.
void name_shown(std::vector<const FaultBand*>* named, const std::vector<const FaultBand*>& faults,
                std::size_t max_count) {
  if (named == nullptr) return;
  named->insert(named->end(), faults.begin(),
                faults.begin() + static_cast<std::ptrdiff_t>(std::min(faults.size(), max_count)));
}

}  // namespace

std::string step_down_words(const RunFacts& facts, const LeaderTerm& term, std::vector<const FaultBand*>* named) {
  const HistoryEvent* e = facts.event(term.stepped_down_event);
  if (e == nullptr || !e->args.is_object()) return "";
  const std::string reason = text_of(e->args, "reason");
  const std::string at = format_seconds(e->true_ns);
  if (reason == "check-quorum") {
    std::string s = term.member + " stepped down at " + at +
                    ": it had heard from no majority of the members within an election timeout (check-quorum)";
    // What kept the others' answers from it: within the last two election timeouts (the check
    // counts since the one before), a pause or crash of it or of another member, or a fault on
    // the links between it and the others.
    const std::int64_t timeout_ns = int_of(facts.history().header.meta, "election_timeout_ms", 1000) * 1'000'000;
    std::vector<std::pair<const FaultBand*, std::size_t>> kept;  // with how many members it kept away
    for (const auto& f : facts.faults()) {
      const std::int64_t end = f.open_end ? facts.end_ns() : f.end_ns;
      if (f.start_ns > e->true_ns || end < e->true_ns - 2 * timeout_ns || end < term.start_ns) continue;
      std::size_t reach = 0;
      if (f.kind == "pause" || f.kind == "crash") {
        reach = f.hits(term.member) ? facts.members().size()
                                    : static_cast<std::size_t>(std::count_if(f.processes.begin(), f.processes.end(), is_member));
      } else if ((f.kind == "partition" || f.kind == "delay" || f.kind == "loss") && !f.processes.empty()) {
        for (const std::string& m : facts.members())
          reach += m != term.member && (acts_on_link(facts, f, term.member, m) || acts_on_link(facts, f, m, term.member)) ? 1 : 0;
      }
      if (reach > 0) kept.emplace_back(&f, reach);
    }
    // Those that kept the most members' answers away first: a cut from every other member
    // explains the step-down by itself.
    std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<const FaultBand*> faults;
    for (const auto& k : kept) faults.push_back(k.first);
    name_shown(named, faults, 3);
    return faults.empty() ? s : s + ": " + fault_clauses(faults, 3);
  }
  const auto from_index = e->args.find("from");
  if (from_index == e->args.end() || !from_index->is_number_integer()) return "";
  const std::string from = "member-" + std::to_string(from_index->get<std::int64_t>());
  if (reason == "hand-over") return term.member + " handed its leadership over to " + from + " at " + at;
  if (reason != "higher-term") return "";
  std::string s = term.member + " stepped down at " + at + " " + higher_term_words(*e);
  // How the other member's term got ahead: it campaigned meanwhile.
  std::vector<const Campaign*> ahead;
  const std::int64_t seen_term = int_of(e->args, "new_term");
  for (const Campaign& c : facts.campaigns())
    if (c.member == from && c.at_ns >= term.start_ns && c.at_ns <= e->true_ns && (seen_term == 0 || c.term <= seen_term))
      ahead.push_back(&c);
  // Why the other member's term was newer: it could not hear this leader (cut off, paused,
  // crashed), so it campaigned. With its campaigns known, only what was active in the two
  // election timeouts (its longest randomized timeout) before the first of them, or later: a
  // fault over by then had let it hear the leader again (heartbeats come every 100 ms), so it
  // did not make these campaigns.
  const std::int64_t timeout_ns = int_of(facts.history().header.meta, "election_timeout_ms", 1000) * 1'000'000;
  const std::int64_t kept_from_ns = ahead.empty() ? term.start_ns : ahead.front()->at_ns - 2 * timeout_ns;
  std::vector<std::string> context;
  std::vector<const FaultBand*> cut_off;
  for (const auto& f : facts.faults()) {
    const std::int64_t end = f.open_end ? facts.end_ns() : f.end_ns;
    // Within the term, and not long before the step-down: once a fault ends, the news of the
    // newer term comes within a retransmission or a new connection.
    if (f.start_ns > e->true_ns || end < term.start_ns || end < kept_from_ns || e->true_ns - end > 10'000'000'000)
      continue;
    if (f.kind == "duplicate" || f.kind == "reorder" || f.kind == "lease-drop" || f.kind == "leader-change") continue;
    // Only what kept that member from hearing this leader, so that it campaigned: a pause,
    // crash or clock fault of either, or a fault on the link between the two (another
    // member's cut, or a client's that lists them, does not).
    const bool link = f.args.contains("from") || f.args.contains("to");
    if (link ? acts_on_link(facts, f, term.member, from) || acts_on_link(facts, f, from, term.member)
             : f.hits(from) || f.hits(term.member))
      cut_off.push_back(&f);
  }
  if (!cut_off.empty()) context.push_back(fault_clauses(cut_off, 3));
  name_shown(named, cut_off, 3);
  if (!ahead.empty()) {
    std::string campaigned = from + " had campaigned " + campaign_span_words(ahead);
    // A hand-over's campaign (etcd's TimeoutNow) is not one of a member that lost its leader:
    // the leader-change fault that ordered it is why.
    const auto forced = std::find_if(ahead.begin(), ahead.end(), [](const Campaign* c) { return c->forced; });
    const FaultBand* order = nullptr;
    if (forced != ahead.end())
      for (const auto& f : facts.faults())
        if (f.kind == "leader-change" && member_of(f.args, "to_member") == from && f.start_ns <= (*forced)->at_ns)
          order = &f;
    if (order != nullptr) {
      campaigned += std::string(ahead.size() == 1 ? ", a hand-over's campaign: " : ", one of them a hand-over's: ") +
                    fault_clauses({order}, 1);
      if (named != nullptr) named->push_back(order);
    }
    context.push_back(campaigned);
  }
  // The message that carried the news came late: in what a cut link held, released at TCP's
  // retransmission; or just after a link between them was declared dead (a new connection).
  for (auto it = facts.link_events().rbegin(); it != facts.link_events().rend(); ++it) {
    const LinkEvent& l = *it;
    if (l.at_ns > e->true_ns) continue;
    if (e->true_ns - l.at_ns > 1'000'000'000) break;
    const bool between = (l.from == from && l.to == term.member) || (l.from == term.member && l.to == from);
    if (!between) continue;
    if (l.dead) {
      context.push_back("the connection from " + l.from + " to " + l.to + ", holding " + l.from + "'s messages since " +
                        format_seconds(l.held_since_ns) + ", was declared dead at " + format_seconds(l.at_ns));
    } else if (l.from == from && l.read_ns == e->true_ns) {
      context.push_back("the " + text_of(e->args, "message", "message") + " came with what the link from " +
                        l.from + " to " + l.to + " had held since " + format_seconds(l.held_since_ns) +
                        ", released at TCP's retransmission at " + format_seconds(l.at_ns));
    } else if (l.from == term.member) {
      // The leader's own messages reached the other member late; its answer carried the news.
      context.push_back(l.from + "'s messages to " + l.to + ", held since " + format_seconds(l.held_since_ns) +
                        ", got through at TCP's retransmission at " + format_seconds(l.at_ns));
    } else {
      continue;
    }
    break;
  }
  return context.empty() ? s : s + ": " + join_words(context);
}

namespace {

constexpr std::int64_t kSlowElectionNs = 3'000'000'000;

// "one", "two", ... "ten", then digits: a count in a sentence full of member numbers.
std::string number_word(std::size_t n) {
  static const char* const kWords[] = {"none", "one", "two", "three", "four", "five",
                                       "six", "seven", "eight", "nine", "ten"};
  return n < std::size(kWords) ? kWords[n] : std::to_string(n);
}

// The link release that brought `v`'s vote request late: the candidate's messages to the voter,
// held by a cut, read by the voter at the refusal. nullptr when it came on time.
const LinkEvent* late_request_of(const RunFacts& facts, const VoteRefusal& v) {
  for (const LinkEvent& l : facts.link_events())
    if (!l.dead && l.from == v.candidate && l.to == v.member && l.read_ns == v.at_ns) return &l;
  return nullptr;
}

// When `c` was decided: its candidate's next campaign (an election timeout without a majority),
// or else `to_ns`. A refusal recorded later (a paused voter reading the request when it resumed)
// is not why that campaign failed.
std::int64_t campaign_decided_ns(const RunFacts& facts, const Campaign& c, std::int64_t to_ns) {
  for (const Campaign& next : facts.campaigns())
    if (next.member == c.member && next.term > c.term && next.at_ns >= c.at_ns) return std::min(next.at_ns, to_ns);
  return to_ns;
}

// A span in which `member` was paused (or down): its pauses (or crashes) that overlap or touch
// are one span, a crash inside a longer one say.
struct StopSpan {
  bool paused = false;  // else down (crashed)
  std::int64_t from_ns = 0;
  std::int64_t to_ns = 0;  // INT64_MAX: it never ended
};

std::vector<StopSpan> stop_spans(const RunFacts& facts, const std::string& member) {
  std::vector<StopSpan> spans;
  for (const FaultBand& f : facts.faults()) {  // in start order: a joining fault meets an earlier span
    if ((f.kind != "pause" && f.kind != "crash") || !f.hits(member)) continue;
    const bool paused = f.kind == "pause";
    const std::int64_t end = f.open_end ? std::numeric_limits<std::int64_t>::max() : f.end_ns;
    const auto joined = std::find_if(spans.begin(), spans.end(), [&](const StopSpan& s) {
      return s.paused == paused && f.start_ns <= s.to_ns && end >= s.from_ns;
    });
    if (joined == spans.end()) {
      spans.push_back({paused, f.start_ns, end});
    } else {
      joined->from_ns = std::min(joined->from_ns, f.start_ns);
      joined->to_ns = std::max(joined->to_ns, end);
    }
  }
  // Pauses first: where a pause and a crash both held a campaign, the pause is said.
  std::stable_partition(spans.begin(), spans.end(), [](const StopSpan& s) { return s.paused; });
  return spans;
}

// "member-1 refused all 5 because member-2's log was behind its own (...)": what `voter` did
// with the vote requests of `candidate`'s `campaigns` (one request a campaign), from its
// recorded refusals, or "" when it refused none. One clause, its reasons listed with commas.
std::string refusal_words(const RunFacts& facts, const std::string& voter, const std::string& candidate,
                          const std::vector<const Campaign*>& campaigns, std::int64_t from_ns, std::int64_t to_ns) {
  std::vector<std::string> reasons;
  for (const char* reason : {"leader-lease", "stale-term", "log-behind", "voted"}) {
    // One refusal per campaign: a duplicated vote request (a `duplicate` fault) is refused once
    // per copy, but it is one request; its first refusal stands for it.
    std::vector<const VoteRefusal*> mine;
    for (const VoteRefusal& v : facts.vote_refusals())
      if (v.member == voter && v.candidate == candidate && v.reason == reason && v.at_ns >= from_ns &&
          v.at_ns <= to_ns &&
          std::any_of(campaigns.begin(), campaigns.end(),
                      [&](const Campaign* c) { return c->term == v.term && v.at_ns <= campaign_decided_ns(facts, *c, to_ns); }) &&
          std::none_of(mine.begin(), mine.end(), [&](const VoteRefusal* m) { return m->term == v.term; }))
        mine.push_back(&v);
    if (mine.empty()) continue;
    const std::string how_many =
        mine.size() == campaigns.size()
            ? (mine.size() == 1 ? std::string("it") : mine.size() == 2 ? std::string("both") : "all " + number_word(mine.size()))
            : number_word(mine.size());
    const VoteRefusal& last = *mine.back();
    const std::string_view r = reason;
    // Requests that came late, with what a cut link had held: why they found the voter so.
    std::size_t late = 0;
    const LinkEvent* first_late = nullptr;
    const VoteRefusal* first_late_refusal = nullptr;
    for (const VoteRefusal* v : mine)
      if (const LinkEvent* l = late_request_of(facts, *v); l != nullptr && late++ == 0) {
        first_late = l;
        first_late_refusal = v;
      }
    const std::string late_note =
        first_late == nullptr
            ? std::string()
            : (late == mine.size() ? std::string(mine.size() == 1 ? "it" : mine.size() == 2 ? "both" : "all")
                                   : number_word(late)) +
                  " came only at " + format_seconds(first_late_refusal->at_ns) + (late > 1 ? " or later" : "") +
                  ", with what the link from " + candidate + " to " + voter + " had held since " +
                  format_seconds(first_late->held_since_ns);
    std::string s;
    if (r == "log-behind") {
      // Logs do not change while no member leads, so the last refusal's entries stand for all.
      s = "refused " + how_many + " because " + candidate + "'s log was behind its own (last entries: index " +
          std::to_string(last.candidate_last_index) + " of term " + std::to_string(last.candidate_last_term) +
          " against index " + std::to_string(last.last_index) + " of term " + std::to_string(last.last_term);
      const auto adopted = static_cast<std::size_t>(
          std::count_if(mine.begin(), mine.end(), [](const VoteRefusal* v) { return v->adopted_term; }));
      // Raft: a member that sees a newer term follows it, and its election timer starts again
      // (with a new random timeout) on every change of term.
      if (adopted > 0)
        s += (adopted == mine.size() ? (mine.size() == 1 ? std::string("; the request's newer term restarted ")
                                                         : std::string("; each request's newer term restarted "))
                                     : "; " + number_word(adopted) + (adopted == 1 ? " request's newer term restarted "
                                                                                   : " requests' newer terms restarted ")) +
             voter + "'s election timer";
      // The voter's longer log was the uncommitted tail of its own leadership: entries of its
      // term that it appended as leader and had not committed when it stepped down.
      for (const auto& t : facts.truth().leaders) {
        if (t.member != voter || t.stepped_down_event < 0 || t.end_ns > last.at_ns) continue;
        const HistoryEvent* down = facts.event(t.stepped_down_event);
        if (down == nullptr) continue;
        const std::int64_t down_last = int_of(down->args, "last_index", -1);
        const std::int64_t down_commit = int_of(down->args, "commit_index", -1);
        if (down_last == last.last_index && down_commit >= 0 && down_commit < down_last &&
            last.last_term == t.term && last.candidate_last_index >= down_commit)
          s += "; " + voter + "'s entries " + std::to_string(down_commit + 1) +
               (down_commit + 1 == down_last ? " was" : " to " + std::to_string(down_last) + " were") +
               " not committed when it stepped down as leader of term " + std::to_string(t.term) + " at " +
               format_seconds(t.end_ns);
      }
      s += (late_note.empty() ? "" : "; " + late_note) + ")";
    } else if (r == "leader-lease") {
      const bool led = std::any_of(facts.truth().leaders.begin(), facts.truth().leaders.end(), [&](const LeaderTerm& t) {
        return t.member == voter && t.start_ns <= last.at_ns && t.end_ns >= last.at_ns;
      });
      s = led ? "ignored " + how_many + ", leading the cluster itself"
              : "ignored " + how_many + ", having heard from a leader less than an election timeout before";
      // Refused in the instant it resumed from a pause longer than an election timeout: what it
      // heard from a leader it can only have read then, among the messages held by its pause,
      // before this request.
      if (!led)
        for (const FaultBand& f : facts.faults())
          if (f.kind == "pause" && f.hits(voter) && !f.open_end && f.end_ns == last.at_ns &&
              f.end_ns - f.start_ns >= facts.truth().election_timeout_ns) {
            s += " (it had been paused from " + format_seconds(f.start_ns) + " to " + format_seconds(f.end_ns) +
                 "; on resuming it read a leader's message that had come meanwhile before the request)";
            break;
          }
    } else if (r == "voted") {
      const std::string term_words = mine.size() == 1 ? " in that term" : " in those terms";
      s = last.voted_for == voter ? "refused " + how_many + ", campaigning itself" + term_words
                                  : "refused " + how_many + ", having voted for " +
                                        (last.voted_for.empty() ? std::string("another member") : last.voted_for) +
                                        term_words;
    } else {
      s = "refused " + how_many + ", being in a newer term already";
    }
    if (r != "log-behind" && !late_note.empty()) s += " (" + late_note + ")";
    reasons.push_back(std::move(s));
  }
  if (reasons.empty()) return "";
  std::string s = voter + " " + reasons.front();
  for (std::size_t i = 1; i < reasons.size(); ++i) s += (i + 1 == reasons.size() ? ", and " : ", ") + reasons[i];
  return s;
}

// Whether, at `at_ns`, a cut held every message from `member` to each of `others`.
bool cut_off_at(const RunFacts& facts, const std::string& member, const std::set<std::string>& others, std::int64_t at_ns) {
  for (const std::string& o : others) {
    if (o == member) continue;
    const bool cut = std::any_of(facts.faults().begin(), facts.faults().end(), [&](const FaultBand& f) {
      return f.kind == "partition" && f.on_link(member, o) && f.start_ns <= at_ns && (f.open_end || f.end_ns >= at_ns);
    });
    if (!cut) return false;
  }
  return true;
}

}  // namespace

std::string campaigns_words(const RunFacts& facts, const std::string& m, const std::vector<const Campaign*>& cs,
                            const std::set<std::string>& voters, std::int64_t from_ns, std::int64_t to_ns) {
  std::string s = m + " campaigned " + campaign_span_words(cs);
  if (std::all_of(cs.begin(), cs.end(), [&](const Campaign* c) { return cut_off_at(facts, m, voters, c->at_ns); }))
    s += " while cut off from the other members";
  std::vector<std::string> refusals;
  for (const std::string& v : voters) {
    if (v == m) continue;
    const std::string w = refusal_words(facts, v, m, cs, from_ns, to_ns);
    // A voter paused or down from a campaign's start until it was decided answered nothing:
    // the span that held the first such campaign, and the campaigns it held.
    const std::vector<StopSpan> stops = stop_spans(facts, v);
    const StopSpan* stop = nullptr;
    std::size_t silent = 0;
    for (const Campaign* c : cs) {
      const std::int64_t decided_ns = campaign_decided_ns(facts, *c, to_ns);
      for (const StopSpan& st : stops)
        if (st.from_ns <= c->at_ns && st.to_ns >= decided_ns && (stop == nullptr || stop == &st)) {
          stop = &st;
          ++silent;
          break;
        }
    }
    std::string stopped;
    if (stop != nullptr)
      stopped = v + (stop->paused ? " was paused" : " was down") + " from " +
                format_seconds(stop->from_ns) + " to " +
                (stop->to_ns == std::numeric_limits<std::int64_t>::max() ? std::string("the end") : format_seconds(stop->to_ns)) +
                " through " +
                (silent == cs.size() ? (cs.size() == 1 ? std::string("it") : cs.size() == 2 ? std::string("both")
                                                                                             : "all " + number_word(silent))
                                     : number_word(silent) + " of them") +
                (stop->paused ? " (a paused member reads what came meanwhile only when it resumes)" : "");
    if (!stopped.empty() && !w.empty())
      refusals.push_back(stopped + ", and " + w.substr(v.size() + 1));
    else if (!stopped.empty() || !w.empty())
      refusals.push_back(stopped.empty() ? w : stopped);
  }
  // Voters apart by "; ": a voter's clause lists its reasons with commas.
  for (std::size_t i = 0; i < refusals.size(); ++i) s += (i == 0 ? ": " : "; ") + refusals[i];
  return s;
}


std::string election_words(const RunFacts& facts, std::int64_t from_ns, std::int64_t to_ns,
                           const std::vector<const FaultBand*>& already_named) {
  std::vector<std::string> parts;
  const LeaderTerm* winner = nullptr;
  for (const auto& t : facts.truth().leaders)
    if (t.start_ns == to_ns) winner = &t;
  // The campaigns that failed, by member, in the order each first campaigned.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Campaign*>> failed;
  const Campaign* won = nullptr;
  for (const Campaign& c : facts.campaigns()) {
    if (c.at_ns < from_ns || c.at_ns > to_ns) continue;
    if (winner != nullptr && c.member == winner->member && c.term == winner->term) {
      won = &c;
      continue;
    }
    if (failed.find(c.member) == failed.end()) order.push_back(c.member);
    failed[c.member].push_back(&c);
  }
  const std::set<std::string> voters = facts.members();
  // What kept members apart or away: their pauses and crashes, and cuts between members.
  std::vector<const FaultBand*> faults;
  for (const auto& f : facts.faults()) {
    const std::int64_t end = f.open_end ? facts.end_ns() : f.end_ns;
    if (f.start_ns > to_ns || end < from_ns) continue;
    if (std::find(already_named.begin(), already_named.end(), &f) != already_named.end()) continue;
    bool between_members = false;
    if (f.kind == "pause" || f.kind == "crash") {
      for (const auto& p : f.processes) between_members = between_members || is_member(p);
    } else if (f.kind == "partition" || f.kind == "delay" || f.kind == "loss") {
      for (const auto& a : voters)
        for (const auto& b : voters) between_members = between_members || (a != b && acts_on_link(facts, f, a, b));
    }
    if (between_members) faults.push_back(&f);
  }
  if (!faults.empty()) parts.push_back(fault_clauses(faults, 4));
  for (const std::string& m : order) parts.push_back(campaigns_words(facts, m, failed[m], voters, from_ns, to_ns));
  // Messages between members that cut links let through late, or lost when a connection was
  // declared dead after its cut had healed (a death during the cut goes without saying).
  std::size_t links = 0;
  for (const LinkEvent& l : facts.link_events()) {
    if (l.at_ns < from_ns || l.at_ns > to_ns || !voters.count(l.from) || !voters.count(l.to)) continue;
    if (l.dead && std::any_of(faults.begin(), faults.end(), [&](const FaultBand* f) {
          return f->kind == "partition" && f->on_link(l.from, l.to) && f->start_ns <= l.at_ns &&
                 (f->open_end || f->end_ns >= l.at_ns);
        }))
      continue;
    if (++links > 4) break;
    parts.push_back(held_messages_words(l));
  }
  if (parts.empty()) return "";
  if (won != nullptr)
    parts.push_back(won->member + " campaigned at " + format_seconds(won->at_ns) + " (term " + std::to_string(won->term) + ") and won");
  std::string s = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) s += "; " + parts[i];
  return s;
}

std::string member_without_leader_words(const RunFacts& facts, const std::string& member, std::int64_t from_ns,
                                        std::int64_t to_ns, std::int64_t min_ns) {
  std::vector<std::string> spans;
  const auto& views = facts.leader_views();
  for (std::size_t i = 0; i < views.size(); ++i) {
    const LeaderView& v = views[i];
    if (v.member != member || !v.leader.empty()) continue;
    // Until this member next knew a leader (or the history's end).
    std::int64_t until_ns = facts.end_ns();
    for (std::size_t j = i + 1; j < views.size(); ++j)
      if (views[j].member == member) {
        until_ns = views[j].at_ns;
        break;
      }
    if (!views[i].leader.empty() || until_ns < from_ns || v.at_ns > to_ns) continue;
    if (std::min(until_ns, to_ns) - std::max(v.at_ns, from_ns) < min_ns) continue;
    std::string why;
    if (v.message == "campaign") why = "it campaigned";
    else if (v.message == "start") why = "it had just started";
    else if (v.message == "check-quorum") why = "it stepped down by check-quorum";
    else if (!v.from.empty()) why = "it took up term " + std::to_string(v.term) + " from " + v.from + "'s " + v.message;
    // Spans that follow one another (a campaign after a lost leader) are said from the first.
    std::string span = "from " + format_seconds(v.at_ns) + (why.empty() ? "" : " (" + why + ")") + " to " +
                       (until_ns == facts.end_ns() ? std::string("the end of the history") : format_seconds(until_ns));
    spans.push_back(std::move(span));
  }
  if (spans.empty()) return "";
  return member + " knew no leader " + join_words(spans);
}

const char* const kHeldWithoutLeader = " (a member holds the requests it cannot serve while it knows no leader)";

std::string new_leader_causes_words(const RunFacts& facts, const std::vector<const LeaderTerm*>& elected) {
  std::vector<std::string> downs;
  const auto& leaders = facts.truth().leaders;
  for (const LeaderTerm* t : elected) {
    // The leadership before it, when a recorded step-down ended it.
    const LeaderTerm* before = nullptr;
    for (const auto& p : leaders)
      if (&p != t && p.end_ns <= t->start_ns && (before == nullptr || p.end_ns > before->end_ns)) before = &p;
    if (before == nullptr || before->stepped_down_event < 0) continue;
    if (std::string down = step_down_words(facts, *before); !down.empty() &&
        std::find(downs.begin(), downs.end(), down) == downs.end())
      downs.push_back(std::move(down));
  }
  std::string s;
  for (const std::string& d : downs) s += (s.empty() ? "" : "; ") + d;
  return s;
}

std::string leaderless_span_words(const RunFacts& facts,
                                  const std::vector<std::pair<std::int64_t, std::int64_t>>& spans) {
  std::vector<std::string> words;
  for (const auto& [a, b] : spans) {
    std::string span = "from " + format_seconds(a) + " to " + format_seconds(b);
    std::vector<std::string> why;
    std::vector<const FaultBand*> named;
    bool whole = false;  // the span begins where a leadership ended, not where a window began
    for (const auto& t : facts.truth().leaders)
      if (t.end_ns == a) {
        whole = true;
        if (t.stepped_down_event < 0) break;
        if (std::string down = step_down_words(facts, t, &named); !down.empty()) why.push_back(std::move(down));
        break;
      }
    // Why no leader came sooner, for a whole span longer than an election takes (an election
    // timeout or two: etcd's default timeout is 1 s). A span cut short by the window ends
    // before its election, if any.
    const bool elected_at_end = std::any_of(facts.truth().leaders.begin(), facts.truth().leaders.end(),
                                            [&](const LeaderTerm& t) { return t.start_ns == b; });
    // A window inside a longer span: judged by the whole span's length.
    std::int64_t whole_length_ns = b - a;
    for (const auto& [wa, wb] : facts.leaderless(0, facts.end_ns(), 0))
      if (wa <= a && b <= wb) whole_length_ns = wb - wa;
    if (whole_length_ns >= kSlowElectionNs)
      if (std::string e = election_words(facts, a, b, named); !e.empty())
        why.push_back((elected_at_end ? std::string("no leader was elected sooner: ")
                       : whole        ? "no leader was elected by " + format_seconds(b) + ": "
                                      : std::string("none was elected in that time: ")) + e);
    if (!why.empty()) span += " (" + (why.size() == 1 ? why.front() : why[0] + "; " + why[1]) + ")";
    words.push_back(std::move(span));
  }
  return words.empty() ? std::string() : "no member led the cluster " + join_words(words);
}

std::string leaderless_during(const RunFacts& facts, std::int64_t from_ns, std::int64_t to_ns) {
  return leaderless_span_words(
      facts, whole_leaderless_spans(facts, from_ns, to_ns, std::min<std::int64_t>(1'000'000'000, (to_ns - from_ns) / 4)));
}

}  // namespace lockstep::reports
