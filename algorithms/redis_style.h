// The steps the Redis-style locks share, on etcd: setnx-no-ttl, setnx-then-expire and
// fixed-ttl-no-renewal (see their files; the last two are one lock, made below).
//
// Contract: each helper sends what its name says and nothing else; none retries. The lock value
// is unique per acquire, so a release never matches another holder's key, nor a restarted
// incarnation of the same client's.
#pragma once

#include <memory>
#include <string>

#include "lockstep/algorithms/registry.h"
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

// The Redis lock with an expiry nobody renews, one attempt per acquire: a lease of the option
// lease_ttl_seconds is granted, then the key is set if absent with a unique value; a refused
// attempt revokes the lease. With `expiry_apart` false that is one SET NX EX
// (fixed-ttl-no-renewal); with it true, SETNX with no lease and then EXPIRE, a second txn
// attaching the lease if the value is still mine, whose outcome the holder ignores
// (setnx-then-expire). Release: the compare-and-delete, then the lease revoked when the txn
// was answered.
std::unique_ptr<Lock> make_expiring_setnx_lock(NodeContext& ctx, const LockSetup& setup,
                                               bool expiry_apart);

}  // namespace lockstep
