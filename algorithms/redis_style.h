// The steps the Redis-style locks share, on etcd: setnx-no-ttl, setnx-then-expire and
// fixed-ttl-no-renewal (see their files).
//
// Contract: each helper sends what its name says and nothing else; none retries. The lock value
// is unique per acquire, so a release never matches another holder's key, nor a restarted
// incarnation of the same client's.
#pragma once

#include <string>

#include "lockstep/kv/node_context.h"

namespace lockstep {

// uniqueValue: the client's name and a random id (the name alone would match a restarted
// incarnation of the client).
std::string unique_lock_value(NodeContext& ctx);

// SET key value NX (with EX when `lease` is not 0): one txn, put if create_revision(key) == 0.
TxnRequest set_if_absent(const std::string& key, const std::string& value, LeaseId lease);

// The unlock's Lua script, `if redis.call("get", KEYS[1]) == ARGV[1] then return
// redis.call("del", KEYS[1]) end`, as one txn: ok when it deleted the key, not_held when the
// key was not `value` any more, or the call's own error.
Task<Result<void>> delete_if_value(NodeContext& ctx, const std::string& key,
                                   const std::string& value);

// Revokes `lease`, ignoring the outcome (a lease nobody revokes expires by itself).
Task<void> revoke_quietly(NodeContext& ctx, LeaseId lease);

}  // namespace lockstep
