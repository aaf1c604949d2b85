// Property: EtcdStore answers every request exactly like a deliberately simple reference model
// (one full snapshot per revision, linear scans, no incremental bookkeeping) on random sequences
// of put / delete / range / txn / compact / lease / watch calls over a small key space.
#include "lockstep/sim/etcd_store.h"

#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace lockstep;
using lockstep::sim::EtcdStore;
using lockstep::sim::EtcdStoreOptions;

using Snapshot = std::map<std::string, KeyValue>;

bool in_range(const std::string& key, const std::string& begin, const std::string& end) {
  if (end.empty()) return key == begin;
  if (end == std::string(1, '\0')) return key >= begin;
  return key >= begin && key < end;
}

std::vector<KeyValue> scan(const Snapshot& snap, const std::string& begin, const std::string& end) {
  std::vector<KeyValue> out;
  for (const auto& [key, kv] : snap) {
    if (in_range(key, begin, end)) out.push_back(kv);
  }
  return out;
}

Error err(ErrorCode code) { return Error(code, "model"); }

// ------------------------------------ the reference model ------------------------------------

class Model {
 public:
  explicit Model(EtcdStoreOptions options) : options_(options), snaps_(2) {}  // snaps_[1]: empty

  Revision rev() const { return static_cast<Revision>(snaps_.size()) - 1; }
  const Snapshot& latest() const { return snaps_.back(); }
  Revision compact_revision() const { return std::max<Revision>(compacted_, 0); }
  std::vector<KeyValue> live() const { return scan(latest(), std::string(1, '\0'), std::string(1, '\0')); }
  std::vector<LeaseId> lease_ids() const {
    std::vector<LeaseId> ids;
    for (const auto& [id, lease] : leases_) ids.push_back(id);
    return ids;
  }

  Result<RangeResponse> range(const RangeRequest& req) const {
    if (req.key.empty()) return err(ErrorCode::empty_key);
    return range_in(req, rev(), [&](Revision r) -> const Snapshot& { return snaps_[r]; });
  }

  Result<PutResponse> put(const PutRequest& req, std::vector<Event>* events) {
    if (auto e = static_put_check(req)) return *e;
    if (req.lease != 0 && !leases_.count(req.lease)) return err(ErrorCode::lease_not_found);
    if ((req.ignore_value || req.ignore_lease) && !latest().count(req.key)) {
      return err(ErrorCode::invalid_argument);
    }
    Write w = begin_write();
    Result<PutResponse> resp = apply_put(w, req);
    end_write(w, events);
    return resp;
  }

  Result<DeleteRangeResponse> delete_range(const DeleteRangeRequest& req, std::vector<Event>* events) {
    if (req.key.empty()) return err(ErrorCode::empty_key);
    Write w = begin_write();
    DeleteRangeResponse resp = apply_delete(w, req);
    resp.header.revision = end_write(w, events);
    return resp;
  }

  Result<TxnResponse> txn(const TxnRequest& req, std::vector<Event>* events) {
    if (auto e = static_txn_check(req, options_.max_txn_ops)) return *e;
    std::set<std::string> puts;
    std::vector<std::pair<std::string, std::string>> dels;
    if (!intervals_ok(req.success, puts, dels) || !intervals_ok(req.failure, puts, dels)) {
      return err(ErrorCode::duplicate_key);
    }
    if (auto e = path_put_check(req)) return *e;
    if (auto e = path_range_check(req)) return *e;
    Write w = begin_write();
    Result<TxnResponse> resp = apply_txn(w, req);
    if (!resp.ok()) return resp;  // the working copy is simply dropped
    resp->header.revision = end_write(w, events);
    return resp;
  }

  Result<CompactionResponse> compact(const CompactionRequest& req) {
    if (req.revision <= compacted_) return err(ErrorCode::compacted);
    if (req.revision > rev()) return err(ErrorCode::future_revision);
    compacted_ = req.revision;
    CompactionResponse resp;
    resp.header.revision = rev();
    return resp;
  }

