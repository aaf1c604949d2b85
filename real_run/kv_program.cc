#include "lockstep/real_run/kv_program.h"

#include <algorithm>
#include <memory>

#include "lockstep/kv_json/etcd_json.h"

namespace lockstep::difftest {

namespace {

const std::vector<std::string>& keys() {
  static const std::vector<std::string> k = {"a", "b", "c", "d", "a/1", "a/2", "b/1", "e\xff"};
  return k;
}

const std::vector<std::string>& values() {
  static const std::vector<std::string> v = {"", "x", "y", "zz", std::string("\x00\xfe", 2)};
  return v;
}

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[rng.below(v.size())];
}

std::string random_key(Rng& rng) {
  // Rarely the empty key, which etcd refuses ("key is not provided").
  if (rng.chance(0.02)) return "";
  return pick(rng, keys());
}

// A range end for `key`: one key, every key from it, its prefix, up to another key (maybe
// before it: an empty range).
std::string random_range_end(Rng& rng, const std::string& key) {
  switch (rng.below(5)) {
    case 0:
    case 1:
      return "";
    case 2:
      return std::string(1, '\0');
    case 3:
      return key.empty() ? std::string() : prefix_range_end(key);
    default:
      return pick(rng, keys());
  }
}

// An end that makes the range span several keys: every key from `key`, its prefix, or up to a
// later key (the generator's ranges, compares and deletes should meet more than one key).
std::string multi_key_end(Rng& rng, const std::string& key) {
  switch (rng.below(3)) {
    case 0:
      return std::string(1, '\0');
    case 1:
      return key.empty() ? std::string(1, '\0') : prefix_range_end(key);
    default: {
      std::string end = pick(rng, keys());
      return end > key ? end : std::string(1, '\0');
    }
  }
}

Revision random_rel_revision(Rng& rng, const GenState& s, Revision beyond) {
  return rng.between(1, std::max<Revision>(1, s.relative_revision + beyond));
}

LeaseId random_lease(Rng& rng, const GenState& s, double none) {
  const double u = rng.unit();
  if (u < none) return 0;
  if (s.leases_granted > 0 && u < none + (1 - none) * 0.8)
    return kLeaseRefBase + static_cast<LeaseId>(rng.below(static_cast<std::uint64_t>(s.leases_granted)));
  return kBogusLease;
}

RangeRequest random_range(Rng& rng, const GenState& s) {
  RangeRequest r;
  r.key = random_key(rng);
  r.range_end = rng.chance(0.6) ? multi_key_end(rng, r.key) : random_range_end(rng, r.key);
  if (rng.chance(0.3)) r.limit = rng.between(0, 3);
  if (rng.chance(0.3)) r.revision = random_rel_revision(rng, s, 2);  // may be in the future
  if (rng.chance(0.4)) {
    r.sort_order = static_cast<SortOrder>(rng.below(3));
    r.sort_target = static_cast<SortTarget>(rng.below(5));
  }
  r.serializable = rng.chance(0.2);
  r.keys_only = rng.chance(0.15);
  r.count_only = rng.chance(0.1);
  if (rng.chance(0.15)) r.min_mod_revision = random_rel_revision(rng, s, 0);
  if (rng.chance(0.15)) r.max_mod_revision = random_rel_revision(rng, s, 0);
  if (rng.chance(0.15)) r.min_create_revision = random_rel_revision(rng, s, 0);
  if (rng.chance(0.15)) r.max_create_revision = random_rel_revision(rng, s, 0);
  return r;
}

PutRequest random_put(Rng& rng, const GenState& s) {
  PutRequest p;
  p.key = random_key(rng);
  p.value = pick(rng, values());
  p.lease = random_lease(rng, s, 0.7);
  p.prev_kv = rng.chance(0.4);
  if (rng.chance(0.06)) {
    p.ignore_value = true;
    p.value.clear();
  }
  if (rng.chance(0.06)) {
    p.ignore_lease = true;
    p.lease = 0;
  }
  // Sometimes the flags together with what they forbid (an error on both sides).
  if (rng.chance(0.02)) p.value = "not-ignored";
  return p;
}

DeleteRangeRequest random_delete(Rng& rng) {
  DeleteRangeRequest d;
  d.key = random_key(rng);
  d.range_end = random_range_end(rng, d.key);
  d.prev_kv = rng.chance(0.5);
  return d;
}

Compare random_compare(Rng& rng, const GenState& s) {
  Compare c;
  c.result = static_cast<CompareResult>(rng.below(4));
  c.target = static_cast<CompareTarget>(rng.below(5));
  c.key = rng.chance(0.98) ? pick(rng, keys()) : "";
  if (rng.chance(0.4)) c.range_end = multi_key_end(rng, c.key);
  switch (c.target) {
    case CompareTarget::version:
      c.version = rng.between(0, 3);
      break;
    case CompareTarget::create:
      c.create_revision = rng.chance(0.3) ? 0 : random_rel_revision(rng, s, 1);
      break;
    case CompareTarget::mod:
      c.mod_revision = rng.chance(0.3) ? 0 : random_rel_revision(rng, s, 1);
      break;
    case CompareTarget::value:
      c.value = pick(rng, values());
      break;
    case CompareTarget::lease:
      // Ordering lease ids says nothing two servers share (they pick ids differently):
      // greater/less only against 0 ("has a lease").
      c.lease = (c.result == CompareResult::greater || c.result == CompareResult::less)
                    ? 0
                    : random_lease(rng, s, 0.4);
      break;
  }
  return c;
}

TxnRequest random_txn(Rng& rng, const GenState& s, int depth) {
  TxnRequest t;
  const auto n_cmp = rng.below(4);
  for (std::uint64_t i = 0; i < n_cmp; ++i) t.compare.push_back(random_compare(rng, s));
  for (auto* branch : {&t.success, &t.failure}) {
    const auto n = rng.below(4);
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto kind = rng.below(depth < 1 ? 10 : 9);
      if (kind < 3) {
        branch->push_back(RequestOp{random_range(rng, s)});
      } else if (kind < 6) {
        branch->push_back(RequestOp{random_put(rng, s)});
      } else if (kind < 9) {
        branch->push_back(RequestOp{random_delete(rng)});
      } else {
        branch->push_back(RequestOp{std::make_shared<TxnRequest>(random_txn(rng, s, depth + 1))});
      }
    }
  }
  return t;
}

