#include "lockstep/model/etcd_kv.h"

#include <algorithm>
#include <sstream>

namespace lockstep::model {

namespace {

using Keys = std::map<std::string, KeyValue>;

// The keys [key, range_end) as etcd reads range_end: empty = just `key`, "\0" = to the end.
template <class F>
void for_each_in_range(const Keys& keys, const std::string& key, const std::string& range_end,
                       F&& f) {
  if (range_end.empty()) {
    if (auto it = keys.find(key); it != keys.end()) f(it->second);
    return;
  }
  bool to_end = range_end == std::string(1, '\0');
  for (auto it = keys.lower_bound(key); it != keys.end(); ++it) {
    if (!to_end && it->first >= range_end) break;
    f(it->second);
  }
}

std::int64_t sort_field(const KeyValue& kv, SortTarget target) {
  switch (target) {
    case SortTarget::version: return kv.version;
    case SortTarget::create: return kv.create_revision;
    case SortTarget::mod: return kv.mod_revision;
    default: return 0;
  }
}

// <0, 0, >0 as a goes before, ties with, or after b under the request's sort target.
int compare_by_target(const KeyValue& a, const KeyValue& b, SortTarget target) {
  if (target == SortTarget::key) return a.key.compare(b.key);
  if (target == SortTarget::value) return a.value.compare(b.value);
  std::int64_t x = sort_field(a, target), y = sort_field(b, target);
  return x < y ? -1 : x > y ? 1 : 0;
}

// etcd: NONE with a target other than KEY sorts ascending; NONE with KEY is key order, which
// is ascending too.
SortOrder effective_order(const RangeRequest& r) {
  return r.sort_order == SortOrder::none ? SortOrder::ascend : r.sort_order;
}

// Every key the range selects after filters and sort, before limit.
std::vector<KeyValue> range_selection(const Keys& keys, const RangeRequest& r,
                                      std::int64_t& count) {
  std::vector<KeyValue> out;
  count = 0;
  for_each_in_range(keys, r.key, r.range_end, [&](const KeyValue& kv) {
    ++count;
    if (r.max_mod_revision != 0 && kv.mod_revision > r.max_mod_revision) return;
    if (r.min_mod_revision != 0 && kv.mod_revision < r.min_mod_revision) return;
    if (r.max_create_revision != 0 && kv.create_revision > r.max_create_revision) return;
    if (r.min_create_revision != 0 && kv.create_revision < r.min_create_revision) return;
    out.push_back(kv);
  });
  int sign = effective_order(r) == SortOrder::descend ? -1 : 1;
  std::stable_sort(out.begin(), out.end(), [&](const KeyValue& a, const KeyValue& b) {
    return sign * compare_by_target(a, b, r.sort_target) < 0;
  });
  if (r.keys_only)
    for (auto& kv : out) kv.value.clear();
  return out;
}

RangeResponse apply_range(const Keys& keys, const RangeRequest& r, Revision revision) {
  RangeResponse resp;
  resp.header.revision = revision;
  auto all = range_selection(keys, r, resp.count);
  if (r.count_only) return resp;
  if (r.limit > 0 && static_cast<std::int64_t>(all.size()) > r.limit) {
    all.resize(static_cast<std::size_t>(r.limit));
    resp.more = true;
  }
  resp.kvs = std::move(all);
  return resp;
}

bool compare_matches(const Keys& keys, const Compare& c) {
  auto one = [&](const KeyValue& kv) {
    int cmp = 0;
    auto three_way = [](std::int64_t a, std::int64_t b) { return a < b ? -1 : a > b ? 1 : 0; };
    switch (c.target) {
      case CompareTarget::version: cmp = three_way(kv.version, c.version); break;
      case CompareTarget::create: cmp = three_way(kv.create_revision, c.create_revision); break;
      case CompareTarget::mod: cmp = three_way(kv.mod_revision, c.mod_revision); break;
      case CompareTarget::lease: cmp = three_way(kv.lease, c.lease); break;
      case CompareTarget::value: {
        int v = kv.value.compare(c.value);
        cmp = v < 0 ? -1 : v > 0 ? 1 : 0;
        break;
      }
    }
    switch (c.result) {
      case CompareResult::equal: return cmp == 0;
      case CompareResult::greater: return cmp > 0;
      case CompareResult::less: return cmp < 0;
      case CompareResult::not_equal: return cmp != 0;
    }
    return false;
  };
  bool any = false, all = true;
  for_each_in_range(keys, c.key, c.range_end, [&](const KeyValue& kv) {
    any = true;
    all = all && one(kv);
  });
  if (any) return all;
  // A missing key: VALUE always fails, the rest compare against zero.
  if (c.target == CompareTarget::value) return false;
  return one(KeyValue{});
}

bool range_matches(const RangeResponse& want, const RangeResponse& got, const RangeRequest& r,
                   const Keys& keys) {
  if (got.count != want.count || got.more != want.more) return false;
  if (r.sort_target == SortTarget::key || r.count_only) return got.kvs == want.kvs;
  // A non-key sort: ties may come back in any order, so `got` must be some tie order of the
  // full selection, cut at the limit.
  if (got.kvs.size() != want.kvs.size()) return false;
  std::int64_t unused = 0;
  auto all = range_selection(keys, r, unused);
  int sign = effective_order(r) == SortOrder::descend ? -1 : 1;
  std::vector<bool> taken(all.size(), false);
  for (std::size_t i = 0; i < got.kvs.size(); ++i) {
    if (i > 0 && sign * compare_by_target(got.kvs[i - 1], got.kvs[i], r.sort_target) > 0)
      return false;
    auto it = std::find(all.begin(), all.end(), got.kvs[i]);
    if (it == all.end() || taken[it - all.begin()]) return false;
    taken[it - all.begin()] = true;
  }
  if (got.kvs.empty()) return true;
  for (std::size_t j = 0; j < all.size(); ++j)
    if (!taken[j] && sign * compare_by_target(all[j], got.kvs.back(), r.sort_target) < 0)
      return false;
  return true;
}

// One request applied inside a write at revision `write_rev` (the store revision + 1).
// `changed` is set when a key changed, which is what makes the store revision advance. When
// `got` is given, the observed response is compared as the request is applied (a range inside
// a txn must be compared against the store as it was at that point of the txn); a mismatch
// clears `ok`. Headers are compared by the caller, for the top-level request only.
struct Applier {
  EtcdKv::State& s;
  Revision write_rev;
  bool changed = false;
  bool ok = true;