  Result<LeaseGrantResponse> lease_grant(const LeaseGrantRequest& req, MonoTime now) {
    if (req.id == 0 || leases_.count(req.id)) return err(ErrorCode::invalid_argument);
    std::int64_t ttl = std::max(req.ttl_seconds, options_.min_lease_ttl_seconds);
    leases_[req.id] = {ttl, now + seconds(ttl)};
    LeaseGrantResponse resp;
    resp.header.revision = rev();
    resp.id = req.id;
    resp.ttl_seconds = ttl;
    return resp;
  }

  Result<LeaseRevokeResponse> lease_revoke(LeaseId id, std::vector<Event>* events) {
    if (!leases_.count(id)) return err(ErrorCode::lease_not_found);
    Write w = begin_write();
    for (const std::string& key : keys_of_lease(id)) apply_delete(w, DeleteRangeRequest{key, "", false});
    leases_.erase(id);
    LeaseRevokeResponse resp;
    resp.header.revision = end_write(w, events);
    return resp;
  }

  Result<std::int64_t> lease_renew(LeaseId id, MonoTime now) {
    auto it = leases_.find(id);
    if (it == leases_.end() || it->second.expiry <= now) return err(ErrorCode::lease_not_found);
    it->second.expiry = now + seconds(it->second.ttl);
    return it->second.ttl;
  }

  LeaseTimeToLiveResponse lease_time_to_live(const LeaseTimeToLiveRequest& req, MonoTime now) const {
    LeaseTimeToLiveResponse resp;
    resp.header.revision = rev();
    resp.id = req.id;
    auto it = leases_.find(req.id);
    if (it == leases_.end()) {
      resp.ttl_seconds = -1;
      return resp;
    }
    resp.ttl_seconds = static_cast<std::int64_t>(to_seconds(it->second.expiry - now));
    resp.granted_ttl_seconds = it->second.ttl;
    if (req.keys) resp.keys = keys_of_lease(req.id);
    return resp;
  }

  std::vector<LeaseId> expired_leases(MonoTime now) const {
    std::vector<std::pair<MonoTime, LeaseId>> due;
    for (const auto& [id, lease] : leases_) {
      if (lease.expiry <= now) due.emplace_back(lease.expiry, id);
    }
    std::sort(due.begin(), due.end());
    std::vector<LeaseId> ids;
    for (const auto& d : due) ids.push_back(d.second);
    return ids;
  }

  void extend_all_leases(MonoTime now, Duration extension) {
    for (auto& [id, lease] : leases_) lease.expiry = now + extension + seconds(lease.ttl);
  }

  Result<std::vector<Event>> events_since(Revision start, const std::string& key,
                                          const std::string& end) const {
    if (start < compacted_) return err(ErrorCode::compacted);
    std::vector<Event> out;
    if (start <= 0) return out;
    for (Revision r = start; r <= rev(); ++r) {
      for (Event e : events_at_[r]) {
        if (!in_range(e.kv.key, key, end)) continue;
        if (r == compacted_) {
          // Compaction keeps only what is live at the compaction revision; revision - 1 is gone.
          auto live_it = snaps_[r].find(e.kv.key);
          if (e.type != EventType::put || live_it == snaps_[r].end() || !(live_it->second == e.kv)) {
            continue;
          }
          e.prev_kv.clear();
        }
        out.push_back(std::move(e));
      }
    }
    return out;
  }

