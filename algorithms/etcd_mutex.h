// The etcd concurrency.Mutex family: one implementation, the published behaviours and a
// proposed fix.
//
// Where it comes from: go.etcd.io/etcd/client/v3/concurrency (mutex.go, session.go).
// What it does: each client puts `prefix/<lease id hex>` under its session lease with a
//   create-if-absent txn; the key with the lowest create revision holds the lock; a waiter
//   watches the newest older key from the read's revision until it is deleted, then checks
//   again, until no older key remains.
// Variants:
//   - recheck_own_key = false: etcd up to 3.4. A waiter whose lease expired while it waited is
//     told it holds the lock (etcd issue 11456, found by Jepsen).
//   - recheck_own_key = true: etcd 3.5 on: after waiting it reads its own key and fails with
//     session_expired if the key is gone.
//   - The fencing token is the own key's create revision, which increases across holders;
//     `fencing` says whether the registered variant offers it (etcd-mutex-fenced).
//   - `guarded_writes` (etcd-mutex-guarded) changes nothing in the lock: it tells the harness
//     to keep the protected data in etcd behind create_revision(grant.key) == key_revision.
//   - watch_from_current_revision = true (etcd-mutex-synced-watch): a waiter opens its watch
//     of the predecessor from now and then reads the predecessor again, instead of watching
//     from its read's revision, so etcd 3.4 delivers the hand-off at once instead of at its
//     unsynced-watcher loop's next 100 ms turn (docs/real-etcd.md measures both).
//   - safe_unlock = true (etcd-mutex-safe-unlock): the unlock deletes the own key only if its
//     create revision is the acquired one, the fix proposed in etcd issue 22082 (pull request
//     22115) for a stale unlock deleting a newer key of the same session.
// lockstep's own choices, not upstream's:
//   - A delete of the own key whose outcome is unknown (Unlock, or Lock's clean-up after a
//     failed wait) abandons the session: upstream leaves that to the application, whose next
//     Lock on the same session would re-create the same key name, which the late delete could
//     then remove while it holds the lock. Go's Lock waits for its clean-up Unlock with no
//     deadline (client.Ctx()) on one connection; the port gives each call its request timeout.
//   - A session whose lease the client gave up on is replaced at the next acquire, as an
//     application does after session.Done().
#pragma once

#include <memory>

#include "lockstep/algorithms/lock.h"
#include "lockstep/algorithms/registry.h"
#include "lockstep/algorithms/session.h"

namespace lockstep {

struct EtcdMutexOptions {
  std::int64_t session_ttl_seconds = 60;  // concurrency.NewSession's default TTL
  bool recheck_own_key = true;
  bool fencing = false;
  bool guarded_writes = false;  // only a capability: the harness guards its writes
  // The unlock deletes only the incarnation of the own key this acquire created or found: a
  // txn If(create_revision(key) == the acquired revision) Then Delete(key), the fix proposed
  // upstream for a stale unlock deleting a newer key of the same session. false: Go's
  // Unlock, a plain Delete of the key name.
  bool safe_unlock = false;
  // What to do when a delete of the own key ends with its outcome unknown. true (lockstep's
  // choice, see above): abandon the session. false: the port's former behaviour, kept to show
  // what safe_unlock protects against: send the delete again (a retry may reach another
  // member) and keep the session, so a late first delete can meet the same key name again.
  bool abandon_session_on_unknown_delete = true;
  // How a waiter starts watching its predecessor. false (Go's waitDelete): a watch from the
  // revision of the read that found the predecessor, the store's current revision; etcd 3.4
  // counts such a watcher unsynced and catches it up only at its sync loop's next turn, every
  // 100 ms, so the delete that hands the lock over waits for that turn. true
  // (etcd-mutex-synced-watch): a watch from now (no start revision), which etcd counts synced
  // and sends each later event at once, then a read of the predecessor: a delete before the
  // watch shows in that read, a delete after it reaches the watch.
  bool watch_from_current_revision = false;
};

class EtcdMutex : public Lock {
 public:
  EtcdMutex(NodeContext& ctx, std::string prefix, EtcdMutexOptions options);
  ~EtcdMutex() override;

  LockCapabilities capabilities() const override;
  Task<Result<LockGrant>> acquire(LockMode mode, MonoTime deadline) override;
  Task<Result<void>> release() override;

 private:
  // Waits until no key under the prefix has a create revision <= max_create_revision.
  Task<Result<void>> wait_deletes(Revision max_create_revision, MonoTime deadline);
  Task<Result<void>> wait_delete(std::string key, Revision from_revision, MonoTime deadline);
  // wait_delete for watch_from_current_revision: waits until the key created at
  // `create_revision` is gone, with a watch from now and a read after it.
  Task<Result<void>> wait_delete_watching_from_now(std::string key, Revision create_revision,
                                                   MonoTime deadline);
  // Deletes `key` (only its incarnation created at `revision` when safe_unlock).
  Task<Result<void>> delete_key(std::string key, Revision revision);
  // The clean-up of a failed acquire and the release: delete_key of the own key, which is then
  // no longer ours, and when its outcome is unknown, what abandon_session_on_unknown_delete
  // says (see the .cc).
  Task<Result<void>> delete_own_key_or_abandon_session();

  NodeContext& ctx_;
  std::string prefix_;  // ends with '/'
  EtcdMutexOptions options_;
  std::unique_ptr<Session> session_;
  std::string my_key_;
  Revision my_revision_ = -1;
};

}  // namespace lockstep
