// go-mutex: a lockstep external client (protocol 1, docs/external-clients.md) wrapping etcd's
// clientv3/concurrency.Mutex exactly as Debian ships it (golang-etcd-server-dev 3.4.23,
// go.etcd.io/etcd/clientv3/concurrency, built with GO111MODULE=off). This is the Mutex
// *before* the fix of etcd issue 11456 (no re-check of the own key after waiting): the
// catalogue's nearest algorithm is etcd-mutex-3.4.
//
// This file is what is specific to Mutex. The protocol I/O (requests and answers, hello's
// endpoints, TLS, user and session TTL, the critical section's resource calls, stdin EOF) and the session
// handling are the Go adapters' shared package, lockstep/adapter (clients/go/src/lockstep/adapter,
// whose header says what it does for every request). Here:
//
//	hello            makes the client (adapter.Dial: clientv3.New, DialTimeout 5 s, no wait for a
//	                 connection); fail only when New returns an error.
//	acquire          exclusive only ("shared" answers fail: Mutex has no shared mode). Opens a
//	                 session (concurrency.NewSession(client, WithTTL(ttl))) when there is none
//	                 or its Done() is closed, then NewMutex(session, lock_name) and
//	                 Lock(ctx with timeout_ms). ok carries key = m.Key(), lease = the session's
//	                 lease, token = the own key's create revision (Mutex's myRev, read through
//	                 m.IsOwner(), whose compare is create_revision(myKey) == myRev; m.Header()
//	                 is not used: it is the revision of the grant, not of the key).
//	                 Answers: fail when the session cannot be opened (no key was written) or
//	                 the Lock txn is refused with "requested lease not found" (nothing
//	                 written); info for everything else (deadline, cancel, transport errors:
//	                 the key may exist). Lock's own clean-up after a failed wait runs an
//	                 Unlock with client.Ctx() (no deadline), so Lock may not return at its
//	                 deadline: the adapter waits timeout_ms + 3 s, then answers info and
//	                 abandons that session (the late clean-up deletes "<lock_name>/<lease>",
//	                 which would be the key of the next Lock on the same session); when Lock
//	                 finally returns, that session is closed (lease revoked).
//	critical_section the resource calls carry token = that create revision.
//	release          m.Unlock(ctx with 10 s timeout): ok, or info on any error (the key may
//	                 still be there). fail when no Mutex was acquired.
//	stdin EOF        an open acquire is cancelled (answered info once Lock returns, or after 3 s
//	                 with its session abandoned), a held lock is unlocked (3 s), the session
//	                 orphaned and its lease revoked (3 s), exit 0.
//
// Everything else (retries, keep-alives, the key layout "<lock_name>/<lease hex>") is the
// library's own. Logs go to stderr.
package main

import (
	"context"
	"time"

	"go.etcd.io/etcd/clientv3"
	"go.etcd.io/etcd/clientv3/concurrency"
	pb "go.etcd.io/etcd/etcdserver/etcdserverpb"

	"lockstep/adapter"
)

type mutexLock struct {
	cli      *clientv3.Client
	lockName string
	ttl      int

	sess  *concurrency.Session
	mutex *concurrency.Mutex // from the last acquire (ok or info), until released
	held  bool
	token int64
}

func (l *mutexLock) Hello(h adapter.Hello) error {
	if l.cli != nil { // a second hello replaces the first
		l.Shutdown()
	}
	l.lockName, l.ttl = h.LockName, h.TTL
	cli, err := adapter.Dial(h)
	l.cli = cli // nil on error: acquires answer fail
	return err
}

