// EtcdStore: the simulated etcd member's MVCC key-value store and lessor, as a pure state machine.
//
// Contract
// - Pure and deterministic: no clock, no randomness, no I/O, no threads. Time arrives as
//   arguments (the member's own monotonic clock). Every member of a simulated cluster owns one
//   EtcdStore and applies the same committed requests in the same order, so every output (responses,
//   events, key and lease orders) depends only on the sequence of calls; containers are ordered.
// - Behaviour follows etcd 3.4 (server/mvcc, lease/lessor.go, etcdserver/apply.go and the request
//   checks in etcdserver/api/v3rpc/key.go), including its quirks; each quirk is noted where it is
//   implemented. The caller (the member) adds what a store cannot know: cluster_id, member_id and
//   raft_term in headers, leadership, linearizable-read waiting.
// - A call either fails with a definite Error and changes nothing, or succeeds. Write calls append
//   the events they produced (in the order etcd's watchers see them) to `events` when it is not
//   null; prev_kv is always filled when the key was live just before the write, and the watch
//   layer strips it when the watcher did not ask for it.
// - Revisions: a new store is at revision 1; a write that changes at least one key adds exactly 1
//   and all its changes share that revision. Reads, read-only txns, deletes of missing keys,
//   compactions, lease grants and revokes of leases without keys do not bump it.
// - Headers: header.revision is the store revision at which the request was served (for a write,
//   the revision after it). Nested txn responses keep an all-zero header, as in etcd 3.4.
// - Leases live in the member's monotonic time: a grant expires at now + ttl; a lease is expired
//   when expiry <= now. Only the leader should act on expiry (expired_leases + lease_revoke) and
//   call lease_renew; a member that becomes leader calls extend_all_leases (etcd's Promote).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lockstep/kv/result.h"
#include "lockstep/kv/time.h"
#include "lockstep/kv/types.h"

namespace lockstep::sim {

struct EtcdStoreOptions {
  // etcd: ceil(1.5 * election timeout) with the default 1 s election timeout.
  std::int64_t min_lease_ttl_seconds = 2;
  // etcd's --max-txn-ops: the most compares, success ops or failure ops in one txn level.
  std::int64_t max_txn_ops = 128;
};

class EtcdStore {
 public:
  // etcd's MaxLeaseTTL: a larger requested TTL is refused.
  static constexpr std::int64_t kMaxLeaseTtlSeconds = 9'000'000'000;

  explicit EtcdStore(EtcdStoreOptions options = {});
  // A copy is a snapshot: equal in every output to the original from then on.
  EtcdStore(const EtcdStore& other);
  EtcdStore& operator=(const EtcdStore& other);
  EtcdStore(EtcdStore&&) noexcept = default;
  EtcdStore& operator=(EtcdStore&&) noexcept = default;

  // ---- KV ----

  // Reads at req.revision (<= 0: the latest). Errors: empty_key, future_revision, compacted
  // (below the compaction revision; the compaction revision itself is readable).
  // Mirrors etcd: filters, then sort, then limit; `count` counts every key in the range at that
  // revision, before the filters and the limit (etcd never subtracts filtered keys from it).
  Result<RangeResponse> range(const RangeRequest& req) const;

  // Errors: empty_key; invalid_argument ("value is provided" / "lease is provided" with the
  // ignore flags, "key not found" for ignore_value / ignore_lease on a missing key);
  // lease_not_found.
  Result<PutResponse> put(const PutRequest& req, std::vector<Event>* events);

  // Errors: empty_key. Deleting nothing does not bump the revision.
  Result<DeleteRangeResponse> delete_range(const DeleteRangeRequest& req,
                                           std::vector<Event>* events);

