package adapter

// The etcd side the adapters share: the client, concurrency Sessions, and one acquire running in
// a goroutine of its own (Attempt). Debian's etcd 3.4.23 sources, GOPATH mode.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/ioutil"
	"sync"
	"time"

	"go.etcd.io/etcd/clientv3"
	"go.etcd.io/etcd/clientv3/concurrency"
	"go.etcd.io/etcd/etcdserver/api/v3rpc/rpctypes"
)

// Dial makes the client for h: clientv3.New{Endpoints, DialTimeout: 5 s}, with TLS and a user
// when the hello gives them. 3.4's New does not wait for a connection (no grpc.WithBlock), so
// it returns at once and fails only when New returns an error (no endpoints, an unreadable
// certificate, a refused login); an unreachable cluster shows at the first acquire.
func Dial(h Hello) (*clientv3.Client, error) {
	config := clientv3.Config{Endpoints: h.Endpoints, DialTimeout: 5 * time.Second}
	if h.TLS != nil {
		tlsConfig, err := TLSConfig(*h.TLS)
		if err != nil {
			return nil, fmt.Errorf("dial: %v", err)
		}
		config.TLS = tlsConfig
	}
	if h.User != nil {
		config.Username, config.Password = h.User.Name, h.User.Password
	}
	cli, err := clientv3.New(config)
	if err != nil {
		return nil, fmt.Errorf("dial: %v", err)
	}
	return cli, nil
}

// TLSConfig is the client side of f: the CA file's certificates as the roots (the system's
// when there is none), and the client certificate when f names one.
func TLSConfig(f TLSFiles) (*tls.Config, error) {
	config := &tls.Config{}
	if f.CAFile != "" {
		pem, err := ioutil.ReadFile(f.CAFile)
		if err != nil {
			return nil, fmt.Errorf("tls.ca_file: %v", err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls.ca_file %s: no PEM certificate in it", f.CAFile)
		}
		config.RootCAs = roots
	}
	if (f.CertFile == "") != (f.KeyFile == "") {
		return nil, fmt.Errorf("tls: cert_file and key_file go together")
	}
	if f.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("tls.cert_file, tls.key_file: %v", err)
		}
		config.Certificates = []tls.Certificate{cert}
	}
	return config, nil
}

// LiveSession returns s while it is live (its Done() not closed); otherwise it orphans s (when
// there is one) and returns nil, so that the next acquire opens a new session.
func LiveSession(s *concurrency.Session) *concurrency.Session {
	if s == nil {
		return nil
	}
	select {
	case <-s.Done():
		Logf("session (lease %x) is done; opening a new one", int64(s.Lease()))
		s.Orphan()
		return nil
	default:
		return s
	}
}

// CloseSession orphans s (its keep-alives end) and revokes its lease with a 3 s deadline, which
// deletes every key made under it (Session.Close would wait up to a whole TTL on the client's
// context).
func CloseSession(cli *clientv3.Client, s *concurrency.Session) {
	s.Orphan()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := cli.Revoke(ctx, s.Lease()); err != nil {
		Logf("revoke lease %x: %v", int64(s.Lease()), err)
	}
}

// LeaseNotFound says whether a lock call's error is etcd's "requested lease not found": the
// create txn was refused as a whole, so nothing was written, and the session is dead.
func LeaseNotFound(err error) bool { return err == rpctypes.ErrLeaseNotFound }

// errGivenUp is an Attempt's error when it was given up on while opening its session.
var errGivenUp = errors.New("given up on while opening a session")

// Attempt is one acquire running in a goroutine of its own: it opens a session
// (concurrency.NewSession(client, WithTTL(ttl))) unless it was given a live one, then calls the
// recipe's lock on it. The adapter waits for Done() and may give up on it first: GiveUpIfOpening
// while no key can have been written, Abandon whatever it is doing.
type Attempt struct {
	mu        sync.Mutex
	locking   bool // past session creation: lock has been (or is being) called
	abandoned bool // the adapter answered without waiting for it
	sess      *concurrency.Session
	err       error
	done      chan struct{}
}

// StartAttempt starts an acquire on sess (nil: open a new session with cli and ttl) that calls
// lock with the session. lock runs on the attempt's goroutine; what it sets is the adapter's to
// read once Done() is closed.
func StartAttempt(cli *clientv3.Client, sess *concurrency.Session, ttl int, lock func(*concurrency.Session) error) *Attempt {
	at := &Attempt{sess: sess, done: make(chan struct{})}
	go at.run(cli, sess, ttl, lock)
	return at
}

func (at *Attempt) run(cli *clientv3.Client, s *concurrency.Session, ttl int, lock func(*concurrency.Session) error) {
	defer close(at.done)
	opened := s == nil
	if opened {
		var err error
		if s, err = concurrency.NewSession(cli, concurrency.WithTTL(ttl)); err != nil {
			at.mu.Lock()
			at.err = err
			at.mu.Unlock()
			return
		}
	}
	at.mu.Lock()
	at.sess = s
	if at.abandoned { // given up on before the lock call: no key; a session it opened goes
		at.err = errGivenUp
		at.mu.Unlock()
		if opened {
			CloseSession(cli, s)
		}
		return
	}
	at.locking = true
	at.mu.Unlock()
	err := lock(s)
	at.mu.Lock()
	at.err = err
	abandoned := at.abandoned
	at.mu.Unlock()
	if abandoned { // answered long ago; whatever lock did, its session's lease goes now
		Logf("a lock call given up on returned (err=%v); revoking its session's lease", err)
		CloseSession(cli, s)
	}
}

// Done is closed when the attempt's goroutine has returned.
func (at *Attempt) Done() <-chan struct{} { return at.done }

// GiveUpIfOpening gives the attempt up when it has not called lock yet, still opening its session
// (no key was or will be written: the goroutine does not call lock, and revokes the lease of a
// session it opened as soon as it has one; a session it was given is left as it is), and returns
// true. Otherwise the lock call has been made: it returns the attempt's session and false, and
// the attempt goes on.
func (at *Attempt) GiveUpIfOpening() (sess *concurrency.Session, opening bool) {
	at.mu.Lock()
	defer at.mu.Unlock()
	if !at.locking {
		at.abandoned = true
		return nil, true
	}
	return at.sess, false
}

// Abandon gives the attempt up whatever it is doing and returns its session once lock has been
// called (nil before: then it is as GiveUpIfOpening). When the lock call returns later, the
// goroutine revokes that session's lease.
func (at *Attempt) Abandon() *concurrency.Session {
	at.mu.Lock()
	defer at.mu.Unlock()
	at.abandoned = true
	if !at.locking {
		return nil
	}
	return at.sess
}

// Result is the attempt's outcome once Done() is closed: its session (nil when none could be
// opened), whether the lock call was made, and the lock call's error (NewSession's when it was
// not made).
func (at *Attempt) Result() (sess *concurrency.Session, called bool, err error) {
	at.mu.Lock()
	defer at.mu.Unlock()
	return at.sess, at.locking, at.err
}
