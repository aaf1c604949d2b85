// go-rwmutex: a lockstep external client (protocol 1, docs/external-clients.md) wrapping
// etcd's reader/writer lock recipe, go.etcd.io/etcd/contrib/recipes RWMutex, exactly as
// Debian ships it (golang-etcd-server-dev 3.4.23, built with GO111MODULE=off), on a
// clientv3/concurrency Session. The catalogue's algorithm is etcd-recipes-rwmutex.
//
// This file is what is specific to RWMutex. The protocol I/O (requests and answers, hello's
// endpoints, TLS, user and session TTL, the critical section's resource calls, stdin EOF) and the session
// handling are the Go adapters' shared package, lockstep/adapter (clients/go/src/lockstep/adapter,
// whose header says what it does for every request). Here:
//
//	hello            remembers the hello and makes the client (adapter.Dial: clientv3.New,
//	                 DialTimeout 5 s, no wait for a connection); fail only when New returns an
//	                 error.
//	acquire          opens a session (concurrency.NewSession(client, WithTTL(ttl))) when there is
//	                 none or its Done() is closed, then NewRWMutex(session, lock_name) and
//	                 RLock() for mode "shared", Lock() for "exclusive". ok carries key (the
//	                 recipe's own key "<lock_name>/read/<ns>" or ".../write/<ns>") and lease; an
//	                 exclusive grant also carries token = that key's create revision (the
//	                 revision of the create txn; writers are granted in that order). Shared
//	                 grants carry no token: readers are not ordered among themselves. The
//	                 recipe keeps its key in an unexported field with no accessor, so the
//	                 adapter reads it (read-only) through reflect/unsafe after RLock/Lock return.
//	                 Timeouts: RLock and Lock take no context, and the session's context does
//	                 not reach them either (the recipe's txns, gets and watches use
//	                 context.TODO()/Background(); a session context only ends the keep-alives).
//	                 So the call runs in a goroutine; at timeout_ms the adapter revokes the
//	                 session's lease (3 s deadline; this deletes the waiting key) and closes the
//	                 client, which ends the recipe's watch and makes its next get fail (after
//	                 clientv3's own ~2.5 s of retries), so the goroutine ends; the adapter does
//	                 not wait for it (its result is ignored) and answers info at once; the next
//	                 acquire dials a new client. A timeout while the session is still being
//	                 opened answers fail (no key was written, and the goroutine is told not to
//	                 write one).
//	                 Other answers: fail when the session cannot be opened or the create txn is
//	                 refused with "requested lease not found" (nothing written); info for any
//	                 other error, and then the session is abandoned (lease revoked): the recipe
//	                 makes a new key name at every acquire, so a key left behind would otherwise
//	                 wait under a live session for ever, ahead of everyone.
//	critical_section the resource calls carry token only for an exclusive holder.
//	release          RUnlock()/Unlock() (a delete of the own key, context.TODO()) in a goroutine,
//	                 waited for 10 s: ok; on an error or no return, info, and the session is
//	                 abandoned as above (the client closed too when the delete hangs). fail when
//	                 no lock was acquired.
//	stdin EOF        an open acquire is given up as at a timeout (answered info), a held lock is
//	                 released (3 s), the session orphaned and its lease revoked (3 s), exit 0.
//
// Logs go to stderr.
package main

import (
	"reflect"
	"strconv"
	"time"
	"unsafe"

	"go.etcd.io/etcd/clientv3"
	"go.etcd.io/etcd/clientv3/concurrency"
	recipe "go.etcd.io/etcd/contrib/recipes"

	"lockstep/adapter"
)

// ownKey reads RWMutex.myKey, which the recipe does not export. Read-only.
func ownKey(rw *recipe.RWMutex) *recipe.EphemeralKV {
	f := reflect.ValueOf(rw).Elem().FieldByName("myKey")
	if !f.IsValid() {
		return nil
	}
	return *(**recipe.EphemeralKV)(unsafe.Pointer(f.UnsafeAddr()))
}

type rwLock struct {
	hello    *adapter.Hello // nil until hello: how to dial again
	lockName string
	ttl      int

	cli   *clientv3.Client
	sess  *concurrency.Session
	rw    *recipe.RWMutex // from the last acquire, until released
	mode  string
	held  bool
	token int64
}

func (l *rwLock) Hello(h adapter.Hello) error {
	if l.cli != nil { // a second hello replaces the first
		l.Shutdown()
	}
	l.hello, l.lockName, l.ttl = &h, h.LockName, h.TTL
	cli, err := adapter.Dial(h)
	l.cli = cli // nil on error: the next acquire dials again
	return err
}

