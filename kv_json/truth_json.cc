#include "lockstep/kv_json/truth_json.h"

#include <utility>

namespace lockstep {

const char* key_event_truth_op(const Event& event) {
  return event.type == EventType::put ? "key-put" : "key-delete";
}

nlohmann::json key_event_truth_args(const Event& event, nlohmann::json::object_t extra) {
  nlohmann::json::object_t args = std::move(extra);
  const KeyValue& kv = event.kv;
  const bool put = event.type == EventType::put;
  // In key order, each at the end: one comparison per member when `extra` holds nothing that
  // sorts after it (a member out of order still lands in its place).
  if (put) args.emplace_hint(args.end(), "create_revision", kv.create_revision);
  args.emplace_hint(args.end(), "key", escape_bytes(kv.key));
  if (put) args.emplace_hint(args.end(), "lease", kv.lease);
  args.emplace_hint(args.end(), "revision", kv.mod_revision);
  if (put) args.emplace_hint(args.end(), "value", escape_bytes(kv.value));
  return nlohmann::json(std::move(args));
}

}  // namespace lockstep