void instantiate_compare(Compare& c, const SideMap& side) {
  c.create_revision = side.abs(c.create_revision);
  c.mod_revision = side.abs(c.mod_revision);
  c.lease = side.lease(c.lease);
}

void instantiate_range(RangeRequest& r, const SideMap& side) {
  r.revision = side.abs(r.revision);
  r.min_mod_revision = side.abs(r.min_mod_revision);
  r.max_mod_revision = side.abs(r.max_mod_revision);
  r.min_create_revision = side.abs(r.min_create_revision);
  r.max_create_revision = side.abs(r.max_create_revision);
}

TxnRequest instantiate_txn(const TxnRequest& in, const SideMap& side) {
  TxnRequest t = in;
  for (auto& c : t.compare) instantiate_compare(c, side);
  for (auto* branch : {&t.success, &t.failure}) {
    for (auto& op : *branch) {
      if (auto* r = std::get_if<RangeRequest>(&op.request)) instantiate_range(*r, side);
      if (auto* p = std::get_if<PutRequest>(&op.request)) p->lease = side.lease(p->lease);
      if (auto* n = std::get_if<std::shared_ptr<TxnRequest>>(&op.request))
        *n = std::make_shared<TxnRequest>(instantiate_txn(**n, side));
    }
  }
  return t;
}

nlohmann::json header_json(const ResponseHeader& h, const SideMap& s) {
  return {{"revision", s.rel(h.revision)}};
}

nlohmann::json kv_json(const KeyValue& kv, const SideMap& s) {
  return {{"key", escape_bytes(kv.key)},       {"create", s.rel(kv.create_revision)},
          {"mod", s.rel(kv.mod_revision)},     {"version", kv.version},
          {"value", escape_bytes(kv.value)},   {"lease", s.lease_json(kv.lease)}};
}

nlohmann::json kvs_json(const std::vector<KeyValue>& kvs, const SideMap& s) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& kv : kvs) a.push_back(kv_json(kv, s));
  return a;
}

// A request in the history codec's words (kv_json/etcd_json.h), with its name under "op".
nlohmann::json request_json(const model::EtcdKv::Input& in) {
  nlohmann::json j = etcd_request_to_json(in);
  j["op"] = etcd_op_name(in);
  return j;
}

}  // namespace

