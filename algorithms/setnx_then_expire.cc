// setnx-then-expire: the non-atomic Redis lock, SETNX and then EXPIRE as two commands.
//
// Where it comes from: the section "为什么要给锁设置一个过期时间?" (why give the lock an expiry
//   time?) of the tutorial behind zk-recipe (see docs/algorithms.md), which insists that the
//   key and its expiry be set in one atomic operation, "otherwise the lock may still never be
//   released": the pattern it warns against is `SETNX lockKey uniqueValue` followed by a
//   separate `EXPIRE lockKey 3`.
// What it does: acquire grants a lease of lease_ttl_seconds (standing for the EXPIRE's TTL;
//   granted first so that SETNX and EXPIRE stay one round trip apart, as in Redis), then
//   SETNX: if create_revision(key) == 0, put key = my unique value with no lease (one attempt;
//   the workload polls; a refused attempt revokes the lease). Then EXPIRE: if value(key) is
//   mine, put it again under the lease. Release: if value(key) is mine, delete it, then revoke
//   the lease.
// What it promises: what fixed-ttl-no-renewal promises.
// What it gets wrong: between the two commands the key has no expiry. A holder that crashes
//   there, or whose EXPIRE is lost and whose release is lost too, leaves a key nothing will
//   ever delete, and every client waits for ever, exactly as with setnx-no-ttl. Plus
//   fixed-ttl-no-renewal's early expiry.
// Options: lease_ttl_seconds = 3 (the article's EX 3).
#include "lockstep/algorithms/redis_style.h"
#include "lockstep/algorithms/registry.h"

namespace lockstep {

AlgorithmInfo setnx_then_expire_info() {
  AlgorithmInfo info;
  info.name = "setnx-then-expire";
  info.summary =
      "the non-atomic Redis lock SETNX then EXPIRE on etcd: create-if-absent with no lease, "
      "then attach one; a crash in between leaves the lock held for ever";
  info.capabilities.blocking = false;
  info.options = {{"lease_ttl_seconds", 3, "the EXPIRE's TTL (the article's 3 s)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return make_expiring_setnx_lock(ctx, setup, /*expiry_apart=*/true);
  };
  return info;
}

}  // namespace lockstep
