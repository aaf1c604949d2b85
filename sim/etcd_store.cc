#include "lockstep/sim/etcd_store.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <limits>
#include <memory>
#include <tuple>
#include <utility>
#include <variant>

#include "lockstep/kv/invariant.h"

namespace lockstep::sim {
namespace {

// etcd's own messages, so a log reads the same against the simulator and a real server.
constexpr const char* kEmptyKeyMessage = "etcdserver: key is not provided";
constexpr const char* kTooManyOpsMessage = "etcdserver: too many operations in txn request";
constexpr const char* kDuplicateKeyMessage = "etcdserver: duplicate key given in txn request";
constexpr const char* kLeaseNotFoundMessage = "etcdserver: requested lease not found";
constexpr const char* kCompactedMessage =
    "etcdserver: mvcc: required revision has been compacted";
constexpr const char* kFutureRevisionMessage =
    "etcdserver: mvcc: required revision is a future revision";
constexpr const char* kKeyNotFoundMessage = "etcdserver: key not found";

Error empty_key_error() { return Error(ErrorCode::empty_key, kEmptyKeyMessage); }
Error compacted_error() { return Error(ErrorCode::compacted, kCompactedMessage); }
Error future_revision_error() { return Error(ErrorCode::future_revision, kFutureRevisionMessage); }
Error lease_not_found_error() { return Error(ErrorCode::lease_not_found, kLeaseNotFoundMessage); }

// range_end "\0" means every key >= key (etcd's mkGteRange / isGteRange).
bool is_gte_range(const std::string& range_end) {
  return range_end.size() == 1 && range_end[0] == '\0';
}

// std::string compares bytes as unsigned char, like Go's bytes.Compare.
int three_way(const std::string& a, const std::string& b) {
  int c = a.compare(b);
  return (c > 0) - (c < 0);
}
int three_way(std::int64_t a, std::int64_t b) { return (a > b) - (a < b); }

MonoTime saturating_add(MonoTime t, Duration d) {
  const auto max = Duration::max().count();
  if (d.count() > 0 && t.time_since_epoch().count() > max - d.count()) {
    return MonoTime(Duration::max());
  }
  return t + d;
}

MonoTime expiry_after(MonoTime now, Duration extension, std::int64_t ttl_seconds) {
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1'000'000'000;
  Duration ttl = ttl_seconds >= kMaxSeconds ? Duration::max() : seconds(ttl_seconds);
  return saturating_add(saturating_add(now, extension), ttl);
}

// ---- Static request checks (etcd's v3rpc/key.go, before the request reaches raft) ----

std::optional<Error> check_put_request(const PutRequest& r) {
  if (r.key.empty()) return empty_key_error();
  if (r.ignore_value && !r.value.empty()) {
    return Error(ErrorCode::invalid_argument, "etcdserver: value is provided");
  }
  if (r.ignore_lease && r.lease != 0) {
    return Error(ErrorCode::invalid_argument, "etcdserver: lease is provided");
  }
  return std::nullopt;
}

std::optional<Error> check_txn_request(const TxnRequest& r, std::int64_t max_txn_ops);

std::optional<Error> check_request_op(const RequestOp& op, std::int64_t max_txn_ops) {
  if (auto* range = std::get_if<RangeRequest>(&op.request)) {
    if (range->key.empty()) return empty_key_error();
    return std::nullopt;
  }
  if (auto* put = std::get_if<PutRequest>(&op.request)) return check_put_request(*put);
  if (auto* del = std::get_if<DeleteRangeRequest>(&op.request)) {
    if (del->key.empty()) return empty_key_error();
    return std::nullopt;
  }
  const auto& nested = std::get<std::shared_ptr<TxnRequest>>(op.request);
  if (!nested) return Error(ErrorCode::invalid_argument, "nested txn request is null");
  return check_txn_request(*nested, max_txn_ops);
}

// etcd's checkTxnRequest: the largest of the compare, success and failure counts must not exceed
// the budget, and a nested txn gets what its parent left (maxTxnOps - opc).
std::optional<Error> check_txn_request(const TxnRequest& r, std::int64_t max_txn_ops) {
  const std::int64_t opc = static_cast<std::int64_t>(
      std::max({r.compare.size(), r.success.size(), r.failure.size()}));
  if (opc > max_txn_ops) return Error(ErrorCode::too_many_ops, kTooManyOpsMessage);
  for (const Compare& c : r.compare) {
    if (c.key.empty()) return empty_key_error();
  }
  for (const auto* ops : {&r.success, &r.failure}) {
    for (const RequestOp& op : *ops) {
      if (auto err = check_request_op(op, max_txn_ops - opc)) return err;
    }
  }
  return std::nullopt;
}

// A deleted interval [begin, end) as etcd's checkIntervals builds it: a single-key delete is the
// point [key, key + "\0"); otherwise [key, range_end) compared as plain strings. Quirk kept from
// etcd: range_end "\0" makes the interval [key, "\0"), which contains no key, so a delete of
// "every key >= key" is never reported as overlapping a put.
struct DeletedInterval {
  std::string begin;
  std::string end;
  bool contains(const std::string& key) const { return begin <= key && key < end; }
};

struct WrittenKeys {
  std::set<std::string> puts;
  std::vector<DeletedInterval> deletes;
  bool deleted(const std::string& key) const {
    return std::any_of(deletes.begin(), deletes.end(),
                       [&](const DeletedInterval& d) { return d.contains(key); });
  }
};

// etcd's checkIntervals, step for step (its quirks included): this level's deletes first; then
// each nested txn's puts against the puts and deletes gathered so far (then/else branches may
// put the same key, they are exclusive), merging the nested deletes afterwards; then this
// level's puts. Deletes never conflict with deletes, and a nested put followed by a later nested
// delete of the same key is not caught (etcd does not catch it either).
std::optional<Error> check_intervals(const std::vector<RequestOp>& ops, WrittenKeys* out) {
  WrittenKeys level;
  for (const RequestOp& op : ops) {
    if (auto* del = std::get_if<DeleteRangeRequest>(&op.request)) {
      std::string end = del->range_end.empty() ? del->key + std::string(1, '\0') : del->range_end;
      level.deletes.push_back({del->key, std::move(end)});
    }
  }
  const Error duplicate(ErrorCode::duplicate_key, kDuplicateKeyMessage);
  for (const RequestOp& op : ops) {
    auto* nested = std::get_if<std::shared_ptr<TxnRequest>>(&op.request);
    if (nested == nullptr || !*nested) continue;
    WrittenKeys then_keys, else_keys;
    if (auto err = check_intervals((*nested)->success, &then_keys)) return err;
    if (auto err = check_intervals((*nested)->failure, &else_keys)) return err;
    for (const std::string& key : then_keys.puts) {
      if (level.puts.count(key) || level.deleted(key)) return duplicate;
      level.puts.insert(key);
    }
    for (const std::string& key : else_keys.puts) {
      if (level.puts.count(key) && !then_keys.puts.count(key)) return duplicate;
      if (level.deleted(key)) return duplicate;
      level.puts.insert(key);
    }
    for (auto* nested_keys : {&then_keys, &else_keys}) {
      level.deletes.insert(level.deletes.end(), nested_keys->deletes.begin(),
                           nested_keys->deletes.end());
    }
  }
  for (const RequestOp& op : ops) {
    if (auto* put = std::get_if<PutRequest>(&op.request)) {
      if (level.puts.count(put->key) || level.deleted(put->key)) return duplicate;
      level.puts.insert(put->key);
    }
  }
  *out = std::move(level);
  return std::nullopt;
}

// `KV` is a KeyValue or a stored change: both have the compared fields.
template <typename KV>
bool compare_kv(const Compare& c, const KV& kv) {
  int result = 0;
  switch (c.target) {
    case CompareTarget::version: result = three_way(kv.version, c.version); break;
    case CompareTarget::create: result = three_way(kv.create_revision, c.create_revision); break;
    case CompareTarget::mod: result = three_way(kv.mod_revision, c.mod_revision); break;
    case CompareTarget::value: result = three_way(kv.value, c.value); break;
    case CompareTarget::lease: result = three_way(kv.lease, c.lease); break;
  }
  switch (c.result) {
    case CompareResult::equal: return result == 0;
    case CompareResult::not_equal: return result != 0;
    case CompareResult::greater: return result > 0;
    case CompareResult::less: return result < 0;
  }
  return false;
}

}  // namespace

// Which branch each txn takes; nested holds one entry per nested txn of the taken branch, in
// op order. etcd decides every branch up front, on the state before the txn (compareToPath).
struct EtcdStore::TxnPath {
  bool succeeded = false;
  std::vector<TxnPath> nested;
};

namespace {
const std::vector<RequestOp>& taken_ops(const TxnRequest& req, bool succeeded) {
  return succeeded ? req.success : req.failure;
}
}  // namespace

// One write transaction (etcd's storeTxnWrite): every change is recorded at begin + 1 with an
// increasing sub-revision; the store revision moves only at end(), and only if something changed.
class EtcdStore::WriteTxn {
 public:
  // Only a txn can fail halfway (see abort); the others skip keeping what undoing needs.
  enum class Undo { kept, not_needed };
  WriteTxn(EtcdStore& store, std::vector<Event>* events, Undo undo)
      : store_(store),
        begin_(store.current_revision_),
        latest_change_revision_before_(store.latest_change_revision_),
        events_out_(events),
        keeps_undo_(undo == Undo::kept) {}

