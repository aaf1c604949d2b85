// JSON encoding of etcd requests and responses, as they appear in a history's `args` (the
// request) and `result` (the response) of the etcd ops "range", "put", "delete_range", "txn"
// and "lease_revoke". Field names are the snake_case names of kv/types.h; enums are lower-case
// words ("ascend", "mod", "not_equal"); keys and values are strings in the history's escaping
// (printable ASCII as is, "\\" for a backslash, "\xNN" for any other byte). Integers may be
// JSON numbers or decimal strings. Optional fields are omitted when they hold their default.
// See docs/history-format.md for the full shapes.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "lockstep/model/etcd_kv.h"

namespace lockstep {

// Decoding: on malformed input returns false and sets `error` to what was expected where.
bool etcd_request_from_json(const std::string& op, const nlohmann::json& args,
                            model::EtcdKv::Input& out, std::string& error);
bool etcd_response_from_json(const std::string& op, const nlohmann::json& result,
                             model::EtcdKv::Output& out, std::string& error);

// Encoding (the writer's side; decoding it gives back an equal request or response).
std::string etcd_op_name(const model::EtcdKv::Input& in);
nlohmann::json etcd_request_to_json(const model::EtcdKv::Input& in);
nlohmann::json etcd_response_to_json(const model::EtcdKv::Output& out);

}  // namespace lockstep