 private:
  struct ModelLease {
    std::int64_t ttl = 0;
    MonoTime expiry;
  };
  struct Write {
    Revision begin = 0;
    Snapshot work;
    bool changed = false;
    std::vector<Event> events;
  };
  template <typename SnapshotAt>
  Result<RangeResponse> range_in(const RangeRequest& req, Revision current, SnapshotAt at) const {
    Revision r = req.revision;
    if (r > current) return err(ErrorCode::future_revision);
    if (r <= 0) r = current;
    if (r < compacted_) return err(ErrorCode::compacted);
    std::vector<KeyValue> kvs = scan(at(r), req.key, req.range_end);
    RangeResponse resp;
    resp.header.revision = current;
    resp.count = static_cast<std::int64_t>(kvs.size());
    if (req.count_only) return resp;
    std::vector<KeyValue> kept;
    for (const KeyValue& kv : kvs) {
      bool drop = (req.max_mod_revision && kv.mod_revision > req.max_mod_revision) ||
                  (req.min_mod_revision && kv.mod_revision < req.min_mod_revision) ||
                  (req.max_create_revision && kv.create_revision > req.max_create_revision) ||
                  (req.min_create_revision && kv.create_revision < req.min_create_revision);
      if (!drop) kept.push_back(kv);
    }
    // etcd 3.4 reads only limit + 1 keys, in key order, when it need neither sort nor filter
    // the whole range; with order NONE and another target it sorts just those.
    const bool filtered = req.max_mod_revision || req.min_mod_revision || req.max_create_revision ||
                          req.min_create_revision;
    if (req.sort_order == SortOrder::none && !filtered && req.limit > 0 &&
        static_cast<std::int64_t>(kept.size()) > req.limit + 1)
      kept.resize(static_cast<std::size_t>(req.limit + 1));
    SortOrder order = req.sort_order;
    if (order == SortOrder::none && req.sort_target != SortTarget::key) order = SortOrder::ascend;
    if (order != SortOrder::none) {
      auto field = [&](const KeyValue& kv) {
        switch (req.sort_target) {
          case SortTarget::version: return std::make_pair(kv.version, std::string());
          case SortTarget::create: return std::make_pair(kv.create_revision, std::string());
          case SortTarget::mod: return std::make_pair(kv.mod_revision, std::string());
          case SortTarget::value: return std::make_pair(std::int64_t{0}, kv.value);
          case SortTarget::key: break;
        }
        return std::make_pair(std::int64_t{0}, kv.key);
      };
      // Insertion sort, the way Go sorts small slices: equal elements keep their key order.
      for (std::size_t i = 1; i < kept.size(); ++i) {
        for (std::size_t j = i; j > 0; --j) {
          bool less = order == SortOrder::ascend ? field(kept[j]) < field(kept[j - 1])
                                                 : field(kept[j - 1]) < field(kept[j]);
          if (!less) break;
          std::swap(kept[j], kept[j - 1]);
        }
      }
    }
    if (req.limit > 0 && static_cast<std::int64_t>(kept.size()) > req.limit) {
      kept.resize(static_cast<std::size_t>(req.limit));
      resp.more = true;
    }
    if (req.keys_only) {
      for (KeyValue& kv : kept) kv.value.clear();
    }
    resp.kvs = kept;
    return resp;
  }

  std::vector<std::string> keys_of_lease(LeaseId id) const {
    std::vector<std::string> keys;
    for (const auto& [key, kv] : latest()) {
      if (kv.lease == id) keys.push_back(key);
    }
    return keys;
  }

  static std::optional<Error> static_put_check(const PutRequest& req) {
    if (req.key.empty()) return err(ErrorCode::empty_key);
    if ((req.ignore_value && !req.value.empty()) || (req.ignore_lease && req.lease != 0)) {
      return err(ErrorCode::invalid_argument);
    }
    return std::nullopt;
  }

  static std::optional<Error> static_txn_check(const TxnRequest& t, std::int64_t budget) {
    std::int64_t opc = static_cast<std::int64_t>(
        std::max({t.compare.size(), t.success.size(), t.failure.size()}));
    if (opc > budget) return err(ErrorCode::too_many_ops);
    for (const Compare& c : t.compare) {
      if (c.key.empty()) return err(ErrorCode::empty_key);
    }
    for (const auto* ops : {&t.success, &t.failure}) {
      for (const RequestOp& op : *ops) {
        std::optional<Error> e;
        if (auto* r = std::get_if<RangeRequest>(&op.request)) {
          if (r->key.empty()) e = err(ErrorCode::empty_key);
        } else if (auto* p = std::get_if<PutRequest>(&op.request)) {
          e = static_put_check(*p);
        } else if (auto* d = std::get_if<DeleteRangeRequest>(&op.request)) {
          if (d->key.empty()) e = err(ErrorCode::empty_key);
        } else {
          e = static_txn_check(*std::get<std::shared_ptr<TxnRequest>>(op.request), budget - opc);
        }
        if (e) return e;
      }
    }
    return std::nullopt;
  }