  // The revision reads inside the txn use: its own changes are visible once there are any.
  Revision read_revision() const { return change_count_ > 0 ? begin_ + 1 : begin_; }
  Revision write_revision() const { return begin_ + 1; }

  // `entry` is the key's history, found (or created) by the caller.
  void put(History::iterator entry, const std::string& value, LeaseId lease) {
    const Revision rev = write_revision();
    const std::string& key = entry->first;
    const Changes& changes = entry->second;
    KeyChange change;
    change.mod_revision = rev;
    change.create_revision = rev;
    change.version = 1;
    change.lease = lease;
    change.value = value;
    LeaseId previous_lease = 0;
    if (!changes.empty() && !changes.back().tombstone) {
      const KeyChange& current = changes.back();
      change.create_revision = current.create_revision;
      change.version = current.version + 1;
      previous_lease = current.lease;
    }
    // The common overwrite under the same lease leaves the lease's keys as they are.
    if (previous_lease != lease) {
      detach(previous_lease, key);
      attach(lease, key);
    }
    record(entry, std::move(change), EventType::put);
  }

  std::int64_t delete_range(const std::string& key, const std::string& range_end) {
    const Revision rev = write_revision();
    // References stay valid: each key's own history grows only when its tombstone is recorded.
    const std::vector<LiveRef> doomed = store_.live_refs_in_range(key, range_end, rev);
    for (const LiveRef& live : doomed) {
      detach(live.change->lease, *live.key);
      KeyChange tombstone;
      tombstone.mod_revision = rev;
      tombstone.tombstone = true;
      record(store_.history_.find(*live.key), std::move(tombstone), EventType::del);
    }
    return static_cast<std::int64_t>(doomed.size());
  }

