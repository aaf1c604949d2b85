// fixed-ttl-no-renewal: the Redis lock with an expiry and no renewal (SET key value EX n NX).
//
// Where it comes from: the section "为什么要给锁设置一个过期时间?" (why give the lock an expiry
//   time?) of the tutorial behind zk-recipe (see docs/algorithms.md): `SET lockKey uniqueValue
//   EX 3 NX` sets the key and its expiry in one atomic command, and the unlock is the Lua
//   compare-and-delete of setnx-no-ttl. The article itself warns that the lock expires early
//   when the work on the shared resource outlasts the expiry.
// What it does: acquire grants a lease of lease_ttl_seconds (the EX), then one txn: if
//   create_revision(key) == 0, put key = my unique value under that lease (one attempt; the
//   workload polls; a refused attempt revokes its lease). Nothing ever renews the lease.
//   Release is one txn: if value(key) == my value, delete it; then the lease is revoked.
// What it promises: mutual exclusion for critical sections shorter than the TTL, and no
//   deadlock: a crashed holder's key expires (compare setnx-no-ttl).
// What it gets wrong: the holder has no way to extend its holding. Work that outlasts the TTL
//   (a slow critical section, a GC pause, a partition) loses the key while the holder goes on,
//   with no fault at all, and a second client takes it.
// Options: lease_ttl_seconds = 3 (the article's EX 3).
#include "lockstep/algorithms/redis_style.h"
#include "lockstep/algorithms/registry.h"

namespace lockstep {

AlgorithmInfo fixed_ttl_no_renewal_info() {
  AlgorithmInfo info;
  info.name = "fixed-ttl-no-renewal";
  info.summary =
      "the Redis lock SET key value EX n NX on etcd: create-if-absent under a lease nobody "
      "renews; breaks with no fault once the work outlasts the TTL";
  info.capabilities.blocking = false;
  info.options = {{"lease_ttl_seconds", 3, "the lock's expiry (the article's EX 3)"}};
  info.make = [](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    return make_expiring_setnx_lock(ctx, setup, /*expiry_apart=*/false);
  };
  return info;
}

}  // namespace lockstep
