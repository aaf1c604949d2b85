#include "lockstep/checker/history_ops.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "lockstep/kv_json/etcd_json.h"
#include "lockstep/model/etcd_kv.h"
#include "lockstep/model/kv_map.h"
#include "lockstep/model/mutex.h"
#include "lockstep/model/register.h"

namespace lockstep {

namespace {

constexpr std::pair<ModelKind, const char*> kModelNames[] = {
    {ModelKind::mutex, "mutex"},
    {ModelKind::fenced_mutex, "fenced-mutex"},
    {ModelKind::cas_register, "cas-register"},
    {ModelKind::kv, "kv"},
    {ModelKind::etcd, "etcd"},
};

using nlohmann::json;

// Reads an integer given as a JSON number or a decimal string.
std::optional<std::int64_t> as_int(const json& j) {
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size() && !s.empty()) return v;
  }
  return std::nullopt;
}

// What converting one operation can end in.
struct Conversion {
  std::string partition;
  std::string error;    // non-empty: malformed
  bool skip = false;    // excluded by rule (not checked)
};

// Shared by every model: pairs invokes with completions and hands each operation to `convert`.
// convert(invoke, completion-or-null, op-to-fill) -> Conversion.
template <class M, class Convert>
PartitionsResult collect(const History& h, M model, const std::set<std::string>& ops_read,
                         const std::vector<std::int64_t>& lines, Convert convert) {
  PartitionsResult result;
  std::map<std::string, std::vector<ModelOp<M>>> parts;
  auto line_of = [&](std::size_t i) {
    return lines.empty() ? static_cast<std::int64_t>(i) : lines[i];
  };
  auto label_of = [&](std::size_t i) {
    return (lines.empty() ? "event " : "line ") + std::to_string(line_of(i)) + " (process " +
           h.events[i].process + ")";
  };
  auto add = [&](std::size_t inv, const HistoryEvent* done) -> bool {
    ModelOp<M> op;
    Conversion c = convert(h.events[inv], done, op);
    if (!c.error.empty()) {
      // Every message starts with the field it is about: result.* is in the completion,
      // args.* in the invoke. Name the line that holds it.
      const bool in_result = done && c.error.rfind("result", 0) == 0;
      const std::size_t at = in_result ? static_cast<std::size_t>(done->index) : inv;
      result.error = HistoryParseError{line_of(at), c.error};
      return false;
    }
    if (c.skip) {
      ++result.unchecked_ops;
      return true;
    }
    op.interval.call = h.events[inv].true_ns;
    if (done) op.interval.ret = done->true_ns;
    op.label = label_of(inv);
    parts[c.partition].push_back(std::move(op));
    return true;
  };
  std::map<std::string, std::size_t> open;  // process -> its open invoke
  for (std::size_t i = 0; i < h.events.size(); ++i) {
    const HistoryEvent& e = h.events[i];
    if (e.kind == EventKind::invoke) {
      if (ops_read.count(e.op)) {
        open[e.process] = i;
        ++result.model_invokes;
      } else
        ++result.ignored_events;
      continue;
    }
    if (!e.is_completion()) continue;
    auto it = open.find(e.process);
    if (it == open.end()) continue;  // the completion of an ignored operation
    std::size_t inv = it->second;
    open.erase(it);
    if (e.kind == EventKind::fail) continue;  // definitely did not happen
    if (!add(inv, e.kind == EventKind::ok ? &e : nullptr)) return result;
  }
  std::vector<std::size_t> never_completed;
  for (const auto& [process, inv] : open) never_completed.push_back(inv);
  std::sort(never_completed.begin(), never_completed.end());
  for (auto inv : never_completed)
    if (!add(inv, nullptr)) return result;
  for (auto& [name, ops] : parts) {
    std::stable_sort(ops.begin(), ops.end(), [](const ModelOp<M>& a, const ModelOp<M>& b) {
      return a.interval.call < b.interval.call;
    });
    result.partitions.push_back({name, std::make_unique<ModelPartition<M>>(model, std::move(ops))});
  }
  return result;
}

// A string field of args (default if absent), unescaped.
bool string_arg(const json& obj, const char* where, const char* field, std::string& out,
                std::string& error, bool required) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) {
    if (required) error = std::string(where) + "." + field + ": expected a string";
    return !required;
  }
  if (!it->is_string()) {
    error = std::string(where) + "." + field + ": expected a string";
    return false;
  }
  auto bytes = unescape_bytes(it->get<std::string>());
  if (!bytes) {
    error = std::string(where) + "." + field + ": expected bytes escaped as \\\\ and \\xNN";
    return false;
  }
  out = std::move(*bytes);
  return true;
}