// abandon stops using the session: keep-alives end and its lease is revoked (3 s deadline),
// which deletes every key the recipe made under it. With closeClient, the client is closed
// too, which ends any recipe call still blocked on it; the next acquire dials again.
func (l *rwLock) abandon(closeClient bool) {
	if l.sess != nil {
		adapter.CloseSession(l.cli, l.sess)
	}
	l.sess, l.rw, l.held, l.token = nil, nil, false, 0
	if closeClient && l.cli != nil {
		l.cli.Close()
		l.cli = nil
	}
}

func (l *rwLock) Acquire(req *adapter.Request) adapter.Answer {
	if l.hello == nil {
		return adapter.Fail("no hello")
	}
	if req.Mode != "shared" && req.Mode != "exclusive" {
		return adapter.Fail("unknown mode " + strconv.Quote(req.Mode))
	}
	if l.held {
		return adapter.Fail("already holding the lock")
	}
	if l.cli == nil {
		cli, err := adapter.Dial(*l.hello)
		if err != nil {
			return adapter.Fail(err.Error())
		}
		l.cli = cli
	}
	l.sess = adapter.LiveSession(l.sess)
	var rw *recipe.RWMutex // set on the attempt's goroutine; read once it is done
	lockName, shared := l.lockName, req.Mode == "shared"
	at := adapter.StartAttempt(l.cli, l.sess, l.ttl, func(s *concurrency.Session) error {
		rw = recipe.NewRWMutex(s, lockName)
		if shared {
			return rw.RLock()
		}
		return rw.Lock()
	})

	giveUp := func(why string) adapter.Answer {
		sess, opening := at.GiveUpIfOpening()
		if opening {
			return adapter.Fail(why + " while opening a session")
		}
		// The recipe's call now fails (after the client's own retries, ~2.5 s) and its
		// goroutine ends; whatever it returns is ignored. Nothing is waited for.
		l.sess = sess
		l.abandon(true)
		return adapter.Info(why + "; the session's lease was revoked and the client closed")
	}
	deadline := time.NewTimer(time.Duration(req.TimeoutMs) * time.Millisecond)
	defer deadline.Stop()
	select {
	case <-at.Done():
		return l.finishAcquire(req, at, rw)
	case <-deadline.C:
		return giveUp("timed out")
	case <-adapter.StdinClosed():
		return giveUp("stdin closed")
	}
}

// finishAcquire answers an acquire whose attempt is done; rw is its RWMutex (nil when the lock
// call was not made).
func (l *rwLock) finishAcquire(req *adapter.Request, at *adapter.Attempt, rw *recipe.RWMutex) adapter.Answer {
	sess, called, err := at.Result()
	if !called {
		return adapter.Fail("cannot open a session: " + err.Error())
	}
	l.sess = sess
	if err == nil {
		l.rw, l.held, l.mode, l.token = rw, true, req.Mode, 0
		f := adapter.Fields{"lease": int64(sess.Lease())}
		if k := ownKey(rw); k != nil {
			f["key"] = k.Key()
			if req.Mode == "exclusive" && k.Revision() > 0 {
				l.token = k.Revision()
				f["token"] = l.token
			}
		}
		return adapter.OK(f)
	}
	if adapter.LeaseNotFound(err) { // nothing was written; the session is dead
		l.sess.Orphan()
		l.sess = nil
		return adapter.Fail(err.Error())
	}
	l.abandon(false)
	return adapter.Info(err.Error() + "; session abandoned")
}

func (l *rwLock) Token() int64 {
	if l.held {
		return l.token
	}
	return 0
}

func (l *rwLock) unlockWithin(d time.Duration) (err error, returned bool) {
	rw, shared := l.rw, l.mode == "shared"
	done := make(chan error, 1)
	go func() {
		if shared {
			done <- rw.RUnlock()
		} else {
			done <- rw.Unlock()
		}
	}()
	select {
	case err = <-done:
		return err, true
	case <-time.After(d):
		return nil, false
	}
}

func (l *rwLock) Release(req *adapter.Request) adapter.Answer {
	if l.rw == nil || !l.held {
		return adapter.Fail("not holding the lock")
	}
	err, returned := l.unlockWithin(10 * time.Second)
	switch {
	case !returned:
		l.abandon(true)
		return adapter.Info("unlock did not return in 10 s; session abandoned")
	case err != nil:
		l.abandon(false)
		return adapter.Info("unlock: " + err.Error() + "; session abandoned")
	default:
		l.rw, l.held, l.token = nil, false, 0
		return adapter.OK(nil)
	}
}

func (l *rwLock) Shutdown() {
	if l.cli == nil {
		return
	}
	if l.held && l.rw != nil {
		if err, returned := l.unlockWithin(3 * time.Second); !returned || err != nil {
			adapter.Logf("unlock at exit: returned=%v err=%v", returned, err)
		}
	}
	l.abandon(true)
}

func main() {
	adapter.Run("go-rwmutex", &rwLock{})
}