func (l *mutexLock) Acquire(req *adapter.Request) adapter.Answer {
	if l.cli == nil {
		return adapter.Fail("no client (hello failed or missing)")
	}
	if req.Mode != "" && req.Mode != "exclusive" {
		return adapter.Fail("concurrency.Mutex has no " + req.Mode + " mode")
	}
	if l.held {
		return adapter.Fail("already holding the lock")
	}
	timeout := time.Duration(req.TimeoutMs) * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	l.sess = adapter.LiveSession(l.sess)
	var m *concurrency.Mutex // set on the attempt's goroutine; read once it is done
	lockName := l.lockName
	at := adapter.StartAttempt(l.cli, l.sess, l.ttl, func(s *concurrency.Session) error {
		m = concurrency.NewMutex(s, lockName)
		return m.Lock(ctx)
	})

	grace := time.NewTimer(timeout + 3*time.Second)
	defer grace.Stop()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case <-at.Done():
			return l.finishAcquire(at, m)
		case <-deadline.C:
			if _, opening := at.GiveUpIfOpening(); opening { // no key was or will be written
				return adapter.Fail("timed out opening a session")
			}
			// Lock has its ctx: it returns now, or once its clean-up Unlock does.
		case <-grace.C: // (a paused process may see both timers at once: check again)
			if _, opening := at.GiveUpIfOpening(); opening {
				return adapter.Fail("timed out opening a session")
			}
			// Its late clean-up could delete the next key of this session: stop using the
			// session, and let its lease (and with it any key of this Lock) go now.
			go adapter.CloseSession(l.cli, at.Abandon())
			l.mutex, l.sess = nil, nil
			return adapter.Info("Lock did not return within timeout_ms + 3 s (its clean-up Unlock has no deadline); session abandoned")
		case <-adapter.StdinClosed():
			cancel() // Lock returns context.Canceled and cleans up after itself
			select {
			case <-at.Done():
				return l.finishAcquire(at, m)
			case <-time.After(3 * time.Second):
				if s := at.Abandon(); s != nil { // else no Lock call: l.sess goes at Shutdown
					l.sess = nil
					adapter.CloseSession(l.cli, s)
				}
				l.mutex = nil
				return adapter.Info("stdin closed during acquire")
			}
		}
	}
}

// finishAcquire answers an acquire whose attempt is done; m is its Mutex (nil when Lock was not
// called).
func (l *mutexLock) finishAcquire(at *adapter.Attempt, m *concurrency.Mutex) adapter.Answer {
	sess, called, err := at.Result()
	if sess != nil {
		l.sess = sess
	}
	if !called {
		return adapter.Fail("cannot open a session: " + err.Error())
	}
	l.mutex = m
	if err == nil {
		l.held = true
		cmp := m.IsOwner() // create_revision(myKey) == myRev
		l.token = (*pb.Compare)(&cmp).GetCreateRevision()
		f := adapter.Fields{"key": m.Key(), "lease": int64(sess.Lease())}
		if l.token > 0 {
			f["token"] = l.token
		}
		return adapter.OK(f)
	}
	if adapter.LeaseNotFound(err) { // nothing was written; the session is dead
		l.sess.Orphan()
		l.sess, l.mutex = nil, nil
		return adapter.Fail(err.Error())
	}
	return adapter.Info(err.Error())
}

func (l *mutexLock) Token() int64 {
	if l.held {
		return l.token
	}
	return 0
}

func (l *mutexLock) Release(req *adapter.Request) adapter.Answer {
	if l.mutex == nil {
		return adapter.Fail("no Mutex to unlock")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := l.mutex.Unlock(ctx)
	cancel()
	l.mutex, l.held, l.token = nil, false, 0
	if err != nil {
		return adapter.Info("Unlock: " + err.Error())
	}
	return adapter.OK(nil)
}

func (l *mutexLock) Shutdown() {
	if l.cli == nil {
		return
	}
	if l.held && l.mutex != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		if err := l.mutex.Unlock(ctx); err != nil {
			adapter.Logf("unlock at exit: %v", err)
		}
		cancel()
	}
	if l.sess != nil {
		adapter.CloseSession(l.cli, l.sess)
	}
	l.cli.Close()
	l.cli, l.sess, l.mutex, l.held, l.token = nil, nil, nil, false, 0
}

func main() {
	adapter.Run("go-mutex", &mutexLock{})
}