  // etcd's checkIntervals, spelled out with a set and a list of [begin, end) pairs.
  static bool intervals_ok(const std::vector<RequestOp>& ops, std::set<std::string>& puts,
                           std::vector<std::pair<std::string, std::string>>& dels) {
    puts.clear();
    dels.clear();
    auto deleted = [&](const std::string& k) {
      for (const auto& [b, e] : dels) {
        if (b <= k && k < e) return true;
      }
      return false;
    };
    for (const RequestOp& op : ops) {
      if (auto* d = std::get_if<DeleteRangeRequest>(&op.request)) {
        dels.emplace_back(d->key, d->range_end.empty() ? d->key + std::string(1, '\0') : d->range_end);
      }
    }
    for (const RequestOp& op : ops) {
      auto* t = std::get_if<std::shared_ptr<TxnRequest>>(&op.request);
      if (t == nullptr) continue;
      std::set<std::string> then_puts, else_puts;
      std::vector<std::pair<std::string, std::string>> then_dels, else_dels;
      if (!intervals_ok((*t)->success, then_puts, then_dels)) return false;
      if (!intervals_ok((*t)->failure, else_puts, else_dels)) return false;
      for (const std::string& k : then_puts) {
        if (puts.count(k) || deleted(k)) return false;
        puts.insert(k);
      }
      for (const std::string& k : else_puts) {
        if ((puts.count(k) && !then_puts.count(k)) || deleted(k)) return false;
        puts.insert(k);
      }
      dels.insert(dels.end(), then_dels.begin(), then_dels.end());
      dels.insert(dels.end(), else_dels.begin(), else_dels.end());
    }
    for (const RequestOp& op : ops) {
      if (auto* p = std::get_if<PutRequest>(&op.request)) {
        if (puts.count(p->key) || deleted(p->key)) return false;
        puts.insert(p->key);
      }
    }
    return true;
  }

  bool compare_holds(const Compare& c) const {
    std::vector<KeyValue> kvs = scan(latest(), c.key, c.range_end);
    if (kvs.empty()) {
      if (c.target == CompareTarget::value) return false;
      kvs.push_back(KeyValue{});
    }
    for (const KeyValue& kv : kvs) {
      int cmp = 0;
      switch (c.target) {
        case CompareTarget::version: cmp = (kv.version > c.version) - (kv.version < c.version); break;
        case CompareTarget::create:
          cmp = (kv.create_revision > c.create_revision) - (kv.create_revision < c.create_revision);
          break;
        case CompareTarget::mod:
          cmp = (kv.mod_revision > c.mod_revision) - (kv.mod_revision < c.mod_revision);
          break;
        case CompareTarget::value: cmp = (kv.value > c.value) - (kv.value < c.value); break;
        case CompareTarget::lease: cmp = (kv.lease > c.lease) - (kv.lease < c.lease); break;
      }
      bool ok = c.result == CompareResult::equal       ? cmp == 0
                : c.result == CompareResult::not_equal ? cmp != 0
                : c.result == CompareResult::greater   ? cmp > 0
                                                       : cmp < 0;
      if (!ok) return false;
    }
    return true;
  }

  bool succeeds(const TxnRequest& t) const {
    return std::all_of(t.compare.begin(), t.compare.end(), [&](const Compare& c) { return compare_holds(c); });
  }
  const std::vector<RequestOp>& taken(const TxnRequest& t) const { return succeeds(t) ? t.success : t.failure; }