  // Undoes every change (the revision has not moved yet). Only needed for a txn that etcd 3.4
  // itself cannot apply (see apply_put). Precondition: the WriteTxn was made with Undo::kept.
  void abort() {
    assert(keeps_undo_ && "only a write transaction that keeps its undo log can abort");
    // Newest first: a key's entry is erased only after its last (earliest) change is undone,
    // so the key pointers still to visit stay valid.
    for (auto it = touched_keys_.rbegin(); it != touched_keys_.rend(); ++it) {
      auto changes = store_.history_.find(**it);
      changes->second.pop_back();
      store_.index_liveness(*changes);
      if (changes->second.empty()) store_.history_.erase(changes);
    }
    store_.latest_change_revision_ = latest_change_revision_before_;
    for (auto& [id, keys] : lease_keys_before_) {
      auto lease = store_.leases_.find(id);
      if (lease != store_.leases_.end()) lease->second.keys = std::move(keys);
    }
    touched_keys_.clear();
    lease_keys_before_.clear();
    events_.clear();
    change_count_ = 0;
  }

  // Commits the revision bump and publishes the events; returns the store revision after.
  Revision end() {
    LOCKSTEP_INVARIANT(store_.current_revision_ == begin_,
                       "one write transaction at a time: each takes the next revision");
    if (change_count_ > 0) store_.current_revision_ = begin_ + 1;
    if (events_out_ != nullptr) {
      events_out_->insert(events_out_->end(), std::make_move_iterator(events_.begin()),
                          std::make_move_iterator(events_.end()));
    }
    return store_.current_revision_;
  }

 private:
  void detach(LeaseId lease, const std::string& key) {
    if (lease == 0) return;
    auto it = store_.leases_.find(lease);
    if (it == store_.leases_.end()) return;
    remember_lease(it->first, it->second);
    it->second.keys.erase(key);
  }

  void attach(LeaseId lease, const std::string& key) {
    if (lease == 0) return;
    auto it = store_.leases_.find(lease);
    assert(it != store_.leases_.end() && "lease existence is checked before applying");
    if (it == store_.leases_.end()) return;
    remember_lease(it->first, it->second);
    it->second.keys.insert(key);
  }

  void remember_lease(LeaseId id, const Lease& lease) {
    if (keeps_undo_) lease_keys_before_.emplace(id, lease.keys);
  }

  // `entry` is the key's history (created by the caller when the key is new).
  void record(History::iterator entry, KeyChange&& change, EventType type) {
    Changes& changes = entry->second;
    change.sub = static_cast<std::int32_t>(change_count_);
    if (events_out_ != nullptr) {  // nobody asked for events: skip copying the key twice more
      Event event;
      event.type = type;
      event.kv = key_value(entry->first, change);
      // prev_kv is the key at revision - 1, as etcd's watch server reads it.
      if (const KeyChange* prev = live_in(changes, begin_))
        event.prev_kv.push_back(key_value(entry->first, *prev));
      events_.push_back(std::move(event));
    }
    store_.latest_change_revision_ =
        std::max(store_.latest_change_revision_, change.mod_revision);
    const bool was_live = !changes.empty() && !changes.back().tombstone;
    const bool is_live = !change.tombstone;
    changes.push_back(std::move(change));
    // Why the check: most writes overwrite a live key, which stays in the live index as it is.
    if (was_live != is_live) store_.index_liveness(*entry);
    if (keeps_undo_) touched_keys_.push_back(&entry->first);
    ++change_count_;
  }

