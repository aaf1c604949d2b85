// Causes: why a client lost the protection of its lock key, read from the causal records of a
// history (truth events with their `cause`, the clients' kv-send / kv-end records, the fault
// bands; docs/history-format.md).
//
// Contract: each function appends true sentences to a Story and returns the cause it found as
// an object {"class": ..., ...}. Nothing is guessed: where the history lacks a record (a real
// cluster, an older file) the class says so ("key-deleted", "unknown") and the sentences state
// only what is recorded. Cause classes:
//   lease-expired           the key went with its lease, whose lessor revoke committed
//   key-deleted-by-request  a client's request deleted the key ("request" names it)
//   key-overwritten         another client's put took the live key over ("request")
//   key-deleted             the key was deleted and the history does not say by what
//   grantee-key-gone        the later holder's own key was gone when it was granted ("lost")
//   granted-while-key-held  both keys existed at the grant: the algorithm let it in anyway
//   unknown                 the history holds no truth about the key
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/reports/explain_parts.h"

namespace lockstep::reports {

// Why `key`, which `holder` held, is gone (it must have an end): the request that deleted
// it, or its lease's expiry and why nothing renewed the lease.
nlohmann::json explain_key_loss(const RunFacts& facts, const KeyLifetime& key,
                                const std::string& holder, Story& story);

// Why `lease` (used by `client`) expired: the leader that revoked it, its last renewal, the
// client's keep-alives since, and the faults on the client, its members and the leader's
// clock in that window. `lease` must have expired (expired_ns set).
nlohmann::json explain_lease_expiry(const RunFacts& facts, const LeaseLifetime& lease,
                                    const std::string& client, Story& story);

// Whether a lease-renewed truth event is a renewal its client never saw: by a keep-alive it
// had already given up on, or whose call ended without an answer (histories that record calls).
bool unseen_renewal(const RunFacts& facts, const HistoryEvent& renewal);
// The last renewal of `lease` at or before `until_ns` (a "lease-renewed" truth event), when its
// client never saw it (unseen_renewal), as a clause: "for a keep-alive that client-0 had sent to
// member-1 at 30.000 s (call 62) and given up at 35.000 s", or "..., whose answer it never had
// (the call ended deadline at 28.000 s)"; "" when there is none or its client saw it (an earlier
// unseen renewal is not the last: a later keep-alive answered renewed it again).
std::string unseen_renewal_words(const RunFacts& facts, std::int64_t lease, std::int64_t until_ns,
                                 std::int64_t* renewed_ns = nullptr);

// The keys (any, not only lock keys) put under `lease` that still existed at `at_ns`, from the
// key-put and key-delete truth (a key put again under another lease leaves this one).
std::vector<std::string> keys_of_lease_at(const RunFacts& facts, std::int64_t lease, std::int64_t at_ns);

// What held `by` (a client's request) between its sending and its applying at `applied_ns`:
// "It took 7.379 s from sending to applying: " and the faults on its way (the member it went
// to, the leader then, the sender's links to them, the links between members), TCP's
// retransmission after a cut of its link, and the spans with no leader. "" when it was applied
// within a second of its sending and its client had not given it up. `held` gets the faults
// named.
std::string request_delay_words(const RunFacts& facts, const ChangeCause& by, std::int64_t applied_ns,
                                std::vector<const FaultBand*>& held);

// The faults that could keep `call` from its answer between its sending and `to_ns`: a pause
// or crash of its client or of the member it went to, faults on the links between those two,
// and, where that member was not the leader, on the leader of the moment and its link to it (a
// member passes on what it cannot serve). In start order.
std::vector<const FaultBand*> faults_on_call(const RunFacts& facts, const CallRecord& call, std::int64_t to_ns);
// What a cut link did with a message sent from `from` to `to` at `sent_ns`, from the history's
// link-released / link-dead records: the first record of that link at or after the sending
// whose hold had begun by then, or began with a cut of that link active then (the message came
// to the cut, or queued behind what the link held). nullptr when the link did not hold it, as
// far as the records show (histories before they were recorded show nothing).
const LinkEvent* link_hold_of(const RunFacts& facts, const std::string& from, const std::string& to,
                              std::int64_t sent_ns);
// "the link from client-2 to member-0 held it, with what it had held since 19.640 s, until TCP's
// retransmission got them through at 121.841 s"; "... until the connection was declared dead at
// 25.001 s, losing them".
std::string link_hold_words(const LinkEvent& hold, const std::string& what = "it");
// "member-2's messages to member-0, held since 25.801 s, were lost when the connection was
// declared dead at 30.801 s" / "..., got through at TCP's retransmission at 32.422 s".
std::string held_messages_words(const LinkEvent& l);
// link_hold_words for `calls` of one client, all held by `hold` ("the link from client-3 to
// member-0 held calls 38, 65 and 99, ... until TCP's retransmission got them through at
// 121.841 s"), and, from the request-cancelled records, that the member dropped them unstarted
// because each came with its cancellation (a client cancels a call at its deadline).
std::string held_calls_words(const RunFacts& facts, const LinkEvent& hold, const std::vector<const CallRecord*>& calls);
// Whether the client's own link held `call` from its sending until after it ended (it reached
// no member in time).
bool held_whole_way(const RunFacts& facts, const CallRecord& call);

// "member-2 dropped it at 8.101 s (member-1 passed it on to member-2 as the leader, but
// member-2 no longer led and knew no leader; etcd does not propose a dropped request again, so
// only the caller's deadline ends it)" for `call`, dropped while it was out (`what` names it);
// "" when the history records no such drop.
std::string dropped_words(const RunFacts& facts, const CallRecord& call, const std::string& what = "it");

// What kept `call` from its answer while it was out, as a clause: the faults of faults_on_call
// and the spans with no leader that took a good part of its wait (each said whole, from the
// step-down to the next election):
// "member-0 was paused from 6.300 s to 7.400 s; no member led the cluster from 7.763 s to
// 11.382 s". "" when neither.
std::string call_held_words(const RunFacts& facts, const CallRecord& call);
// The keep-alives of `client` answered more than a second late that renewed `lease` at
// `renewed_ns` (several held together arrive together), as a clause: "for client-0's
// keep-alives sent to member-1 at 10.301 s and 10.801 s (calls 19 and 20), answered at 13.398 s,
// 2.597 s after the last was sent"; "" when the renewal came from a prompt answer or no answer
// came within a second after `renewed_ns`.
std::string late_renewal_words(const RunFacts& facts, const std::string& client, std::int64_t lease,
                               std::int64_t renewed_ns);
// The lock keys queued ahead of a key named `key_name` of create revision `revision`: those
// under the same prefix (the name up to its last '/') with older create revisions, in the
// truth's order.
std::vector<const KeyLifetime*> lock_keys_ahead(const RunFacts& facts, const std::string& key_name,
                                                std::int64_t revision);
// A lease id as etcd prints it (and as etcd's Mutex names its key): hexadecimal.
std::string lease_hex(std::int64_t lease);

// "a delete_range that client-1 sent to member-2 at 3.250 s (call 17)".
std::string request_words(const ChangeCause& cause);

// The cause's request as an object: {request, client, call, member, sent_ns, abandoned_ns?}.
nlohmann::json request_json(const ChangeCause& cause);

}  // namespace lockstep::reports
