// The six etcd-mutex entries of the catalogue: one lock (EtcdMutex, etcd_mutex.h) under
// six sets of options, each described where it is registered.
#include "lockstep/algorithms/etcd_mutex.h"

namespace lockstep {

namespace {

// An entry of the catalogue for EtcdMutex with `options` (the session TTL comes from the
// entry's option lease_ttl_seconds, concurrency.NewSession's default 60 s).
AlgorithmInfo etcd_mutex_entry(const char* name, const char* summary, EtcdMutexOptions options) {
  AlgorithmInfo info;
  info.name = name;
  info.summary = summary;
  info.capabilities.fencing = options.fencing;
  info.capabilities.guarded_writes = options.guarded_writes;
  info.options = {{"lease_ttl_seconds", 60, "session TTL (concurrency.NewSession's default 60 s)"}};
  info.make = [options](NodeContext& ctx, const LockSetup& setup) -> std::unique_ptr<Lock> {
    EtcdMutexOptions o = options;
    o.session_ttl_seconds = setup.options.at("lease_ttl_seconds");
    return std::make_unique<EtcdMutex>(ctx, setup.lock_name, o);
  };
  return info;
}

}  // namespace

// etcd-mutex: etcd's concurrency.Mutex from 3.5 on (see etcd_mutex.h).
//
// What it promises: mutual exclusion while holders keep their sessions alive; a waiter whose
//   session expired while it waited is told so (session_expired) instead of being granted.
// What it gets wrong: only the inherent limit of leases. A holder paused or partitioned past
//   its TTL keeps believing it holds the lock after etcd deleted its key; nothing in a lease
//   can prevent that, only fencing at the resource can (see etcd-mutex-fenced).
AlgorithmInfo etcd_mutex_info() {
  EtcdMutexOptions o;
  o.recheck_own_key = true;
  return etcd_mutex_entry("etcd-mutex",
                          "etcd concurrency.Mutex (3.5+): lowest create revision holds, waiters "
                          "watch their predecessor and re-check their own key",
                          o);
}

// etcd-mutex-3.4: etcd's concurrency.Mutex up to 3.4 (see etcd_mutex.h).
//
// Where it comes from: go.etcd.io/etcd/clientv3/concurrency/mutex.go before the fix of etcd
//   issue 11456 (found by Jepsen's etcd 3.4.3 analysis).
// What it does: as etcd-mutex, but after waiting for every older key to be deleted it does not
//   read its own key again.
// What it promises: mutual exclusion while holders keep their sessions alive.
// What it gets wrong: a waiter whose lease expired while it waited (its key deleted by etcd)
//   is still told it holds the lock once the older keys are gone, while a later client, now
//   the lowest key, holds it too. Plus the inherent lease problems of etcd-mutex.
AlgorithmInfo etcd_mutex_34_info() {
  EtcdMutexOptions o;
  o.recheck_own_key = false;
  return etcd_mutex_entry("etcd-mutex-3.4",
                          "etcd concurrency.Mutex up to 3.4: as etcd-mutex without the re-check "
                          "of the own key after waiting (etcd issue 11456)",
                          o);
}

// etcd-mutex-fenced: etcd's concurrency.Mutex (3.5) with a fencing token (see etcd_mutex.h).
//
// Where it comes from: the fencing-token pattern (Kleppmann, "How to do distributed locking")
//   applied to etcd's Mutex: the token is the own key's create revision (myRev in Go's
//   Mutex, which no exported method returns; Mutex.Header().Revision is the store revision of
//   the response that granted the lock, larger than it when the holder waited), which is larger
//   for every later holder.
// What it does: the lock is etcd-mutex; the grant's fencing_token goes with every write to the
//   protected resource, which rejects a token lower than the highest it has accepted.
// What it promises: the protected resource stays correct under every fault.
// What it gets wrong: nothing at the resource. Two clients may still briefly both *believe*
//   they hold the lock (a paused holder past its TTL), so the mutual-exclusion check on
//   beliefs can fail while the resource check passes: that contrast is the lesson.
AlgorithmInfo etcd_mutex_fenced_info() {
  EtcdMutexOptions o;
  o.recheck_own_key = true;
  o.fencing = true;
  return etcd_mutex_entry("etcd-mutex-fenced",
                          "etcd concurrency.Mutex (3.5+) with a fencing token (own key's create "
                          "revision) checked by the protected resource",
                          o);
}

// etcd-mutex-guarded: etcd's concurrency.Mutex (3.5) with the protected data in etcd behind a
// guarded txn (see etcd_mutex.h).
//
// Where it comes from: Jepsen's `lock-etcd-set` workload, and the advice of etcd's own docs:
//   guard the protected data's writes by the lock key's create revision. lockstep guards with
//   the revision the acquire created or found its key at (the Mutex's myRev), not with
//   Mutex.Header().Revision: after a wait the header's revision is a later one, and a guard on it
//   would never hold.
// What it does: the lock is etcd-mutex; capabilities().guarded_writes tells the harness to keep
//   the protected data in etcd and make each write a txn guarded by
//   create_revision(grant.key) == grant.key_revision, so a write lands only while the writer's
//   key, hence its holding, still exists.
// What it promises: no lost update for data kept in etcd, under every fault.
// What it gets wrong: nothing for data in etcd; beliefs may still overlap (a paused holder),
//   and a resource outside etcd gets no protection from it.
AlgorithmInfo etcd_mutex_guarded_info() {
  EtcdMutexOptions o;
  o.recheck_own_key = true;
  o.guarded_writes = true;
  return etcd_mutex_entry("etcd-mutex-guarded",
                          "etcd concurrency.Mutex (3.5+); the protected data lives in etcd "
                          "behind a txn guarded by the own key's create revision",
                          o);
}

// etcd-mutex-safe-unlock: etcd-mutex whose unlock deletes only its own incarnation of the key
// (see etcd_mutex.h).
//
// Where it comes from: the fix proposed upstream for Mutex.Unlock, which deletes the key by
//   name: a stale unlock (an earlier Mutex of the same session, or a delete that arrives late)
//   removes a newer key of the same name, since the name is prefix/<lease id>. The proposal
//   makes Unlock a txn: If(CreateRevision(myKey) == myRev) Then Delete(myKey).
// What it does: as etcd-mutex, but its release and its clean-up after a failed wait are that
//   txn.
// What it promises: what etcd-mutex promises, and that no unlock of an earlier holding of the
//   session removes a later one.
// What it gets wrong: only the inherent limit of leases, like etcd-mutex. Compared with the
//   port's former clean-up (the delete sent again through another member with the session
//   kept), which broke mutual exclusion with no lease expiring, the late delete finds a newer
//   create revision and does nothing (harness/algorithm_catalogue_test.cc shows both).
AlgorithmInfo etcd_mutex_safe_unlock_info() {
  EtcdMutexOptions o;
  o.recheck_own_key = true;
  o.safe_unlock = true;
  return etcd_mutex_entry("etcd-mutex-safe-unlock",
                          "etcd concurrency.Mutex (3.5+) whose unlock deletes the own key only "
                          "if its create revision is the acquired one",
                          o);
}

// etcd-mutex-synced-watch: etcd-mutex whose waiters open their watch from now, then read
// (see etcd_mutex.h).
//
// Where it comes from: lockstep's own variant of etcd's concurrency.Mutex (3.5), made to show
//   where the Mutex's contended hand-off time goes. Go's waitDelete watches from the read's
//   revision, the store's current one; etcd 3.4's watchable store counts a watcher synced only
//   when it starts above the current revision (or at none) and catches the others up every
//   100 ms (mvcc/watchable_store.go, syncWatchersLoop), so each hand-off waits for that loop.
// What it does: as etcd-mutex, but a waiter opens its watch of the predecessor with no start
//   revision (synced: every later event is sent at once), then reads the predecessor: gone,
//   or a newer incarnation of its name, and there is nothing to wait for; still there, and its
//   delete comes after the watch was created, so the watch receives it. One read more per
//   wait than Go's, and when that read shows a write that may have raced the watch's
//   registration (etcd 3.4.23's own race, see EtcdMutex::wait_delete_watching_from_now),
//   another watch after 10 ms without news.
// What it promises: what etcd-mutex promises.
// What it gets wrong: only the inherent limit of leases, like etcd-mutex.
AlgorithmInfo etcd_mutex_synced_watch_info() {
  EtcdMutexOptions o;
  o.recheck_own_key = true;
  o.watch_from_current_revision = true;
  return etcd_mutex_entry("etcd-mutex-synced-watch",
                          "etcd-mutex whose waiters watch from now, then read, so etcd 3.4 hands "
                          "the lock over at once, not at its 100 ms watcher catch-up loop",
                          o);
}

}  // namespace lockstep
