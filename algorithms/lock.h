// Lock: the one interface every algorithm of the catalogue implements.
//
// Contract:
//   - A Lock object belongs to one client (one NodeContext) and is used by one task at a time.
//   - acquire(mode, deadline) returns when the client believes it holds the lock (ok, with a
//     LockGrant), or fails: definite errors (lock_busy for a try-lock that found it held,
//     deadline_exceeded, session_expired, ...) mean the client does not hold it; an
//     indeterminate error means it may (its key may exist in etcd) but the client must not
//     act as the holder.
//   - release() ends the holding; an indeterminate release may or may not have freed it.
//   - capabilities() tells the workload which operations make sense: a try-only lock makes
//     one attempt per acquire and the workload retries; shared mode only for reader/writer
//     locks; fencing tokens only where the algorithm produces them.
// Algorithms are written against kv/ only (see docs/architecture.md), so the same code runs on the
// simulator and on a real etcd.
#pragma once

#include <cstdint>
#include <string>

#include "lockstep/kv/result.h"
#include "lockstep/kv/task.h"
#include "lockstep/kv/time.h"
#include "lockstep/kv/types.h"

namespace lockstep {

enum class LockMode { exclusive, shared };

struct LockCapabilities {
  bool blocking = true;        // acquire waits until the deadline; false: one attempt
  bool shared_mode = false;    // offers LockMode::shared (reader/writer locks)
  bool reentrant = false;      // the holder may acquire again (and must release as often)
  bool fencing = false;        // LockGrant::fencing_token is meaningful
  bool guarded_writes = false; // the protected data lives in etcd behind a guarded txn
};

struct LockGrant {
  std::int64_t fencing_token = 0;  // increases across holders, when capabilities().fencing
  std::string key;                 // the etcd key that represents this holding
  Revision key_revision = 0;       // that key's create revision
  LeaseId lease = 0;               // the lease the key is attached to (0: none)
};

class Lock {
 public:
  virtual ~Lock() = default;
  virtual LockCapabilities capabilities() const = 0;
  virtual Task<Result<LockGrant>> acquire(LockMode mode, MonoTime deadline) = 0;
  virtual Task<Result<void>> release() = 0;
};

}  // namespace lockstep
