// The protected resource: what a critical section reads and writes, and why locks exist.
//
// Contract: a counter with a read and a write. The workload's critical section is a
// read-modify-write (read v, write v + 1), so two clients inside at once can lose an update.
// Every call carries the holder's fencing token. A fenced resource rejects (ErrorCode::
// rejected, definite) any call whose token is lower than the highest it has seen, reads
// included: without fencing reads, an old holder's write could still land between a newer
// holder's read and write. Each accepted write gets an `order`: its position among the
// resource's accepted writes (a sequence number, or the etcd revision for the guarded one).
#pragma once

#include <cstdint>
#include <string>

#include "lockstep/algorithms/lock.h"
#include "lockstep/kv/kv_client.h"
#include "lockstep/kv/result.h"
#include "lockstep/kv/task.h"

namespace lockstep {

struct ResourceRead {
  std::int64_t value = 0;
};

struct ResourceWrite {
  std::int64_t order = 0;
};

class ProtectedResource {
 public:
  virtual ~ProtectedResource() = default;
  // Called when the client acquires the lock, before its critical section.
  virtual void on_grant(const LockGrant&) {}
  virtual Task<Result<ResourceRead>> read(std::int64_t token) = 0;
  virtual Task<Result<ResourceWrite>> write(std::int64_t base, std::int64_t value,
                                            std::int64_t token) = 0;
};

// etcd-mutex-guarded's resource: the counter lives in etcd under `data_key` and each write is
// a txn guarded by create_revision(lock key) == the holder's key revision, so a holder that
// lost its key cannot write. Values are stored as "<value>@<base>@<token>" so that the
// store's own history shows which value each write was computed from, and by which holding.
class GuardedEtcdResource : public ProtectedResource {
 public:
  GuardedEtcdResource(KvClient& kv, std::string data_key) : kv_(kv), data_key_(std::move(data_key)) {}
  // The holding that guards the next writes.
  void on_grant(const LockGrant& grant) override { grant_ = grant; }

  Task<Result<ResourceRead>> read(std::int64_t token) override;
  Task<Result<ResourceWrite>> write(std::int64_t base, std::int64_t value, std::int64_t token) override;

 private:
  KvClient& kv_;
  std::string data_key_;
  LockGrant grant_;
};

}  // namespace lockstep