  // Both path checks visit the taken ops in order and descend into a nested txn where it stands,
  // like etcd 3.4's checkRequests (etcdserver/apply.go): when two ops fail, the first one in
  // that depth-first order names the error.
  std::optional<Error> path_put_check(const TxnRequest& t) const {
    for (const RequestOp& op : taken(t)) {
      if (auto* n = std::get_if<std::shared_ptr<TxnRequest>>(&op.request)) {
        if (auto e = path_put_check(**n)) return e;
        continue;
      }
      auto* p = std::get_if<PutRequest>(&op.request);
      if (p == nullptr) continue;
      if ((p->ignore_value || p->ignore_lease) && !latest().count(p->key)) return err(ErrorCode::invalid_argument);
      if (p->lease != 0 && !leases_.count(p->lease)) return err(ErrorCode::lease_not_found);
    }
    return std::nullopt;
  }

  std::optional<Error> path_range_check(const TxnRequest& t) const {
    for (const RequestOp& op : taken(t)) {
      if (auto* n = std::get_if<std::shared_ptr<TxnRequest>>(&op.request)) {
        if (auto e = path_range_check(**n)) return e;
        continue;
      }
      auto* r = std::get_if<RangeRequest>(&op.request);
      if (r == nullptr || r->revision == 0) continue;
      if (r->revision > rev()) return err(ErrorCode::future_revision);
      if (r->revision < compacted_) return err(ErrorCode::compacted);
    }
    return std::nullopt;
  }

  Write begin_write() const { return Write{rev(), latest(), false, {}}; }

  Revision end_write(Write& w, std::vector<Event>* events) {
    if (w.changed) {
      snaps_.push_back(w.work);
      events_at_.resize(snaps_.size());
      events_at_.back() = w.events;
      if (events) events->insert(events->end(), w.events.begin(), w.events.end());
    }
    return rev();
  }

  std::vector<KeyValue> before(const std::string& key) const {
    auto it = latest().find(key);
    if (it == latest().end()) return {};
    return {it->second};
  }

  Result<PutResponse> apply_put(Write& w, const PutRequest& req) {
    PutResponse resp;
    auto prev_it = w.work.find(req.key);
    std::optional<KeyValue> prev;
    if (prev_it != w.work.end()) prev = prev_it->second;
    // Deleted earlier in the same txn (etcd 3.4 would crash here; the store refuses).
    if ((req.ignore_value || req.ignore_lease) && !prev) return err(ErrorCode::invalid_argument);
    if (req.prev_kv && prev) resp.prev_kv.push_back(*prev);
    const Revision r = w.begin + 1;
    KeyValue kv{req.key,
                prev ? prev->create_revision : r,
                r,
                prev ? prev->version + 1 : 1,
                req.ignore_value ? prev->value : req.value,
                req.ignore_lease ? prev->lease : req.lease};
    w.events.push_back(Event{EventType::put, kv, before(req.key)});
    w.work[req.key] = kv;
    w.changed = true;
    resp.header.revision = r;
    return resp;
  }

  DeleteRangeResponse apply_delete(Write& w, const DeleteRangeRequest& req) {
    DeleteRangeResponse resp;
    std::vector<KeyValue> doomed = scan(w.work, req.key, req.range_end);
    if (req.prev_kv) resp.prev_kvs = doomed;
    for (const KeyValue& kv : doomed) {
      w.events.push_back(Event{EventType::del, KeyValue{kv.key, 0, w.begin + 1, 0, "", 0}, before(kv.key)});
      w.work.erase(kv.key);
      w.changed = true;
    }
    resp.deleted = static_cast<std::int64_t>(doomed.size());
    resp.header.revision = w.changed ? w.begin + 1 : w.begin;
    return resp;
  }