Op generate_op(Rng& rng, const GenState& s) {
  // A program's first writes fill the store, so its ranges and compares meet several keys.
  if (s.relative_revision < 3 && rng.chance(0.5)) {
    PutRequest p;
    p.key = pick(rng, keys());
    p.value = pick(rng, values());
    return p;
  }
  const auto roll = rng.below(100);
  if (roll < 22) return random_put(rng, s);
  if (roll < 42) return random_range(rng, s);
  if (roll < 48) return random_delete(rng);
  if (roll < 68) return random_txn(rng, s, 0);
  if (roll < 74) {
    LeaseGrantRequest g;
    static const std::int64_t ttls[] = {0, 1, 2, 3, 5, 60};
    g.ttl_seconds = rng.chance(0.03) ? 10'000'000'000 : ttls[rng.below(6)];
    // Sometimes a client-chosen id (unique to the program; maybe chosen twice).
    if (rng.chance(0.2)) g.id = static_cast<LeaseId>(0x10000 + s.program * 4 + rng.below(2));
    return g;
  }
  if (roll < 80) return LeaseRevokeRequest{random_lease(rng, s, 0.0)};
  if (roll < 83) return LeaseKeepAliveRequest{random_lease(rng, s, 0.0)};
  if (roll < 88) return LeaseTimeToLiveRequest{random_lease(rng, s, 0.0), rng.chance(0.5)};
  if (roll < 91) {
    CompactionRequest c;
    c.revision = random_rel_revision(rng, s, 1);
    c.physical = rng.chance(0.5);
    return c;
  }
  if (roll < 97 || s.watches_open == 0) {
    WatchOpen w;
    w.request.key = pick(rng, keys());
    w.request.range_end = random_range_end(rng, w.request.key);
    w.request.start_revision = rng.chance(0.4) ? 0 : random_rel_revision(rng, s, 1);
    w.request.prev_kv = rng.chance(0.5);
    if (rng.chance(0.15)) w.request.filters.push_back(WatchFilter::noput);
    if (rng.chance(0.15)) w.request.filters.push_back(WatchFilter::nodelete);
    return w;
  }
  return WatchDrain{};
}

LeaseId SideMap::lease(LeaseId ref) const {
  if (ref >= kLeaseRefBase && ref < kLeaseRefBase + kMaxLeaseRefs) {
    const auto k = static_cast<std::size_t>(ref - kLeaseRefBase);
    if (k < granted.size()) return granted[k];
  }
  return ref;
}

nlohmann::json SideMap::lease_json(LeaseId id) const {
  for (std::size_t k = 0; k < granted.size(); ++k)
    if (granted[k] == id && id != 0) return "lease#" + std::to_string(k);
  return id;
}

Op instantiate(const Op& op, const SideMap& side) {
  Op out = op;
  if (auto* r = std::get_if<RangeRequest>(&out)) instantiate_range(*r, side);
  if (auto* p = std::get_if<PutRequest>(&out)) p->lease = side.lease(p->lease);
  if (auto* t = std::get_if<TxnRequest>(&out)) *t = instantiate_txn(*t, side);
  if (auto* c = std::get_if<CompactionRequest>(&out)) c->revision = side.abs(c->revision);
  if (auto* r = std::get_if<LeaseRevokeRequest>(&out)) r->id = side.lease(r->id);
  if (auto* k = std::get_if<LeaseKeepAliveRequest>(&out)) k->id = side.lease(k->id);
  if (auto* t = std::get_if<LeaseTimeToLiveRequest>(&out)) t->id = side.lease(t->id);
  if (auto* w = std::get_if<WatchOpen>(&out)) w->request.start_revision = side.abs(w->request.start_revision);
  return out;
}

nlohmann::json normalise(const RangeResponse& r, const SideMap& s) {
  return {{"header", header_json(r.header, s)}, {"kvs", kvs_json(r.kvs, s)}, {"more", r.more},
          {"count", r.count}};
}

nlohmann::json normalise(const PutResponse& r, const SideMap& s) {
  return {{"header", header_json(r.header, s)}, {"prev_kv", kvs_json(r.prev_kv, s)}};
}

nlohmann::json normalise(const DeleteRangeResponse& r, const SideMap& s) {
  return {{"header", header_json(r.header, s)}, {"deleted", r.deleted},
          {"prev_kvs", kvs_json(r.prev_kvs, s)}};
}

