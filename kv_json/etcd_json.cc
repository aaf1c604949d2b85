#include "lockstep/kv_json/etcd_json.h"

#include <charconv>
#include <cstdint>

#include "lockstep/kv/types.h"

namespace lockstep {

using nlohmann::json;
using model::EtcdKv;

namespace {

// A cursor over a JSON object that records the first error with its path.
struct Reader {
  const json& j;
  std::string path;
  std::string& error;

  bool fail(const std::string& field, const std::string& what) {
    if (error.empty()) error = path + "." + field + ": expected " + what;
    return false;
  }
  const json* find(const char* field) const {
    auto it = j.find(field);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }
  bool integer(const char* field, std::int64_t& out, bool required = false) {
    const json* v = find(field);
    if (!v) return required ? fail(field, "an integer") : true;
    if (v->is_number_integer()) {
      if (v->is_number_unsigned() &&
          v->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
        return fail(field, "an integer at most " + std::to_string(INT64_MAX));
      out = v->get<std::int64_t>();
      return true;
    }
    if (v->is_string()) {
      const auto& s = v->get_ref<const std::string&>();
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      if (ec == std::errc() && p == s.data() + s.size() && !s.empty()) return true;
    }
    return fail(field, "an integer");
  }
  // A revision, a count or a limit: etcd's are never negative (a negative one in a history is
  // a mistake, not a request etcd could have answered as recorded).
  bool count(const char* field, std::int64_t& out, bool required = false) {
    if (!integer(field, out, required)) return false;
    if (out < 0) return fail(field, "an integer >= 0");
    return true;
  }
  bool boolean(const char* field, bool& out) {
    const json* v = find(field);
    if (!v) return true;
    if (!v->is_boolean()) return fail(field, "true or false");
    out = v->get<bool>();
    return true;
  }
  bool bytes(const char* field, std::string& out, bool required = false) {
    const json* v = find(field);
    if (!v) return required ? fail(field, "a string") : true;
    if (!v->is_string()) return fail(field, "a string");
    auto bytes = unescape_bytes(v->get<std::string>());
    if (!bytes) return fail(field, "bytes escaped as \\\\ and \\xNN");
    out = std::move(*bytes);
    return true;
  }
  template <class E, std::size_t N>
  bool word(const char* field, E& out, const std::pair<const char*, E> (&names)[N]) {
    const json* v = find(field);
    if (!v) return true;
    std::string all;
    for (const auto& [name, value] : names) {
      if (v->is_string() && *v == name) {
        out = value;
        return true;
      }
      all += (all.empty() ? "" : ", ") + std::string(name);
    }
    return fail(field, "one of " + all);
  }
};

constexpr std::pair<const char*, SortOrder> kSortOrders[] = {
    {"none", SortOrder::none}, {"ascend", SortOrder::ascend}, {"descend", SortOrder::descend}};
constexpr std::pair<const char*, SortTarget> kSortTargets[] = {
    {"key", SortTarget::key},   {"version", SortTarget::version}, {"create", SortTarget::create},
    {"mod", SortTarget::mod},   {"value", SortTarget::value}};
constexpr std::pair<const char*, CompareResult> kCompareResults[] = {
    {"equal", CompareResult::equal},
    {"greater", CompareResult::greater},
    {"less", CompareResult::less},
    {"not_equal", CompareResult::not_equal}};
constexpr std::pair<const char*, CompareTarget> kCompareTargets[] = {
    {"version", CompareTarget::version}, {"create", CompareTarget::create},
    {"mod", CompareTarget::mod},         {"value", CompareTarget::value},
    {"lease", CompareTarget::lease}};

template <class E, std::size_t N>
const char* name_of(E value, const std::pair<const char*, E> (&names)[N]) {
  for (const auto& [name, v] : names)
    if (v == value) return name;
  return "?";
}

bool object_at(const json& j, const std::string& path, std::string& error) {
  if (j.is_object()) return true;
  if (error.empty()) error = path + ": expected an object";
  return false;
}

bool read_kv(const json& j, const std::string& path, KeyValue& kv, std::string& error) {
  if (!object_at(j, path, error)) return false;
  Reader r{j, path, error};
  return r.bytes("key", kv.key, true) && r.bytes("value", kv.value) &&
         r.count("create_revision", kv.create_revision) &&
         r.count("mod_revision", kv.mod_revision) && r.count("version", kv.version) &&
         r.integer("lease", kv.lease);
}

bool read_kvs(const Reader& r, const char* field, std::vector<KeyValue>& out, std::string& error) {
  const json* v = r.find(field);
  if (!v) return true;
  std::string path = r.path + "." + field;
  if (v->is_object()) {  // a single kv (put's prev_kv)
    out.emplace_back();
    return read_kv(*v, path, out.back(), error);
  }
  if (!v->is_array()) {
    if (error.empty()) error = path + ": expected an array of key-values";
    return false;
  }
  for (std::size_t i = 0; i < v->size(); ++i) {
    out.emplace_back();
    if (!read_kv((*v)[i], path + "[" + std::to_string(i) + "]", out.back(), error)) return false;
  }
  return true;
}

// A txn may hold txns (etcd allows it); each level is a call deeper in these readers, so a
// history's txns may nest at most this deep (a line of 10,000 nested txns overflowed the stack).
constexpr int kMaxTxnNesting = 64;

bool too_deep(int depth, const std::string& path, std::string& error) {
  if (depth <= kMaxTxnNesting) return false;
  if (error.empty())
    error = path + ": expected a request inside at most " + std::to_string(kMaxTxnNesting) +
            " nested txns";
  return true;
}

bool read_request(const std::string& op, const json& j, const std::string& path,
                  EtcdKv::Input& out, std::string& error, int depth);

bool read_request_ops(const Reader& r, const char* field, std::vector<RequestOp>& out,
                      std::string& error, int depth) {
  const json* v = r.find(field);
  if (!v) return true;
  std::string path = r.path + "." + field;
  if (!v->is_array()) {
    if (error.empty()) error = path + ": expected an array of {\"range\"|\"put\"|...: {...}}";
    return false;
  }
  for (std::size_t i = 0; i < v->size(); ++i) {
    const json& item = (*v)[i];
    std::string ipath = path + "[" + std::to_string(i) + "]";
    if (!item.is_object() || item.size() != 1) {
      if (error.empty())
        error = ipath + ": expected an object with one of range, put, delete_range, txn";
      return false;
    }
    const std::string& name = item.begin().key();
    if (name == "lease_revoke") {
      if (error.empty()) error = ipath + ": lease_revoke cannot be part of a txn";
      return false;
    }
    EtcdKv::Input in;
    if (!read_request(name, item.begin().value(), ipath + "." + name, in, error, depth + 1))
      return false;
    RequestOp rop;
    std::visit(
        [&](auto&& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, TxnRequest>)
            rop.request = std::make_shared<TxnRequest>(std::move(x));
          else if constexpr (!std::is_same_v<T, LeaseRevokeRequest>)
            rop.request = std::move(x);
        },
        in);
    out.push_back(std::move(rop));
  }
  return true;
}

bool read_request(const std::string& op, const json& j, const std::string& path,
                  EtcdKv::Input& out, std::string& error, int depth) {
  if (too_deep(depth, path, error) || !object_at(j, path, error)) return false;
  Reader r{j, path, error};
  if (op == "range") {
    RangeRequest q;
    bool ok = r.bytes("key", q.key, true) && r.bytes("range_end", q.range_end) &&
              r.count("limit", q.limit) && r.count("revision", q.revision) &&
              r.word("sort_order", q.sort_order, kSortOrders) &&
              r.word("sort_target", q.sort_target, kSortTargets) &&
              r.boolean("serializable", q.serializable) && r.boolean("keys_only", q.keys_only) &&
              r.boolean("count_only", q.count_only) &&
              r.count("min_mod_revision", q.min_mod_revision) &&
              r.count("max_mod_revision", q.max_mod_revision) &&
              r.count("min_create_revision", q.min_create_revision) &&
              r.count("max_create_revision", q.max_create_revision);
    out = std::move(q);
    return ok;
  }
  if (op == "put") {
    PutRequest q;
    bool ok = r.bytes("key", q.key, true) && r.bytes("value", q.value) &&
              r.integer("lease", q.lease) && r.boolean("prev_kv", q.prev_kv) &&
              r.boolean("ignore_value", q.ignore_value) &&
              r.boolean("ignore_lease", q.ignore_lease);
    out = std::move(q);
    return ok;
  }
  if (op == "delete_range") {
    DeleteRangeRequest q;
    bool ok = r.bytes("key", q.key, true) && r.bytes("range_end", q.range_end) &&
              r.boolean("prev_kv", q.prev_kv);
    out = std::move(q);
    return ok;
  }
  if (op == "txn") {
    TxnRequest q;
    if (const json* cs = r.find("compare")) {
      if (!cs->is_array()) return r.fail("compare", "an array of compares");
      for (std::size_t i = 0; i < cs->size(); ++i) {
        std::string cpath = path + ".compare[" + std::to_string(i) + "]";
        if (!object_at((*cs)[i], cpath, error)) return false;
        Reader c{(*cs)[i], cpath, error};
        Compare cmp;
        if (!c.find("target")) return c.fail("target", "one of version, create, mod, value, lease");
        bool ok = c.bytes("key", cmp.key, true) && c.bytes("range_end", cmp.range_end) &&
                  c.word("result", cmp.result, kCompareResults) &&
                  c.word("target", cmp.target, kCompareTargets) &&
                  c.integer("version", cmp.version) &&
                  c.integer("create_revision", cmp.create_revision) &&
                  c.integer("mod_revision", cmp.mod_revision) && c.bytes("value", cmp.value) &&
                  c.integer("lease", cmp.lease);
        if (!ok) return false;
        q.compare.push_back(std::move(cmp));
      }
    }
    if (!read_request_ops(r, "success", q.success, error, depth) ||
        !read_request_ops(r, "failure", q.failure, error, depth))
      return false;
    out = std::move(q);
    return true;
  }
  if (op == "lease_revoke") {
    LeaseRevokeRequest q;
    bool ok = r.integer("id", q.id, true);
    out = q;
    return ok;
  }
  if (error.empty()) error = path + ": unknown etcd op \"" + op + "\"";
  return false;
}

bool read_response(const std::string& op, const json& j, const std::string& path,
                   EtcdKv::Output& out, std::string& error, int depth) {
  if (too_deep(depth, path, error) || !object_at(j, path, error)) return false;
  Reader r{j, path, error};
  Revision revision = 0;
  if (!r.count("revision", revision)) return false;
  if (op == "range") {
    RangeResponse resp;
    resp.header.revision = revision;
    if (!read_kvs(r, "kvs", resp.kvs, error) || !r.boolean("more", resp.more)) return false;
    resp.count = static_cast<std::int64_t>(resp.kvs.size());  // the default when not recorded
    if (!r.count("count", resp.count)) return false;
    out = std::move(resp);
    return true;
  }
  if (op == "put") {
    PutResponse resp;
    resp.header.revision = revision;
    if (!read_kvs(r, "prev_kv", resp.prev_kv, error)) return false;
    out = std::move(resp);
    return true;
  }
  if (op == "delete_range") {
    DeleteRangeResponse resp;
    resp.header.revision = revision;
    if (!r.count("deleted", resp.deleted, true) || !read_kvs(r, "prev_kvs", resp.prev_kvs, error))
      return false;
    out = std::move(resp);
    return true;
  }
  if (op == "txn") {
    TxnResponse resp;
    resp.header.revision = revision;
    if (!r.find("succeeded")) return r.fail("succeeded", "true or false");
    if (!r.boolean("succeeded", resp.succeeded)) return false;
    if (const json* rs = r.find("responses")) {
      if (!rs->is_array()) return r.fail("responses", "an array");
      for (std::size_t i = 0; i < rs->size(); ++i) {
        const json& item = (*rs)[i];
        std::string ipath = path + ".responses[" + std::to_string(i) + "]";
        if (!item.is_object() || item.size() != 1) {
          if (error.empty())
            error = ipath + ": expected an object with one of range, put, delete_range, txn";
          return false;
        }
        const std::string& name = item.begin().key();
        EtcdKv::Output inner;
        if (name == "lease_revoke" ||
            !read_response(name, item.begin().value(), ipath + "." + name, inner, error,
                           depth + 1)) {
          if (error.empty()) error = ipath + ": unknown response \"" + name + "\"";
          return false;
        }
        ResponseOp rop;
        std::visit(
            [&](auto&& x) {
              using T = std::decay_t<decltype(x)>;
              if constexpr (std::is_same_v<T, TxnResponse>)
                rop.response = std::make_shared<TxnResponse>(std::move(x));
              else if constexpr (!std::is_same_v<T, LeaseRevokeResponse>)
                rop.response = std::move(x);
            },
            inner);
        resp.responses.push_back(std::move(rop));
      }
    }
    out = std::move(resp);
    return true;
  }
  if (op == "lease_revoke") {
    LeaseRevokeResponse resp;
    resp.header.revision = revision;
    out = resp;
    return true;
  }
  if (error.empty()) error = path + ": unknown etcd op \"" + op + "\"";
  return false;
}

json kv_to_json(const KeyValue& kv) {
  json j;
  j["key"] = escape_bytes(kv.key);
  j["value"] = escape_bytes(kv.value);
  j["create_revision"] = kv.create_revision;
  j["mod_revision"] = kv.mod_revision;
  j["version"] = kv.version;
  if (kv.lease != 0) j["lease"] = kv.lease;
  return j;
}

json kvs_to_json(const std::vector<KeyValue>& kvs) {
  json a = json::array();
  for (const auto& kv : kvs) a.push_back(kv_to_json(kv));
  return a;
}

json request_op_to_json(const RequestOp& op);
json response_op_to_json(const ResponseOp& op);

}  // namespace

bool etcd_request_from_json(const std::string& op, const json& args, EtcdKv::Input& out,
                            std::string& error) {
  return read_request(op, args, "args", out, error, 0);
}

bool etcd_response_from_json(const std::string& op, const json& result, EtcdKv::Output& out,
                             std::string& error) {
  return read_response(op, result, "result", out, error, 0);
}

std::string etcd_op_name(const EtcdKv::Input& in) {
  static const char* const kNames[] = {"range", "put", "delete_range", "txn", "lease_revoke"};
  return kNames[in.index()];
}

json etcd_request_to_json(const EtcdKv::Input& in) {
  json j = json::object();
  if (auto* q = std::get_if<RangeRequest>(&in)) {
    j["key"] = escape_bytes(q->key);
    if (!q->range_end.empty()) j["range_end"] = escape_bytes(q->range_end);
    if (q->limit) j["limit"] = q->limit;
    if (q->revision) j["revision"] = q->revision;
    if (q->sort_order != SortOrder::none) j["sort_order"] = name_of(q->sort_order, kSortOrders);
    if (q->sort_target != SortTarget::key)
      j["sort_target"] = name_of(q->sort_target, kSortTargets);
    if (q->serializable) j["serializable"] = true;
    if (q->keys_only) j["keys_only"] = true;
    if (q->count_only) j["count_only"] = true;
    if (q->min_mod_revision) j["min_mod_revision"] = q->min_mod_revision;
    if (q->max_mod_revision) j["max_mod_revision"] = q->max_mod_revision;
    if (q->min_create_revision) j["min_create_revision"] = q->min_create_revision;
    if (q->max_create_revision) j["max_create_revision"] = q->max_create_revision;
  } else if (auto* p = std::get_if<PutRequest>(&in)) {
    j["key"] = escape_bytes(p->key);
    j["value"] = escape_bytes(p->value);
    if (p->lease) j["lease"] = p->lease;
    if (p->prev_kv) j["prev_kv"] = true;
    if (p->ignore_value) j["ignore_value"] = true;
    if (p->ignore_lease) j["ignore_lease"] = true;
  } else if (auto* d = std::get_if<DeleteRangeRequest>(&in)) {
    j["key"] = escape_bytes(d->key);
    if (!d->range_end.empty()) j["range_end"] = escape_bytes(d->range_end);
    if (d->prev_kv) j["prev_kv"] = true;
  } else if (auto* t = std::get_if<TxnRequest>(&in)) {
    json cs = json::array();
    for (const auto& c : t->compare) {
      json cj;
      cj["key"] = escape_bytes(c.key);
      if (!c.range_end.empty()) cj["range_end"] = escape_bytes(c.range_end);
      cj["result"] = name_of(c.result, kCompareResults);
      cj["target"] = name_of(c.target, kCompareTargets);
      switch (c.target) {
        case CompareTarget::version: cj["version"] = c.version; break;
        case CompareTarget::create: cj["create_revision"] = c.create_revision; break;
        case CompareTarget::mod: cj["mod_revision"] = c.mod_revision; break;
        case CompareTarget::value: cj["value"] = escape_bytes(c.value); break;
        case CompareTarget::lease: cj["lease"] = c.lease; break;
      }
      cs.push_back(std::move(cj));
    }
    j["compare"] = std::move(cs);
    for (auto [name, ops] : {std::pair{"success", &t->success}, std::pair{"failure", &t->failure}}) {
      json a = json::array();
      for (const auto& op : *ops) a.push_back(request_op_to_json(op));
      j[name] = std::move(a);
    }
  } else {
    j["id"] = std::get<LeaseRevokeRequest>(in).id;
  }
  return j;
}

json etcd_response_to_json(const EtcdKv::Output& out) {
  json j = json::object();
  std::visit([&](const auto& r) { j["revision"] = r.header.revision; }, out);
  if (auto* r = std::get_if<RangeResponse>(&out)) {
    j["kvs"] = kvs_to_json(r->kvs);
    j["count"] = r->count;
    if (r->more) j["more"] = true;
  } else if (auto* p = std::get_if<PutResponse>(&out)) {
    if (!p->prev_kv.empty()) j["prev_kv"] = kv_to_json(p->prev_kv.front());
  } else if (auto* d = std::get_if<DeleteRangeResponse>(&out)) {
    j["deleted"] = d->deleted;
    if (!d->prev_kvs.empty()) j["prev_kvs"] = kvs_to_json(d->prev_kvs);
  } else if (auto* t = std::get_if<TxnResponse>(&out)) {
    j["succeeded"] = t->succeeded;
    json a = json::array();
    for (const auto& r : t->responses) a.push_back(response_op_to_json(r));
    j["responses"] = std::move(a);
  }
  return j;
}

namespace {

json request_op_to_json(const RequestOp& op) {
  json j;
  std::visit(
      [&](const auto& q) {
        using T = std::decay_t<decltype(q)>;
        if constexpr (std::is_same_v<T, std::shared_ptr<TxnRequest>>)
          j["txn"] = q ? etcd_request_to_json(EtcdKv::Input{*q}) : json::object();
        else
          j[etcd_op_name(EtcdKv::Input{q})] = etcd_request_to_json(EtcdKv::Input{q});
      },
      op.request);
  return j;
}

json response_op_to_json(const ResponseOp& op) {
  static const char* const kNames[] = {"range", "put", "delete_range", "txn"};
  json j;
  std::visit(
      [&](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, std::shared_ptr<TxnResponse>>)
          j["txn"] = r ? etcd_response_to_json(EtcdKv::Output{*r}) : json::object();
        else
          j[kNames[op.response.index()]] = etcd_response_to_json(EtcdKv::Output{r});
      },
      op.response);
  return j;
}

}  // namespace

}  // namespace lockstep