bool int_arg(const json& obj, const char* where, const char* field, std::int64_t& out,
             std::string& error) {
  auto it = obj.find(field);
  std::optional<std::int64_t> v;
  if (it != obj.end()) v = as_int(*it);
  if (!v) {
    error = std::string(where) + "." + field + ": expected an integer";
    return false;
  }
  out = *v;
  return true;
}

// Small positive ids for process names, in order of first appearance.
struct ProcessIds {
  std::map<std::string, model::ProcessId> ids;
  model::ProcessId of(const std::string& p) {
    auto [it, inserted] = ids.emplace(p, static_cast<model::ProcessId>(ids.size() + 1));
    return it->second;
  }
};

PartitionsResult mutex_partitions(const History& h, const std::vector<std::int64_t>& lines) {
  using M = model::OwnerMutex;
  ProcessIds pids;
  return collect(h, M{}, {"acquire", "release"}, lines,
                 [&](const HistoryEvent& inv, const HistoryEvent* done, ModelOp<M>& op) {
                   Conversion c;
                   string_arg(inv.args, "args", "lock", c.partition, c.error, false);
                   op.input.kind = inv.op == "acquire" ? M::Kind::acquire : M::Kind::release;
                   op.input.process = pids.of(inv.process);
                   if (done) op.output = M::Output{};
                   return c;
                 });
}

PartitionsResult fenced_partitions(const History& h, const std::vector<std::int64_t>& lines) {
  using M = model::FencedMutex;
  ProcessIds pids;
  return collect(
      h, M{}, {"acquire", "release"}, lines,
      [&](const HistoryEvent& inv, const HistoryEvent* done, ModelOp<M>& op) {
        Conversion c;
        if (!string_arg(inv.args, "args", "lock", c.partition, c.error, false)) return c;
        op.input.kind = inv.op == "acquire" ? M::Kind::acquire : M::Kind::release;
        op.input.process = pids.of(inv.process);
        if (op.input.kind == M::Kind::release && inv.args.contains("token")) {
          std::int64_t t = 0;
          if (!int_arg(inv.args, "args", "token", t, c.error)) return c;
          op.input.token = t;
        }
        if (done) {
          op.output = M::Output{};
          if (op.input.kind == M::Kind::acquire && done->result.contains("token")) {
            std::int64_t t = 0;
            if (!int_arg(done->result, "result", "token", t, c.error)) return c;
            op.output->token = t;
          }
        }
        return c;
      });
}

PartitionsResult register_partitions(const History& h, const std::vector<std::int64_t>& lines) {
  using M = model::CasRegister;
  return collect(
      h, M{}, {"read", "write", "cas"}, lines,
      [&](const HistoryEvent& inv, const HistoryEvent* done, ModelOp<M>& op) {
        Conversion c;
        if (!string_arg(inv.args, "args", "key", c.partition, c.error, false)) return c;
        if (inv.op == "read") {
          op.input.kind = M::Kind::read;
          if (done) {
            auto it = done->result.find("value");
            op.output = M::Output{};
            if (it == done->result.end() || it->is_null()) return c;  // absent
            auto v = as_int(*it);
            if (!v) c.error = "result.value: expected an integer or null";
            op.output->value = v;
          }
        } else if (inv.op == "write") {
          op.input.kind = M::Kind::write;
          if (!int_arg(inv.args, "args", "value", op.input.value, c.error)) return c;
          if (done) op.output = M::Output{};
        } else {
          op.input.kind = M::Kind::cas;
          if (!int_arg(inv.args, "args", "expected", op.input.expected, c.error) ||
              !int_arg(inv.args, "args", "new", op.input.value, c.error))
            return c;
          if (done) {
            auto it = done->result.find("succeeded");
            if (it == done->result.end() || !it->is_boolean()) {
              c.error = "result.succeeded: expected true or false";
              return c;
            }
            op.output = M::Output{std::nullopt, it->get<bool>()};
          }
        }
        return c;
      });
}

PartitionsResult kv_partitions(const History& h, const std::vector<std::int64_t>& lines) {
  using M = model::KvKey;
  return collect(
      h, M{}, {"get", "put", "append"}, lines,
      [&](const HistoryEvent& inv, const HistoryEvent* done, ModelOp<M>& op) {
        Conversion c;
        if (!string_arg(inv.args, "args", "key", c.partition, c.error, true)) return c;
        if (inv.op == "get") {
          op.input.kind = M::Kind::get;
          if (done) {
            op.output = M::Output{};
            string_arg(done->result, "result", "value", op.output->value, c.error, true);
          }
          return c;
        }
        op.input.kind = inv.op == "put" ? M::Kind::put : M::Kind::append;
        if (!string_arg(inv.args, "args", "value", op.input.value, c.error, true)) return c;
        if (done) op.output = M::Output{};
        return c;
      });
}