  Revision read_rev() const { return changed ? write_rev : s.revision; }

  RangeResponse range(const RangeRequest& r, const RangeResponse* got) {
    RangeResponse resp = apply_range(s.keys, r, read_rev());
    if (got && !range_matches(resp, *got, r, s.keys)) ok = false;
    return resp;
  }

  PutResponse put(const PutRequest& p, const PutResponse* got) {
    PutResponse resp;
    auto it = s.keys.find(p.key);
    KeyValue next;
    if (it != s.keys.end()) {
      if (p.prev_kv) resp.prev_kv.push_back(it->second);
      next = it->second;
      next.version += 1;
    } else {
      if (p.ignore_value) ok = false;  // etcd refuses: "key not found"
      next.key = p.key;
      next.create_revision = write_rev;
      next.version = 1;
    }
    next.mod_revision = write_rev;
    if (!p.ignore_value) next.value = p.value;
    if (!p.ignore_lease) next.lease = p.lease;
    s.keys[p.key] = std::move(next);
    changed = true;
    resp.header.revision = write_rev;
    if (got && got->prev_kv != resp.prev_kv) ok = false;
    return resp;
  }

  DeleteRangeResponse del(const DeleteRangeRequest& d, const DeleteRangeResponse* got) {
    DeleteRangeResponse resp;
    std::vector<std::string> doomed;
    for_each_in_range(s.keys, d.key, d.range_end, [&](const KeyValue& kv) {
      doomed.push_back(kv.key);
      if (d.prev_kv) resp.prev_kvs.push_back(kv);
    });
    for (const auto& k : doomed) s.keys.erase(k);
    resp.deleted = static_cast<std::int64_t>(doomed.size());
    if (resp.deleted > 0) changed = true;
    resp.header.revision = read_rev();
    if (got && (got->deleted != resp.deleted || got->prev_kvs != resp.prev_kvs)) ok = false;
    return resp;
  }