nlohmann::json normalise(const TxnResponse& r, const SideMap& s) {
  nlohmann::json responses = nlohmann::json::array();
  for (const auto& op : r.responses) {
    if (auto* x = std::get_if<RangeResponse>(&op.response)) responses.push_back({{"range", normalise(*x, s)}});
    if (auto* x = std::get_if<PutResponse>(&op.response)) responses.push_back({{"put", normalise(*x, s)}});
    if (auto* x = std::get_if<DeleteRangeResponse>(&op.response))
      responses.push_back({{"delete_range", normalise(*x, s)}});
    if (auto* x = std::get_if<std::shared_ptr<TxnResponse>>(&op.response))
      responses.push_back({{"txn", *x ? normalise(**x, s) : nlohmann::json(nullptr)}});
  }
  return {{"header", header_json(r.header, s)}, {"succeeded", r.succeeded}, {"responses", responses}};
}

nlohmann::json normalise(const CompactionResponse& r, const SideMap& s) {
  return {{"header", header_json(r.header, s)}};
}

nlohmann::json normalise(const LeaseGrantResponse& r, const SideMap& s) {
  return {{"header", header_json(r.header, s)}, {"id", s.lease_json(r.id)}, {"ttl", r.ttl_seconds},
          {"error", r.error}};
}

nlohmann::json normalise(const LeaseRevokeResponse& r, const SideMap& s) {
  return {{"header", header_json(r.header, s)}};
}

nlohmann::json normalise(const LeaseKeepAliveResponse& r, const SideMap& s) {
  return {{"header", header_json(r.header, s)}, {"id", s.lease_json(r.id)}, {"ttl", r.ttl_seconds}};
}

nlohmann::json normalise(const LeaseTimeToLiveResponse& r, const SideMap& s) {
  // A set: etcd lists a lease's keys in Go map order (random), the simulator in key order.
  std::vector<std::string> keys = r.keys;
  std::sort(keys.begin(), keys.end());
  nlohmann::json keys_json = nlohmann::json::array();
  for (const auto& k : keys) keys_json.push_back(escape_bytes(k));
  return {{"header", header_json(r.header, s)}, {"id", s.lease_json(r.id)},
          {"granted_ttl", r.granted_ttl_seconds}, {"keys", keys_json},
          {"unknown", r.ttl_seconds == -1}};
}

nlohmann::json normalise(const Event& e, const SideMap& s) {
  return {{"type", e.type == EventType::put ? "put" : "delete"}, {"kv", kv_json(e.kv, s)},
          {"prev_kv", kvs_json(e.prev_kv, s)}};
}

nlohmann::json normalise_error(const Error& e) {
  return {{"error", error_code_name(e.code)},
          {"indeterminate", e.outcome == Outcome::indeterminate}};
}

nlohmann::json describe(const Op& op) {
  if (auto* r = std::get_if<RangeRequest>(&op)) return request_json(*r);
  if (auto* p = std::get_if<PutRequest>(&op)) return request_json(*p);
  if (auto* d = std::get_if<DeleteRangeRequest>(&op)) return request_json(*d);
  if (auto* t = std::get_if<TxnRequest>(&op)) return request_json(*t);
  if (auto* c = std::get_if<CompactionRequest>(&op))
    return {{"op", "compact"}, {"revision", c->revision}, {"physical", c->physical}};
  if (auto* g = std::get_if<LeaseGrantRequest>(&op))
    return {{"op", "lease_grant"}, {"ttl", g->ttl_seconds}, {"id", g->id}};
  if (auto* r = std::get_if<LeaseRevokeRequest>(&op)) return {{"op", "lease_revoke"}, {"id", r->id}};
  if (auto* k = std::get_if<LeaseKeepAliveRequest>(&op)) return {{"op", "lease_keep_alive"}, {"id", k->id}};
  if (auto* t = std::get_if<LeaseTimeToLiveRequest>(&op))
    return {{"op", "lease_time_to_live"}, {"id", t->id}, {"keys", t->keys}};
  if (auto* w = std::get_if<WatchOpen>(&op)) {
    nlohmann::json j = {{"op", "watch"}, {"key", escape_bytes(w->request.key)},
                        {"start_revision", w->request.start_revision}, {"prev_kv", w->request.prev_kv}};
    if (!w->request.range_end.empty()) j["range_end"] = escape_bytes(w->request.range_end);
    for (auto f : w->request.filters) j["filters"].push_back(f == WatchFilter::noput ? "noput" : "nodelete");
    return j;
  }
  return {{"op", "watch_drain"}};
}

}  // namespace lockstep::difftest
