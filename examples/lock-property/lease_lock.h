// LeaseLock: the lock class of "your" production code, written against lockstep's kv/ seam so
// that the same code runs on the simulator (here) and on a real etcd.
//
// Acquire: grant a lease and keep it alive in the background, then poll one txn
// "create the key with my lease if it does not exist" until it succeeds or the deadline
// passes. Release: stop the keep-alive and revoke the lease (which deletes the key).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <lockstep/algorithms/lock.h>
#include <lockstep/kv/node_context.h>

namespace example {

class LeaseLock : public lockstep::Lock {
 public:
  LeaseLock(lockstep::NodeContext& ctx, std::string key, std::int64_t ttl_seconds);

  lockstep::LockCapabilities capabilities() const override;
  lockstep::Task<lockstep::Result<lockstep::LockGrant>> acquire(lockstep::LockMode mode,
                                                               lockstep::MonoTime deadline) override;
  lockstep::Task<lockstep::Result<void>> release() override;

 private:
  static lockstep::Task<void> keep_alive(lockstep::NodeContext* ctx, lockstep::LeaseId lease,
                                         lockstep::Duration interval);

  lockstep::NodeContext& ctx_;
  std::string key_;
  std::int64_t ttl_seconds_;
  lockstep::LeaseId lease_ = 0;
  lockstep::SpawnHandle keep_alive_;  // scoped: the loop dies with the holding
};

// Registers "lease-lock" with lockstep, so that scenarios can name it.
void register_lease_lock();

}  // namespace example