  TxnResponse txn(const TxnRequest& t, const TxnResponse* got) {
    TxnResponse resp;
    resp.succeeded = std::all_of(t.compare.begin(), t.compare.end(),
                                 [&](const Compare& c) { return compare_matches(s.keys, c); });
    const auto& ops = resp.succeeded ? t.success : t.failure;
    if (got && (got->succeeded != resp.succeeded || got->responses.size() != ops.size())) {
      ok = false;
      got = nullptr;  // nothing more to compare against
    }
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const ResponseOp* g = got ? &got->responses[i] : nullptr;
      if (g && g->response.index() != ops[i].request.index()) {
        ok = false;
        g = nullptr;
      }
      ResponseOp r;
      std::visit(
          [&](const auto& req) {
            using T = std::decay_t<decltype(req)>;
            if constexpr (std::is_same_v<T, std::shared_ptr<TxnRequest>>) {
              const TxnResponse* gt = nullptr;
              if (g) gt = std::get<std::shared_ptr<TxnResponse>>(g->response).get();
              r.response = std::make_shared<TxnResponse>(req ? txn(*req, gt) : TxnResponse{});
            } else if constexpr (std::is_same_v<T, RangeRequest>) {
              r.response = range(req, g ? &std::get<RangeResponse>(g->response) : nullptr);
            } else if constexpr (std::is_same_v<T, PutRequest>) {
              r.response = put(req, g ? &std::get<PutResponse>(g->response) : nullptr);
            } else {
              r.response = del(req, g ? &std::get<DeleteRangeResponse>(g->response) : nullptr);
            }
          },
          ops[i].request);
      resp.responses.push_back(std::move(r));
    }
    resp.header.revision = read_rev();
    return resp;
  }

  LeaseRevokeResponse revoke(const LeaseRevokeRequest& r) {
    std::vector<std::string> doomed;
    for (const auto& [k, kv] : s.keys)
      if (kv.lease == r.id && r.id != 0) doomed.push_back(k);
    for (const auto& k : doomed) s.keys.erase(k);
    if (!doomed.empty()) changed = true;
    LeaseRevokeResponse resp;
    resp.header.revision = read_rev();
    return resp;
  }

  EtcdKv::Output apply(const EtcdKv::Input& in, const EtcdKv::Output* got) {
    if (got && got->index() != in.index()) {
      ok = false;
      got = nullptr;
    }
    switch (in.index()) {
      case 0: return range(std::get<0>(in), got ? &std::get<0>(*got) : nullptr);
      case 1: return put(std::get<1>(in), got ? &std::get<1>(*got) : nullptr);
      case 2: return del(std::get<2>(in), got ? &std::get<2>(*got) : nullptr);
      case 3: return txn(std::get<3>(in), got ? &std::get<3>(*got) : nullptr);
      default: return revoke(std::get<4>(in));
    }
  }
};

}  // namespace

namespace {
// Runs `in` on `s`; returns the response and whether `got` (if any) matched it.
EtcdKv::Output run(EtcdKv::State& s, const EtcdKv::Input& in, const EtcdKv::Output* got,
                   bool& ok) {
  Applier a{s, s.revision + 1};
  EtcdKv::Output out = a.apply(in, got);
  if (a.changed) {
    s.revision += 1;
    // Every response to a write reports the revision the write created.
    std::visit([&](auto& r) { r.header.revision = s.revision; }, out);
  }
  ok = a.ok;
  if (got && ok) {
    std::visit(
        [&](const auto& w) {
          const auto& g = std::get<std::decay_t<decltype(w)>>(*got);
          if (g.header.revision != 0 && g.header.revision != w.header.revision) ok = false;
        },
        out);
  }
  return out;
}
}  // namespace

