// The per-check explainers behind explain_checks (reports/explain.h). Internal to reports/.
//
// Each takes the check's witness (an object, possibly empty) and returns full sentences; an
// empty result means the witness did not have the expected shape, and the caller falls back
// to the generic explanation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/reports/explain.h"
#include "lockstep/reports/run_facts.h"

namespace lockstep::reports {

// An explanation being written: sentences, the span each names, and the cause found.
struct Story {
  std::vector<std::string> sentences;
  std::vector<std::optional<TimeSpan>> spans;
  nlohmann::json cause;
  std::size_t chain_length = 0;  // set by end_chain(): the sentences so far are the chain
  void end_chain() { chain_length = sentences.size(); }

  void say(std::string sentence, std::optional<TimeSpan> span = std::nullopt) {
    sentences.push_back(std::move(sentence));
    spans.push_back(span);
  }
  bool empty() const { return sentences.empty(); }
};

Story explain_mutex(const RunFacts& facts, const nlohmann::json& check);
Story explain_resource(const RunFacts& facts, const nlohmann::json& check);
Story explain_liveness(const RunFacts& facts, const nlohmann::json& check);

// Shared phrasing.
// "the faults: client-4 was paused from 6.995 s to 20.349 s and ..." without the lead-in.
// Back-to-back pauses of the same processes are one clause ("(2 back-to-back pauses)"), and a
// pause inside a longer listed pause of the same processes is not said apart.
std::string fault_clauses(const std::vector<const FaultBand*>& faults, std::size_t max_count = 4);
// A message sent during `loss` that arrived at `arrived_ns` (within `slack_ns` of a
// retransmission well after the loss ended): "; it got through at TCP's retransmission at
// 17.975 s, 3.075 s after the loss ended: ...". "" when the arrival does not read so.
std::string loss_retransmission_words(const FaultBand& loss, std::int64_t sent_ns, std::int64_t arrived_ns,
                                      std::int64_t slack_ns);
// What a client's operation did, as a predicate: "wrote 17 to the resource at 6.827 s
// (token 34), which the resource accepted", "released the lock at 20.349 s".
std::string operation_phrase(const RunFacts& facts, const HistoryEvent& invoke);
// "no member led the cluster from 6.393 s to 9.646 s and from ...": the leaderless spans of at
// least `min_ns` within [from_ns, to_ns]; "" when a member led throughout.
std::string leaderless_words(const RunFacts& facts, std::int64_t from_ns, std::int64_t to_ns, std::int64_t min_ns);
// How a key went, as a clause to follow "deleted at T": " with its lease", " by a delete_range
// that client-1 sent ...", or "" when the history does not say.
std::string deletion_words(const KeyLifetime& key);
// The client a lock key was made for: the one an acquire returned it to, else (no acquire
// returned it: its creator crashed or gave up) the client whose request created it; "" when
// the history does not say.
std::string key_made_for(const KeyLifetime& key);
// Whose the key was at `at_ns`: key_made_for's, unless a later put took it over (a put keeps
// the create revision) - then the writer's. Sets `revision` to the revision of the put that
// made it so (its create revision while the one it was made for owns it). "" when unknown.
std::string key_owner_at(const RunFacts& facts, const KeyLifetime& key, std::int64_t at_ns,
                         std::int64_t& revision);
// The faults that could hold up a client's operation `op` (its invoke) until `end_ns`: a
// pause or crash of the client, or its clock fault when the operation timed out (or is still
// open); for the calls it made to etcd members, cuts, delays and losses of its links to them,
// their pauses and crashes, and leader changes; for a read or write that went to the resource
// itself (no etcd call recorded), the same faults on its link to the resource and the
// resource's pauses and crashes. A duplicate, a lease-drop (keep-alives only) or a clock fault
// elsewhere holds nothing up, and a reorder only by milliseconds.
// A call the resource served counts the faults on its way there and the resource's stops only
// until it was served, and those on the way back after.
std::vector<const FaultBand*> faults_on_way(const RunFacts& facts, const HistoryEvent& op, std::int64_t end_ns);
// Whether an operation's end (its fail or info) was a timeout or a deadline, not another error.
bool ended_by_timeout(const HistoryEvent& done);
// "client-1 held the lock from 12.722 s to 17.922 s: its read, invoked at 12.722 s while the
// resource was down, went unanswered until its timeout at 17.722 s (the resource crashed from
// 12.633 s to 17.933 s)": a hold in a waiter's wait (up to `until_ns`), with the longest of its
// operations when one took a second or more, and the faults on that operation's way
// (faults_on_way), or without one the faults on the holder, the resource and the link between
// them in that time. Faults in `named` already are not said again; the rest are added to it.
std::string hold_words(const RunFacts& facts, const HoldingInterval& h, std::int64_t until_ns,
                       std::vector<const FaultBand*>& named);
// Who held the lock while `waiter` waited behind `ahead` (from `key_start_ns` to
// `wait_end_ns`): "; in its wait, client-0 held the lock from ... (hold_words)", the key's
// owner's holds from its key on and others' of a second or more; and, when the key's owner
// never held the lock then, "; client-2 did not hold the lock then: its own acquire, invoked at
// ..., was still waiting". "" when none of that applies.
std::string holds_in_wait_words(const RunFacts& facts, const KeyLifetime& ahead, const std::string& waiter,
                                std::int64_t key_start_ns, std::int64_t wait_end_ns);
// A json integer field, or `fallback`.
std::int64_t int_of(const nlohmann::json& j, const char* field, std::int64_t fallback = 0);
// A json string field, or `fallback` (absent, or of another type: a hand-edited history).
std::string text_of(const nlohmann::json& j, const char* field, const std::string& fallback = "");
// A json boolean field, or false (absent, or of another type).
bool flag_of(const nlohmann::json& j, const char* field);
// Whether a process name is an etcd member's ("member-2").
bool is_member(const std::string& process);
// "member-2" for a json integer field holding a member's index, or "" when absent.
std::string member_of(const nlohmann::json& j, const char* field);

}  // namespace lockstep::reports