  Result<TxnResponse> apply_txn(Write& w, const TxnRequest& t) {
    TxnResponse resp;
    resp.succeeded = succeeds(t);  // the state before the txn: latest() is unchanged until the end
    for (const RequestOp& op : resp.succeeded ? t.success : t.failure) {
      ResponseOp out;
      if (auto* r = std::get_if<RangeRequest>(&op.request)) {
        Revision current = w.changed ? w.begin + 1 : w.begin;
        auto rr = range_in(*r, current, [&](Revision at) -> const Snapshot& {
          return at == w.begin + 1 ? w.work : snaps_[at];
        });
        RC_ASSERT(rr.ok());
        out.response = rr.value();
      } else if (auto* p = std::get_if<PutRequest>(&op.request)) {
        Result<PutResponse> pr = apply_put(w, *p);
        if (!pr.ok()) return pr.error();
        out.response = pr.value();
      } else if (auto* d = std::get_if<DeleteRangeRequest>(&op.request)) {
        out.response = apply_delete(w, *d);
      } else {
        Result<TxnResponse> tr = apply_txn(w, *std::get<std::shared_ptr<TxnRequest>>(op.request));
        if (!tr.ok()) return tr.error();
        out.response = std::make_shared<TxnResponse>(tr.value());
      }
      resp.responses.push_back(std::move(out));
    }
    return resp;
  }

  EtcdStoreOptions options_;
  std::vector<Snapshot> snaps_;             // snaps_[r]: every live key at revision r (r >= 1)
  std::vector<std::vector<Event>> events_at_ = std::vector<std::vector<Event>>(2);
  Revision compacted_ = -1;
  std::map<LeaseId, ModelLease> leases_;
};

// ------------------------------------------ generators ------------------------------------------

// A uniform pick in [lo, hi): gen::inRange alone favours small values while rapidcheck's size is
// small, which would starve the later op kinds and lease ids. Shrinking still goes towards lo.
template <typename T>
T uniform(T lo, T hi) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(lo, hi));
}

// An empty key is refused before anything else is looked at, so it is kept rare: inside a txn
// only a few txns may use it at all.
std::string gen_key(bool allow_empty = true) {
  return *rc::gen::weightedElement<std::string>(
      {{4, "a"}, {4, "b"}, {3, "ab"}, {3, "c"}, {1, "\xff"}, {allow_empty ? 1u : 0u, ""}});
}

std::string gen_range_end(const std::string& key) {
  return *rc::gen::weightedElement<std::string>({{4, ""},
                                                 {2, std::string(1, '\0')},
                                                 {2, prefix_range_end(key)},
                                                 {1, "b"},
                                                 {1, "c"},
                                                 {1, "a"}});
}

std::string gen_value() { return *rc::gen::element<std::string>("", "x", "y"); }
LeaseId gen_lease_id() { return uniform<LeaseId>(0, 4); }

PutRequest gen_put(bool allow_empty = true) {
  PutRequest p;
  p.key = gen_key(allow_empty);
  p.lease = *rc::gen::weightedElement<LeaseId>({{4, 0}, {3, 1}, {1, 2}, {1, 3}});
  p.prev_kv = *rc::gen::arbitrary<bool>();
  p.ignore_value = *rc::gen::weightedElement<bool>({{8, false}, {1, true}});
  p.ignore_lease = *rc::gen::weightedElement<bool>({{8, false}, {1, true}});
  // Mostly well-formed: a value or lease given with its ignore flag is refused outright.
  p.value = p.ignore_value && *rc::gen::weightedElement<bool>({{4, true}, {1, false}}) ? ""
                                                                                       : gen_value();
  if (p.ignore_lease && *rc::gen::weightedElement<bool>({{4, true}, {1, false}})) p.lease = 0;
  return p;
}

DeleteRangeRequest gen_delete(bool allow_empty = true) {
  DeleteRangeRequest d;
  d.key = gen_key(allow_empty);
  d.range_end = *rc::gen::weightedElement<std::string>({{3, ""}, {1, gen_range_end(d.key)}});
  d.prev_kv = *rc::gen::arbitrary<bool>();
  return d;
}