PartitionsResult etcd_partitions(const History& h, const std::vector<std::int64_t>& lines) {
  using M = model::EtcdKv;
  return collect(h, M{}, {"range", "put", "delete_range", "txn", "lease_revoke"}, lines,
                 [&](const HistoryEvent& inv, const HistoryEvent* done, ModelOp<M>& op) {
                   Conversion c;
                   if (!etcd_request_from_json(inv.op, inv.args, op.input, c.error)) return c;
                   if (auto* r = std::get_if<RangeRequest>(&op.input);
                       r && (r->serializable || r->revision > 0)) {
                     c.skip = true;
                     return c;
                   }
                   if (done) {
                     op.output.emplace();
                     etcd_response_from_json(inv.op, done->result, *op.output, c.error);
                   }
                   return c;
                 });
}

}  // namespace

const char* model_kind_name(ModelKind kind) {
  for (const auto& [k, name] : kModelNames)
    if (k == kind) return name;
  return "?";
}

const char* model_ops_words(ModelKind kind) {
  switch (kind) {
    case ModelKind::mutex:
    case ModelKind::fenced_mutex: return "acquire, release";
    case ModelKind::cas_register: return "read, write, cas";
    case ModelKind::kv: return "get, put, append";
    case ModelKind::etcd: return "range, put, delete_range, txn, lease_revoke";
  }
  return "?";
}

std::optional<ModelKind> parse_model_kind(const std::string& name) {
  for (const auto& [k, n] : kModelNames)
    if (name == n) return k;
  return std::nullopt;
}

PartitionsResult history_partitions(const History& history, ModelKind kind,
                                    const std::vector<std::int64_t>& event_lines) {
  switch (kind) {
    case ModelKind::mutex: return mutex_partitions(history, event_lines);
    case ModelKind::fenced_mutex: return fenced_partitions(history, event_lines);
    case ModelKind::cas_register: return register_partitions(history, event_lines);
    case ModelKind::kv: return kv_partitions(history, event_lines);
    case ModelKind::etcd: return etcd_partitions(history, event_lines);
  }
  return {};
}

std::optional<ModelKind> detect_model(const History& history, std::string& why_not) {
  if (auto it = history.header.meta.find("model");
      it != history.header.meta.end() && it->is_string()) {
    if (auto k = parse_model_kind(it->get<std::string>())) return k;
    why_not = "the header's meta.model \"" + it->get<std::string>() + "\" is not a known model";
    return std::nullopt;
  }
  std::set<ModelKind> fits;
  bool saw_put = false, tokens = false;
  for (const auto& e : history.events) {
    if (e.kind != EventKind::invoke && e.kind != EventKind::ok) continue;
    const std::string& op = e.op;
    if (op == "acquire" || op == "release") {
      fits.insert(ModelKind::mutex);
      if (e.kind == EventKind::ok && e.result.contains("token")) tokens = true;
    } else if (op == "read" || op == "write" || op == "cas") {
      fits.insert(ModelKind::cas_register);
    } else if (op == "get" || op == "append") {
      fits.insert(ModelKind::kv);
    } else if (op == "range" || op == "delete_range" || op == "txn" || op == "lease_revoke") {
      fits.insert(ModelKind::etcd);
    } else if (op == "put") {
      saw_put = true;
    }
  }
  if (saw_put && !fits.count(ModelKind::etcd)) fits.insert(ModelKind::kv);
  // A lock history may also record the lock's use (writes to the protected resource, the etcd
  // calls behind it): when there are lock operations, the lock is what is being checked.
  if (fits.count(ModelKind::mutex)) return tokens ? ModelKind::fenced_mutex : ModelKind::mutex;
  if (fits.size() == 1) return *fits.begin();
  if (fits.empty()) {
    why_not = "no operation that any model reads (acquire/release, read/write/cas, "
              "get/put/append, range/put/delete_range/txn)";
  } else {
    why_not = "operations of several models (";
    for (auto k : fits) why_not += std::string(model_kind_name(k)) + ", ";
    why_not.resize(why_not.size() - 2);
    why_not += ")";
  }
  return std::nullopt;
}

}  // namespace lockstep