EtcdKv::Output EtcdKv::apply(State& s, const Input& in) {
  bool ok = true;
  return run(s, in, nullptr, ok);
}

std::optional<EtcdKv::State> EtcdKv::step(const State& s, const Input& in,
                                          const Output* out) const {
  State next = s;
  bool ok = true;
  run(next, in, out, ok);
  if (!ok) return std::nullopt;
  return next;
}

std::size_t EtcdKv::hash(const State& s) const {
  std::size_t h = static_cast<std::size_t>(s.revision);
  std::hash<std::string> hs;
  for (const auto& [k, kv] : s.keys) {
    h = hash_combine(h, hs(k));
    h = hash_combine(h, hs(kv.value));
    h = hash_combine(h, static_cast<std::size_t>(kv.mod_revision));
    h = hash_combine(h, static_cast<std::size_t>(kv.create_revision * 31 + kv.version));
    h = hash_combine(h, static_cast<std::size_t>(kv.lease));
  }
  return h;
}

std::string EtcdKv::describe(const State& s) const {
  std::ostringstream o;
  o << "revision " << s.revision << ", " << s.keys.size() << " key(s)";
  std::size_t shown = 0;
  for (const auto& [k, kv] : s.keys) {
    if (shown++ == 8) {
      o << " ...";
      break;
    }
    o << (shown == 1 ? ": " : "; ") << k << "=" << kv.value << " (create " << kv.create_revision
      << ", mod " << kv.mod_revision << ", version " << kv.version;
    if (kv.lease != 0) o << ", lease " << kv.lease;
    o << ")";
  }
  return o.str();
}

namespace {
std::string describe_request(const EtcdKv::Input& in) {
  std::ostringstream o;
  if (auto* r = std::get_if<RangeRequest>(&in)) {
    o << "range " << r->key;
    if (!r->range_end.empty()) o << " .. " << (r->range_end == std::string(1, '\0') ? "end" : r->range_end);
  } else if (auto* p = std::get_if<PutRequest>(&in)) {
    o << "put " << p->key << "=" << p->value;
    if (p->lease) o << " lease " << p->lease;
  } else if (auto* d = std::get_if<DeleteRangeRequest>(&in)) {
    o << "delete " << d->key;
    if (!d->range_end.empty()) o << " .. " << d->range_end;
  } else if (auto* t = std::get_if<TxnRequest>(&in)) {
    o << "txn (" << t->compare.size() << " compares, " << t->success.size() << " then, "
      << t->failure.size() << " else)";
    for (const auto& c : t->compare) o << " [" << c.key << "]";
  } else {
    o << "lease_revoke " << std::get<LeaseRevokeRequest>(in).id;
  }
  return o.str();
}
}  // namespace

std::string EtcdKv::describe(const Input& in, const Output* out) const {
  std::string text = describe_request(in);
  if (!out) return text + " -> ?";
  std::ostringstream o;
  std::visit([&](const auto& r) { o << " -> revision " << r.header.revision; }, *out);
  if (auto* r = std::get_if<RangeResponse>(out)) {
    o << ", " << r->kvs.size() << " kv(s)";
    for (const auto& kv : r->kvs) o << " " << kv.key << "=" << kv.value << "@" << kv.mod_revision;
  } else if (auto* t = std::get_if<TxnResponse>(out)) {
    o << (t->succeeded ? ", succeeded" : ", failed");
  } else if (auto* d = std::get_if<DeleteRangeResponse>(out)) {
    o << ", deleted " << d->deleted;
  }
  return text + o.str();
}

}  // namespace lockstep::model