RangeRequest gen_range(Revision current, bool allow_empty = true) {
  RangeRequest r;
  r.key = gen_key(allow_empty);
  // Mostly wide ranges at the latest revision, so that sorting, filters and limits matter.
  r.range_end = *rc::gen::weightedElement<std::string>(
      {{1, gen_range_end(r.key)}, {2, std::string(1, '\0')}, {1, prefix_range_end(r.key)}});
  r.revision = *rc::gen::weightedElement<Revision>(
      {{6, 0}, {2, uniform<Revision>(-2, current + 2)}});
  r.limit = uniform<std::int64_t>(0, 4);
  r.sort_order = static_cast<SortOrder>(uniform(0, 3));
  r.sort_target = static_cast<SortTarget>(uniform(0, 5));
  r.keys_only = *rc::gen::weightedElement<bool>({{4, false}, {1, true}});
  r.count_only = *rc::gen::weightedElement<bool>({{5, false}, {1, true}});
  auto maybe_rev = [&] {
    return *rc::gen::weightedElement<Revision>({{9, 0}, {1, uniform<Revision>(1, current + 1)}});
  };
  r.min_mod_revision = maybe_rev();
  r.max_mod_revision = maybe_rev();
  r.min_create_revision = maybe_rev();
  r.max_create_revision = maybe_rev();
  return r;
}

Compare gen_compare(Revision current, bool allow_empty) {
  Compare c;
  c.key = gen_key(allow_empty);
  c.result = static_cast<CompareResult>(uniform(0, 4));
  c.target = static_cast<CompareTarget>(uniform(0, 5));
  c.version = uniform<std::int64_t>(0, 4);
  c.create_revision = uniform<Revision>(0, current + 1);
  c.mod_revision = uniform<Revision>(0, current + 1);
  c.value = gen_value();
  c.lease = gen_lease_id();
  c.range_end = *rc::gen::weightedElement<std::string>(
      {{3, ""}, {2, prefix_range_end(c.key)}, {1, std::string(1, '\0')}, {1, "c"}});
  return c;
}

TxnRequest gen_txn(Revision current, int depth, bool allow_empty) {
  TxnRequest t;
  const int compares = uniform(0, 3);
  for (int i = 0; i < compares; ++i) t.compare.push_back(gen_compare(current, allow_empty));
  for (auto* ops : {&t.success, &t.failure}) {
    // The property runs with max_txn_ops = 5, and a nested txn gets what its parent left
    // (5 - the parent's largest count): top levels are rarely over budget, nested ones sometimes.
    const int n = depth == 2 ? *rc::gen::weightedElement<int>({{4, 0}, {8, 1}, {8, 2}, {5, 3}, {1, 6}})
                             : *rc::gen::weightedElement<int>({{3, 0}, {5, 1}, {2, 2}, {1, 3}});
    for (int i = 0; i < n; ++i) {
      const int kind = *rc::gen::weightedElement<int>({{3, 0}, {3, 1}, {3, 2}, {depth > 0 ? 1u : 0u, 3}});
      if (kind == 0) ops->push_back(RequestOp{gen_range(current, allow_empty)});
      if (kind == 1) ops->push_back(RequestOp{gen_put(allow_empty)});
      if (kind == 2) ops->push_back(RequestOp{gen_delete(allow_empty)});
      if (kind == 3) {
        ops->push_back(
            RequestOp{std::make_shared<TxnRequest>(gen_txn(current, depth - 1, allow_empty))});
      }
    }
  }
  return t;
}

// ------------------------------------------ comparison ------------------------------------------

template <typename T>
void same(const Result<T>& store, const Result<T>& model) {
  RC_ASSERT(store.ok() == model.ok());
  if (store.ok()) {
    RC_ASSERT(store.value() == model.value());
  } else {
    RC_ASSERT(store.error().code == model.error().code);
    RC_ASSERT(!store.error().indeterminate());
  }
}