  EtcdStore& store_;
  const Revision begin_;
  const Revision latest_change_revision_before_;  // for abort()
  std::int64_t change_count_ = 0;  // changes so far; also the next sub-revision
  std::vector<Event> events_;
  std::vector<Event>* events_out_;
  const bool keeps_undo_;
  // The undo log, kept only with Undo::kept. One per change, for abort(): the history_ map's
  // own key (map nodes never move).
  std::vector<const std::string*> touched_keys_;
  std::map<LeaseId, std::set<std::string>> lease_keys_before_;  // first copy wins, for abort()
};

EtcdStore::EtcdStore(EtcdStoreOptions options) : options_(options) {}

EtcdStore::EtcdStore(const EtcdStore& other)
    : options_(other.options_),
      history_(other.history_),
      latest_change_revision_(other.latest_change_revision_),
      leases_(other.leases_),
      current_revision_(other.current_revision_),
      compact_main_revision_(other.compact_main_revision_) {
  // The other store's index points into its own history.
  for (const HistoryEntry& entry : history_) index_liveness(entry);
}

EtcdStore& EtcdStore::operator=(const EtcdStore& other) {
  if (this != &other) *this = EtcdStore(other);
  return *this;
}

void EtcdStore::index_liveness(const HistoryEntry& entry) {
  if (!entry.second.empty() && !entry.second.back().tombstone) {
    live_keys_.insert(&entry);
  } else {
    live_keys_.erase(&entry);
  }
}

// ---- Reading ----

KeyValue EtcdStore::key_value(const std::string& key, const KeyChange& change) {
  KeyValue kv;
  kv.key = key;
  kv.create_revision = change.create_revision;
  kv.mod_revision = change.mod_revision;
  kv.version = change.version;
  kv.value = change.value;
  kv.lease = change.lease;
  return kv;
}

const EtcdStore::KeyChange* EtcdStore::live_at(const std::string& key, Revision rev) const {
  auto it = history_.find(key);
  return it == history_.end() ? nullptr : live_in(it->second, rev);
}

const EtcdStore::KeyChange* EtcdStore::live_in(const Changes& changes, Revision rev) {
  // Most reads are of the latest revision: no search then.
  if (!changes.empty() && changes.back().mod_revision <= rev)
    return changes.back().tombstone ? nullptr : &changes.back();
  auto after = std::upper_bound(changes.begin(), changes.end(), rev,
                                [](Revision r, const KeyChange& c) { return r < c.mod_revision; });
  if (after == changes.begin()) return nullptr;
  const KeyChange& last = *std::prev(after);
  return last.tombstone ? nullptr : &last;
}

std::vector<KeyValue> EtcdStore::live_in_range(const std::string& key,
                                               const std::string& range_end,
                                               Revision rev) const {
  const std::vector<LiveRef> refs = live_refs_in_range(key, range_end, rev);
  std::vector<KeyValue> kvs;
  kvs.reserve(refs.size());
  for (const LiveRef& live : refs) kvs.push_back(live.key_value());
  return kvs;
}

std::vector<EtcdStore::LiveRef> EtcdStore::live_refs_in_range(const std::string& key,
                                                              const std::string& range_end,
                                                              Revision rev) const {
  std::vector<LiveRef> kvs;
  if (range_end.empty()) {
    if (auto it = history_.find(key); it != history_.end())
      if (const KeyChange* change = live_in(it->second, rev)) kvs.push_back({&it->first, change});
    return kvs;
  }
  const bool unbounded = is_gte_range(range_end);
  if (rev >= latest_change_revision_) {  // the latest state: only live keys can be in it
    for (auto it = live_keys_.lower_bound(key); it != live_keys_.end(); ++it) {
      const HistoryEntry& entry = **it;
      if (!unbounded && entry.first >= range_end) break;
      assert(!entry.second.empty() && !entry.second.back().tombstone);
      kvs.push_back({&entry.first, &entry.second.back()});
    }
    return kvs;
  }
  for (auto it = history_.lower_bound(key); it != history_.end(); ++it) {
    if (!unbounded && it->first >= range_end) break;
    if (const KeyChange* change = live_in(it->second, rev)) kvs.push_back({&it->first, change});
  }
  return kvs;
}

// etcd's applierV3backend.Range over mvcc's rangeKeys, with `current` the revision the reader
// sees (inside a write txn, the txn's own revision once it has changed something).
Result<RangeResponse> EtcdStore::range_at(const RangeRequest& req, Revision current) const {
  Revision rev = req.revision;
  if (rev > current) return future_revision_error();
  if (rev <= 0) rev = current;
  if (rev < compact_main_revision_) return compacted_error();

  // Filtered, sorted and limited by reference; only what the response keeps is copied.
  std::vector<LiveRef> kvs = live_refs_in_range(req.key, req.range_end, rev);
  RangeResponse resp;
  resp.header.revision = current;
  resp.count = static_cast<std::int64_t>(kvs.size());
  if (req.count_only) return resp;

  std::erase_if(kvs, [&](const LiveRef& live) {
    const KeyChange& kv = *live.change;
    return (req.max_mod_revision != 0 && kv.mod_revision > req.max_mod_revision) ||
           (req.min_mod_revision != 0 && kv.mod_revision < req.min_mod_revision) ||
           (req.max_create_revision != 0 && kv.create_revision > req.max_create_revision) ||
           (req.min_create_revision != 0 && kv.create_revision < req.min_create_revision);
  });

  // etcd reads the whole range only when it must sort or filter it; otherwise it reads
  // limit + 1 keys in key order (the extra one says whether there are more), and sorts and
  // cuts those: with order NONE and another target, the answer is the first keys by key,
  // sorted by the target, not the smallest by the target.
  const bool has_filter = req.max_mod_revision != 0 || req.min_mod_revision != 0 ||
                          req.max_create_revision != 0 || req.min_create_revision != 0;
  if (req.sort_order == SortOrder::none && !has_filter && req.limit > 0 &&
      static_cast<std::int64_t>(kvs.size()) > req.limit + 1)
    kvs.resize(static_cast<std::size_t>(req.limit + 1));

  SortOrder order = req.sort_order;
  // Results come in key order already; etcd sorts ascending by default only for other targets.
  if (order == SortOrder::none && req.sort_target != SortTarget::key) order = SortOrder::ascend;
  // Stable sorts: ties keep key order, which is what Go's insertion sort (used by sort.Sort for
  // up to 12 elements) gives etcd; beyond that etcd's tie order is unspecified.
  const SortTarget target = req.sort_target;
  const auto less = [target](const LiveRef& a, const LiveRef& b) {
    switch (target) {
      case SortTarget::key: return *a.key < *b.key;
      case SortTarget::version: return a.change->version < b.change->version;
      case SortTarget::create: return a.change->create_revision < b.change->create_revision;
      case SortTarget::mod: return a.change->mod_revision < b.change->mod_revision;
      case SortTarget::value: return a.change->value < b.change->value;
    }
    return false;
  };
  if (order == SortOrder::ascend) {
    std::stable_sort(kvs.begin(), kvs.end(), less);
  } else if (order == SortOrder::descend) {
    std::stable_sort(kvs.begin(), kvs.end(),
                     [&](const LiveRef& a, const LiveRef& b) { return less(b, a); });
  }

  if (req.limit > 0 && static_cast<std::int64_t>(kvs.size()) > req.limit) {
    kvs.resize(static_cast<std::size_t>(req.limit));
    resp.more = true;
  }
  resp.kvs.reserve(kvs.size());
  for (const LiveRef& live : kvs) {
    resp.kvs.push_back(live.key_value());
    if (req.keys_only) resp.kvs.back().value.clear();
  }
  return resp;
}

Result<RangeResponse> EtcdStore::range(const RangeRequest& req) const {
  // etcd answers a range with an empty key "key is not provided" (ErrGRPCEmptyKey).
  if (req.key.empty()) return empty_key_error();
  return range_at(req, current_revision_);
}

// ---- Writing ----

// Both are checked against the state before the write (etcd's checkPut on the read view).
namespace {
template <typename Store>
std::optional<Error> missing_lease(const Store& leases, const PutRequest& req) {
  if (req.lease != 0 && !leases.count(req.lease)) return lease_not_found_error();
  return std::nullopt;
}
}  // namespace

std::optional<Error> EtcdStore::check_put_preconditions(const PutRequest& req) const {
  // Order as in a standalone Put: the lease first, then the key the ignore flags need.
  if (auto err = missing_lease(leases_, req)) return err;
  if ((req.ignore_value || req.ignore_lease) && live_at(req.key, current_revision_) == nullptr) {
    return Error(ErrorCode::invalid_argument, kKeyNotFoundMessage);
  }
  return std::nullopt;
}

Result<PutResponse> EtcdStore::apply_put(WriteTxn& txn, const PutRequest& req) {
  PutResponse resp;
  // One search of the history for the read and the write (a lower bound, so that a new key
  // is inserted at the place found).
  auto entry = history_.lower_bound(req.key);
  const bool known = entry != history_.end() && entry->first == req.key;
  // Points into the key's history; read before txn.put appends to it.
  const KeyChange* prev = known ? live_in(entry->second, txn.read_revision()) : nullptr;
  if ((req.ignore_value || req.ignore_lease) && !prev) {
    // The flags were checked against the state before the txn, but an earlier delete in the
    // same txn can still remove the key: a delete with range_end "\0" escapes the duplicate-key
    // check. etcd 3.4 panics applying such a txn (applyTxn: "unexpected error during txn"),
    // taking down every member; the simulator refuses the txn instead and reports why.
    return Error(ErrorCode::invalid_argument,
                 std::string(kKeyNotFoundMessage) +
                     " (deleted earlier in the same txn; etcd 3.4 would crash applying it)");
  }
  if (req.prev_kv && prev) resp.prev_kv.push_back(key_value(req.key, *prev));
  const std::string& value = req.ignore_value ? prev->value : req.value;
  const LeaseId lease = req.ignore_lease ? prev->lease : req.lease;
  if (!known) entry = history_.emplace_hint(entry, req.key, Changes{});
  txn.put(entry, value, lease);
  resp.header.revision = txn.write_revision();
  return resp;
}

DeleteRangeResponse EtcdStore::apply_delete(WriteTxn& txn, const DeleteRangeRequest& req) {
  DeleteRangeResponse resp;
  if (req.prev_kv) resp.prev_kvs = live_in_range(req.key, req.range_end, txn.read_revision());
  resp.deleted = txn.delete_range(req.key, req.range_end);
  // etcd: the txn's revision if it has changed anything so far, else the revision before it.
  resp.header.revision = txn.read_revision();
  return resp;
}

Result<PutResponse> EtcdStore::put(const PutRequest& req, std::vector<Event>* events) {
  if (auto err = check_put_request(req)) return *err;
  if (auto err = check_put_preconditions(req)) return *err;
  WriteTxn txn(*this, events, WriteTxn::Undo::not_needed);
  Result<PutResponse> resp = apply_put(txn, req);  // cannot fail: checked just above
  txn.end();
  return resp;
}

Result<DeleteRangeResponse> EtcdStore::delete_range(const DeleteRangeRequest& req,
                                                    std::vector<Event>* events) {
  if (req.key.empty()) return empty_key_error();
  WriteTxn txn(*this, events, WriteTxn::Undo::not_needed);
  DeleteRangeResponse resp = apply_delete(txn, req);
  resp.header.revision = txn.end();
  return resp;
}

// ---- Txn ----

bool EtcdStore::compare_holds(const Compare& c) const {
  const std::vector<LiveRef> kvs = live_refs_in_range(c.key, c.range_end, current_revision_);
  if (kvs.empty()) {
    // A missing key has no value to compare (an empty value is a real value); every other
    // target compares against the zero KeyValue.
    if (c.target == CompareTarget::value) return false;
    return compare_kv(c, KeyValue{});
  }
  return std::all_of(kvs.begin(), kvs.end(),
                     [&](const LiveRef& live) { return compare_kv(c, *live.change); });
}

EtcdStore::TxnPath EtcdStore::compare_to_path(const TxnRequest& req) const {
  TxnPath path;
  path.succeeded = std::all_of(req.compare.begin(), req.compare.end(),
                               [&](const Compare& c) { return compare_holds(c); });
  for (const RequestOp& op : taken_ops(req, path.succeeded)) {
    if (auto* nested = std::get_if<std::shared_ptr<TxnRequest>>(&op.request)) {
      path.nested.push_back(compare_to_path(**nested));
    }
  }
  return path;
}

// etcd's checkRequests(checkPut): the ops of the taken branch in order, a nested txn's ops
// where the nested txn stands (depth first), so the first failing op decides the error.
std::optional<Error> EtcdStore::check_puts_on_path(const TxnRequest& req,
                                                   const TxnPath& path) const {
  std::size_t nested_index = 0;
  for (const RequestOp& op : taken_ops(req, path.succeeded)) {
    if (auto* nested = std::get_if<std::shared_ptr<TxnRequest>>(&op.request)) {
      if (auto err = check_puts_on_path(**nested, path.nested[nested_index++])) return err;
      continue;
    }
    auto* put = std::get_if<PutRequest>(&op.request);
    if (put == nullptr) continue;
    // Inside a txn etcd checks the ignore flags' key before the lease.
    if ((put->ignore_value || put->ignore_lease) && live_at(put->key, current_revision_) == nullptr) {
      return Error(ErrorCode::invalid_argument, kKeyNotFoundMessage);
    }
    if (auto err = missing_lease(leases_, *put)) return err;
  }
  return std::nullopt;
}

// etcd's checkRequests(checkRange): explicit revisions must be readable before the txn starts,
// checked in the same depth-first order as the puts.
// Quirk kept: only revision 0 means "latest" here; before any compaction etcd's first revision
// is -1, so revision -1 reads the latest but -2 and below are "compacted".
std::optional<Error> EtcdStore::check_ranges_on_path(const TxnRequest& req,
                                                     const TxnPath& path) const {
  std::size_t nested_index = 0;
  for (const RequestOp& op : taken_ops(req, path.succeeded)) {
    if (auto* nested = std::get_if<std::shared_ptr<TxnRequest>>(&op.request)) {
      if (auto err = check_ranges_on_path(**nested, path.nested[nested_index++])) return err;
      continue;
    }
    auto* range = std::get_if<RangeRequest>(&op.request);
    if (range == nullptr || range->revision == 0) continue;
    if (range->revision > current_revision_) return future_revision_error();
    if (range->revision < compact_main_revision_) return compacted_error();
  }
  return std::nullopt;
}

Result<TxnResponse> EtcdStore::apply_txn(WriteTxn& txn, const TxnRequest& req,
                                         const TxnPath& path) {
  TxnResponse resp;  // a nested response keeps the zero header etcd 3.4 gives it
  resp.succeeded = path.succeeded;
  std::size_t nested_index = 0;
  for (const RequestOp& op : taken_ops(req, path.succeeded)) {
    ResponseOp out;
    if (auto* range = std::get_if<RangeRequest>(&op.request)) {
      Result<RangeResponse> r = range_at(*range, txn.read_revision());
      assert(r.ok() && "range revisions are checked before applying");
      out.response = r.ok() ? std::move(r).value() : RangeResponse{};
    } else if (auto* put = std::get_if<PutRequest>(&op.request)) {
      Result<PutResponse> r = apply_put(txn, *put);
      if (!r.ok()) return r.error();
      out.response = std::move(r).value();
    } else if (auto* del = std::get_if<DeleteRangeRequest>(&op.request)) {
      out.response = apply_delete(txn, *del);
    } else {
      const auto& nested = std::get<std::shared_ptr<TxnRequest>>(op.request);
      Result<TxnResponse> r = apply_txn(txn, *nested, path.nested[nested_index++]);
      if (!r.ok()) return r.error();
      out.response = std::make_shared<TxnResponse>(std::move(r).value());
    }
    resp.responses.push_back(std::move(out));
  }
  return resp;
}

Result<TxnResponse> EtcdStore::txn(const TxnRequest& req, std::vector<Event>* events) {
  if (auto err = check_txn_request(req, options_.max_txn_ops)) return *err;
  WrittenKeys unused;
  if (auto err = check_intervals(req.success, &unused)) return *err;
  if (auto err = check_intervals(req.failure, &unused)) return *err;

  const TxnPath path = compare_to_path(req);
  if (auto err = check_puts_on_path(req, path)) return *err;
  if (auto err = check_ranges_on_path(req, path)) return *err;

  WriteTxn txn(*this, events, WriteTxn::Undo::kept);
  Result<TxnResponse> resp = apply_txn(txn, req, path);
  if (!resp.ok()) {
    txn.abort();
    return resp;
  }
  resp->header.revision = txn.end();
  return resp;
}

// ---- Compaction ----

Result<CompactionResponse> EtcdStore::compact(const CompactionRequest& req) {
  if (req.revision <= compact_main_revision_) return compacted_error();
  if (req.revision > current_revision_) return future_revision_error();
  compact_main_revision_ = req.revision;
  // Keep, per key, the newest change at or below the compaction revision only if it is a live
  // value (etcd's keyIndex.compact drops a generation that ends in a tombstone at or below it).
  for (auto it = history_.begin(); it != history_.end();) {
    auto& changes = it->second;
    auto after = std::upper_bound(changes.begin(), changes.end(), req.revision,
                                  [](Revision r, const KeyChange& c) { return r < c.mod_revision; });
    if (after != changes.begin()) {
      auto newest = std::prev(after);
      changes.erase(changes.begin(), newest->tombstone ? after : newest);
    }
    it = changes.empty() ? history_.erase(it) : std::next(it);
  }
  CompactionResponse resp;
  resp.header.revision = current_revision_;
  return resp;
}

Revision EtcdStore::compact_revision() const { return std::max<Revision>(compact_main_revision_, 0); }

// ---- Leases ----

Result<LeaseGrantResponse> EtcdStore::lease_grant(const LeaseGrantRequest& req, MonoTime now) {
  if (req.id == 0) {
    return Error(ErrorCode::invalid_argument, "lease id 0 means \"none\"; the member picks an id");
  }
  if (req.ttl_seconds > kMaxLeaseTtlSeconds) {
    return Error(ErrorCode::invalid_argument, "etcdserver: too large lease TTL");
  }
  if (leases_.count(req.id)) {
    return Error(ErrorCode::invalid_argument, "etcdserver: lease already exists");
  }
  Lease lease;
  lease.ttl_seconds = std::max(req.ttl_seconds, options_.min_lease_ttl_seconds);
  lease.expiry = expiry_after(now, Duration::zero(), lease.ttl_seconds);
  LeaseGrantResponse resp;
  resp.header.revision = current_revision_;
  resp.id = req.id;
  resp.ttl_seconds = lease.ttl_seconds;
  leases_.emplace(req.id, std::move(lease));
  return resp;
}

Result<LeaseRevokeResponse> EtcdStore::lease_revoke(LeaseId id, std::vector<Event>* events) {
  auto it = leases_.find(id);
  if (it == leases_.end()) return lease_not_found_error();
  // Copied: deleting a key detaches it from the set. std::set gives etcd's sorted order.
  const std::set<std::string> keys = it->second.keys;
  WriteTxn txn(*this, events, WriteTxn::Undo::not_needed);
  for (const std::string& key : keys) txn.delete_range(key, "");
  LOCKSTEP_INVARIANT(it->second.keys.empty(), "a lease's keys go with it");
  leases_.erase(id);
  LeaseRevokeResponse resp;
  resp.header.revision = txn.end();
  return resp;
}

Result<std::int64_t> EtcdStore::lease_renew(LeaseId id, MonoTime now) {
  auto it = leases_.find(id);
  if (it == leases_.end()) return lease_not_found_error();
  if (it->second.expiry <= now) {
    return Error(ErrorCode::lease_not_found,
                 "lease expired and awaits its revoke (etcd would hold the keepalive)");
  }
  it->second.expiry = expiry_after(now, Duration::zero(), it->second.ttl_seconds);
  return it->second.ttl_seconds;
}

LeaseTimeToLiveResponse EtcdStore::lease_time_to_live(const LeaseTimeToLiveRequest& req,
                                                      MonoTime now) const {
  LeaseTimeToLiveResponse resp;
  resp.header.revision = current_revision_;
  resp.id = req.id;
  auto it = leases_.find(req.id);
  if (it == leases_.end()) {
    resp.ttl_seconds = -1;
    return resp;
  }
  const Lease& lease = it->second;
  // Integer division truncates toward zero, like Go's int64(d.Seconds()).
  resp.ttl_seconds = to_ns(lease.expiry - now) / 1'000'000'000;
  resp.granted_ttl_seconds = lease.ttl_seconds;
  if (req.keys) resp.keys.assign(lease.keys.begin(), lease.keys.end());
  return resp;
}

std::vector<LeaseId> EtcdStore::expired_leases(MonoTime now) const {
  std::vector<std::pair<MonoTime, LeaseId>> expired;
  for (const auto& [id, lease] : leases_) {
    if (lease.expiry <= now) expired.emplace_back(lease.expiry, id);
  }
  std::sort(expired.begin(), expired.end());
  std::vector<LeaseId> ids;
  for (const auto& entry : expired) ids.push_back(entry.second);
  return ids;
}

void EtcdStore::extend_all_leases(MonoTime now, Duration extension) {
  for (auto& [id, lease] : leases_) {
    lease.expiry = expiry_after(now, extension, lease.ttl_seconds);
  }
}

bool EtcdStore::lease_expired(LeaseId id, MonoTime now) const {
  auto it = leases_.find(id);
  return it != leases_.end() && it->second.expiry <= now;
}

std::optional<MonoTime> EtcdStore::lease_expiry(LeaseId id) const {
  auto it = leases_.find(id);
  if (it == leases_.end()) return std::nullopt;
  return it->second.expiry;
}

std::vector<LeaseId> EtcdStore::lease_ids() const {
  std::vector<LeaseId> ids;
  for (const auto& entry : leases_) ids.push_back(entry.first);
  return ids;
}

// ---- Watch support ----

Result<std::vector<Event>> EtcdStore::events_since(Revision start, const std::string& key,
                                                   const std::string& range_end) const {
  if (start < compact_main_revision_) return compacted_error();
  std::vector<Event> events;
  if (start <= 0) return events;

  std::vector<std::tuple<Revision, std::int64_t, Event>> ordered;
  auto collect = [&](const std::string& k, const Changes& changes) {
    for (const KeyChange& change : changes) {
      if (change.mod_revision < start) continue;
      Event event;
      event.type = change.tombstone ? EventType::del : EventType::put;
      event.kv = key_value(k, change);
      // etcd reads prev_kv at revision - 1; that read fails once it is below the compaction.
      if (change.mod_revision - 1 >= compact_main_revision_) {
        if (const KeyChange* prev = live_in(changes, change.mod_revision - 1))
          event.prev_kv.push_back(key_value(k, *prev));
      }
      ordered.emplace_back(change.mod_revision, change.sub, std::move(event));
    }
  };
  if (range_end.empty()) {
    if (auto it = history_.find(key); it != history_.end()) collect(it->first, it->second);
  } else {
    const bool unbounded = is_gte_range(range_end);
    for (auto it = history_.lower_bound(key); it != history_.end(); ++it) {
      if (!unbounded && it->first >= range_end) break;
      collect(it->first, it->second);
    }
  }
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  for (auto& entry : ordered) events.push_back(std::move(std::get<2>(entry)));
  return events;
}

// ---- Inspection ----

std::vector<KeyValue> EtcdStore::all_live_keys() const {
  return live_in_range(std::string(1, '\0'), std::string(1, '\0'), current_revision_);
}

}  // namespace lockstep::sim