  // Errors, checked before anything happens: too_many_ops, empty_key, the put checks above,
  // duplicate_key (etcd's checkIntervals); then, on the branch the compares choose:
  // lease_not_found, invalid_argument ("key not found"), future_revision, compacted.
  // One txn etcd 3.4 accepts but crashes on (a put with ignore_value/ignore_lease after a
  // delete with range_end "\0" of its key) is refused with invalid_argument, changing nothing.
  // Every compare of every nested txn is evaluated against the state before the txn; ranges
  // inside the txn see the txn's earlier writes.
  Result<TxnResponse> txn(const TxnRequest& req, std::vector<Event>* events);

  // Errors: compacted (at or below the current compaction revision), future_revision.
  Result<CompactionResponse> compact(const CompactionRequest& req);

  // ---- Leases ----

  // req.id must be chosen by the caller (the leader) and be nonzero. ttl_seconds is raised to
  // the minimum TTL. Errors: invalid_argument (id 0, "lease already exists", "too large lease TTL").
  Result<LeaseGrantResponse> lease_grant(const LeaseGrantRequest& req, MonoTime now);

  // Deletes every attached key, in key order, in one revision (none if no keys are attached).
  // Errors: lease_not_found.
  Result<LeaseRevokeResponse> lease_revoke(LeaseId id, std::vector<Event>* events);

  // A keepalive on the leader: expiry = now + ttl; returns the granted TTL in seconds.
  // Errors: lease_not_found for an unknown lease, and also for a lease that is already expired
  // at `now` (it is not refreshed). etcd's leader instead holds such a keepalive until the
  // revoke is applied (then answers "not found") or it loses leadership (then the client
  // retries); a member that wants that precision checks lease_expired() first and parks it.
  Result<std::int64_t> lease_renew(LeaseId id, MonoTime now);

  // ttl_seconds: whole seconds remaining, truncated toward zero like etcd's
  // int64(Remaining().Seconds()) (so it can be 0 or negative for an expired, not yet revoked
  // lease); -1 for an unknown lease. keys (sorted) only when req.keys.
  LeaseTimeToLiveResponse lease_time_to_live(const LeaseTimeToLiveRequest& req,
                                             MonoTime now) const;

  // Leases whose expiry <= now, ordered by (expiry, id). etcd's rate limit (500 revokes per
  // scan) is not modelled.
  std::vector<LeaseId> expired_leases(MonoTime now) const;

  // etcd's lessor Promote: every lease's expiry becomes now + extension + ttl. (etcd's extra
  // spreading of expiries only applies with >= 1000 leases and is not modelled.)
  void extend_all_leases(MonoTime now, Duration extension);

  bool lease_expired(LeaseId id, MonoTime now) const;
  std::optional<MonoTime> lease_expiry(LeaseId id) const;
  std::vector<LeaseId> lease_ids() const;

  // ---- Watch support ----

  // Every event on keys in [key, range_end) (range_end as in RangeRequest) with revision >=
  // start, in (revision, order within the revision). prev_kv is filled when the key was live at
  // revision - 1 and that revision is still readable (etcd reads it for the watcher).
  // start <= 0 returns no events (a watch from "now" has no past). Errors: compacted when
  // start < compact_revision(). Like etcd after compaction, the events at the compaction
  // revision itself only include the PUTs still live there (its tombstones are gone).
  Result<std::vector<Event>> events_since(Revision start, const std::string& key,
                                          const std::string& range_end) const;

  Revision revision() const { return current_revision_; }
  // The last compaction revision, 0 before any compaction.
  Revision compact_revision() const;

  // ---- Inspection (tests, determinism checks) ----

  // Every live key at the current revision, in key order.
  std::vector<KeyValue> all_live_keys() const;