TEST_CASE("EtcdStore answers like the snapshot-per-revision reference model") {
  rc::prop("random request sequences", [] {
    const EtcdStoreOptions options{2, 5};
    EtcdStore store(options);
    Model model(options);
    MonoTime now(seconds(100));
    const int steps = uniform(1, 60);
    for (int step = 0; step < steps; ++step) {
      std::vector<Event> store_events, model_events;
      // Weighted towards writes so the store holds several keys; 0 put, 1 delete, 2 range, 3 txn,
      // 4 compact, 5 grant, 6 revoke, 7 renew, 8 time-to-live, 9 time passes, 10 expiry scan,
      // 11 promotion, 12 events_since.
      const int kind = *rc::gen::weightedElement<int>({{8, 0}, {2, 1}, {4, 2}, {6, 3}, {1, 4},
                                                       {2, 5}, {2, 6}, {2, 7}, {1, 8}, {2, 9},
                                                       {1, 10}, {1, 11}, {3, 12}});
      switch (kind) {
        case 0: {
          PutRequest p = gen_put();
          same(store.put(p, &store_events), model.put(p, &model_events));
          break;
        }
        case 1: {
          DeleteRangeRequest d = gen_delete();
          same(store.delete_range(d, &store_events), model.delete_range(d, &model_events));
          break;
        }
        case 2: {
          RangeRequest r = gen_range(model.rev());
          same(store.range(r), model.range(r));
          break;
        }
        case 3: {
          const bool allow_empty = *rc::gen::weightedElement<bool>({{9, false}, {1, true}});
          TxnRequest t = gen_txn(model.rev(), 2, allow_empty);
          same(store.txn(t, &store_events), model.txn(t, &model_events));
          break;
        }
        case 4: {
          // Mostly near the head, where the interesting boundaries are.
          Revision revision = *rc::gen::weightedElement<Revision>(
              {{3, model.rev()}, {2, model.rev() - 1}, {2, uniform<Revision>(-1, model.rev() + 2)}});
          CompactionRequest c{revision, false};
          same(store.compact(c), model.compact(c));
          break;
        }
        case 5: {
          LeaseGrantRequest g{uniform<std::int64_t>(-1, 6), gen_lease_id()};
          same(store.lease_grant(g, now), model.lease_grant(g, now));
          break;
        }
        case 6: {
          LeaseId id = gen_lease_id();
          same(store.lease_revoke(id, &store_events), model.lease_revoke(id, &model_events));
          break;
        }
        case 7: {
          LeaseId id = gen_lease_id();
          same(store.lease_renew(id, now), model.lease_renew(id, now));
          break;
        }
        case 8: {
          LeaseTimeToLiveRequest q{gen_lease_id(), *rc::gen::arbitrary<bool>()};
          RC_ASSERT(store.lease_time_to_live(q, now) == model.lease_time_to_live(q, now));
          break;
        }
        case 9:
          // Quarter-second steps land exactly on expiries (whole seconds after a grant).
          now += milliseconds(250 * uniform(0, 12));
          break;
        case 10: {
          // The leader's expiry scan: revoke every expired lease.
          std::vector<LeaseId> due = store.expired_leases(now);
          RC_ASSERT(due == model.expired_leases(now));
          for (LeaseId id : due) {
            same(store.lease_revoke(id, &store_events), model.lease_revoke(id, &model_events));
          }
          break;
        }
        case 11: {
          Duration extension = milliseconds(250 * uniform(0, 8));
          store.extend_all_leases(now, extension);
          model.extend_all_leases(now, extension);
          break;
        }
        case 12: {
          Revision start = *rc::gen::weightedElement<Revision>(
              {{2, std::max<Revision>(model.compact_revision(), 1)}, {1, model.compact_revision() + 1},
               {2, std::max<Revision>(model.rev() - 2, 1)},
               {2, uniform<Revision>(-1, model.rev() + 2)}});
          std::string key = gen_key();
          std::string end = gen_range_end(key);
          same(store.events_since(start, key, end), model.events_since(start, key, end));
          break;
        }
      }
      RC_ASSERT(store_events == model_events);
      RC_ASSERT(store.revision() == model.rev());
      RC_ASSERT(store.compact_revision() == model.compact_revision());
      RC_ASSERT(store.all_live_keys() == model.live());
      RC_ASSERT(store.lease_ids() == model.lease_ids());
    }
  });
}

}  // namespace