 private:
  // One change of one key, whose history (a map entry) holds the key itself: the key's value
  // and metadata from this change on. A tombstone keeps only its revision, like etcd's delete
  // events. Within a revision, `sub` orders the changes of one transaction.
  // Why not a KeyValue: a history keeps every change of every key until a compaction, and a
  // copy of the key in each change took a quarter of the 60 s KV load's peak memory.
  struct KeyChange {
    Revision mod_revision = 0;  // the change's (main) revision
    Revision create_revision = 0;
    std::int64_t version = 0;
    LeaseId lease = 0;
    std::string value;
    std::int32_t sub = 0;
    bool tombstone = false;
  };
  // A key's changes, oldest first. Why a deque: a history grows at its end only (and loses its
  // front to compaction). A vector's doublings copied every change again into fresh memory,
  // and first touches of memory (page faults, costly on these virtual machines) were a third of
  // the KV load's CPU time. A deque also keeps references to its changes valid as it grows.
  using Changes = std::deque<KeyChange>;
  static KeyValue key_value(const std::string& key, const KeyChange& change);
  // A key live at some revision: its history entry, and its change in force then.
  struct LiveRef {
    const std::string* key;
    const KeyChange* change;
    KeyValue key_value() const { return EtcdStore::key_value(*key, *change); }
  };
  struct Lease {
    std::int64_t ttl_seconds = 0;
    MonoTime expiry;
    std::set<std::string> keys;  // attached keys
  };
  struct TxnPath;  // which branch each (nested) txn takes
  class WriteTxn;  // one write transaction being applied

  const KeyChange* live_at(const std::string& key, Revision rev) const;
  // The change of a key with these changes in force at `rev`, or null when it was not live then.
  static const KeyChange* live_in(const Changes& changes, Revision rev);
  std::vector<KeyValue> live_in_range(const std::string& key, const std::string& range_end,
                                      Revision rev) const;
  // The same, as references into the history: valid until the next write.
  std::vector<LiveRef> live_refs_in_range(const std::string& key, const std::string& range_end,
                                          Revision rev) const;
  Result<RangeResponse> range_at(const RangeRequest& req, Revision current) const;

  bool compare_holds(const Compare& c) const;
  TxnPath compare_to_path(const TxnRequest& req) const;
  std::optional<Error> check_puts_on_path(const TxnRequest& req, const TxnPath& path) const;
  std::optional<Error> check_ranges_on_path(const TxnRequest& req, const TxnPath& path) const;
  std::optional<Error> check_put_preconditions(const PutRequest& req) const;

  Result<PutResponse> apply_put(WriteTxn& txn, const PutRequest& req);
  DeleteRangeResponse apply_delete(WriteTxn& txn, const DeleteRangeRequest& req);
  Result<TxnResponse> apply_txn(WriteTxn& txn, const TxnRequest& req, const TxnPath& path);

  EtcdStoreOptions options_;
  // Keys in byte order, as std::less<std::string> orders them, but compared inline: the
  // library's std::string::compare is an out-of-line call, and key searches are a large part
  // of applying a put.
  struct KeyLess {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const noexcept { return a < b; }
  };
  using History = std::map<std::string, Changes, KeyLess>;
  using HistoryEntry = History::value_type;
  History history_;  // per key, in (main, sub) order
  // The keys live at the latest revision, in key order, as pointers to their history_ entries.
  // Why: deleted keys keep their history until a compaction, so a lock's prefix collects
  // thousands of dead keys; ranges at the latest revision (nearly all) walk the live ones.
  struct EntryKeyLess {
    using is_transparent = void;
    bool operator()(const HistoryEntry* a, const HistoryEntry* b) const {
      return KeyLess{}(a->first, b->first);
    }
    bool operator()(const HistoryEntry* a, const std::string& b) const {
      return KeyLess{}(a->first, b);
    }
    bool operator()(const std::string& a, const HistoryEntry* b) const {
      return KeyLess{}(a, b->first);
    }
  };
  std::set<const HistoryEntry*, EntryKeyLess> live_keys_;
  // Puts `entry` in live_keys_ or takes it out, after its history changed.
  void index_liveness(const HistoryEntry& entry);
  // The newest change's main revision: a read at or after it sees exactly live_keys_.
  Revision latest_change_revision_ = 0;
  std::map<LeaseId, Lease> leases_;
  Revision current_revision_ = 1;
  // etcd's compactMainRev: -1 until the first compaction.
  Revision compact_main_revision_ = -1;
};

}  // namespace lockstep::sim
