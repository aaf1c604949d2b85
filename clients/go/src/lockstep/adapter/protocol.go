// Package adapter is what lockstep's Go adapters (clients/go-mutex, clients/go-rwmutex) share:
// protocol 1 of docs/external-clients.md on stdin and stdout (this file), and the etcd client and
// session handling around a lock recipe (etcd.go). An adapter implements Lock for the recipe it
// wraps and hands it to Run; everything below is the same for every adapter.
//
//	stdin            one reader goroutine queues the lines in order; lines that arrive while a
//	                 request is being handled wait for their turn (lockstep sends none then).
//	                 StdinClosed tells a waiting acquire that stdin has ended.
//	requests         decoded with numbers kept exact (json.Number). A line that does not decode
//	                 as a request is answered fail when it carries an id, else logged and
//	                 skipped; an unknown op is answered fail.
//	hello            protocol must be 1 (else fail, and Lock.Hello is not called). Endpoints
//	                 (LOCKSTEP_ETCD_ENDPOINTS when the request has none), tls and user (for a
//	                 cluster that asks for them), lock_name and the session TTL
//	                 (options.lease_ttl_seconds, else options.ttl, else concurrency's default
//	                 60 s) go to Lock.Hello: ok with protocol 1, or fail with Hello's error.
//	acquire, release Lock.Acquire and Lock.Release, whose Answer is sent.
//	critical_section {"call":"read"} then, when write, {"call":"write","value":read+1}, both with
//	                 "token" when Lock.Token() is positive; each answer is read from stdin before
//	                 going on; ok, or fail when lockstep answers a call with fail (or stdin ends).
//	stdin EOF        Lock.Shutdown (release what is held, revoke the session's lease), exit 0.
//
// Logs (Logf) go to stderr, each line prefixed with the adapter's name.
package adapter

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Request is one request from lockstep; each op uses some of the fields.
type Request struct {
	ID        int64                  `json:"id"`
	Op        string                 `json:"op"`
	Protocol  int                    `json:"protocol"`
	Client    string                 `json:"client"`
	Endpoints []string               `json:"endpoints"`
	KeyPrefix string                 `json:"key_prefix"`
	LockName  string                 `json:"lock_name"`
	Options   map[string]interface{} `json:"options"`
	TLS       *TLSFiles              `json:"tls"`
	User      *User                  `json:"user"`
	Mode      string                 `json:"mode"`
	TimeoutMs int64                  `json:"timeout_ms"`
	Write     bool                   `json:"write"`
}

// TLSFiles are the PEM files of a cluster that speaks TLS; each may be empty (no CA file: the
// system's roots; no cert and key: no client certificate).
type TLSFiles struct {
	CAFile   string `json:"ca_file"`
	CertFile string `json:"cert_file"`
	KeyFile  string `json:"key_file"`
}

// User is the etcd user to log in as, for a cluster with authentication on.
type User struct {
	Name     string `json:"name"`
	Password string `json:"password"`
}

// Hello is what a hello request sets up, as Lock.Hello gets it.
type Hello struct {
	Endpoints []string  // lockstep's link proxies for this client
	TLS       *TLSFiles // nil: plain http
	User      *User     // nil: no authentication
	LockName  string    // the key (prefix) the lock uses
	TTL       int       // session TTL in seconds
}

// Fields are the fields of an answer besides id and type.
type Fields = map[string]interface{}

// Answer is the answer to one request: Type "ok", "fail" or "info", and its fields.
type Answer struct {
	Type   string
	Fields Fields
}

// OK is an ok answer with the given fields (nil for none).
func OK(f Fields) Answer { return Answer{"ok", f} }

// Fail is a fail answer: it certainly did not happen.
func Fail(reason string) Answer { return Answer{"fail", Fields{"reason": reason}} }

// Info is an info answer: it may or may not have happened.
func Info(reason string) Answer { return Answer{"info", Fields{"reason": reason}} }

// Lock is one adapter's lock recipe. Its methods run on the goroutine that reads the requests,
// one at a time.
type Lock interface {
	// Hello makes the etcd client for h (lockstep sends one hello per process). An error is
	// answered fail with its text.
	Hello(h Hello) error
	// Acquire takes the lock in req.Mode, giving up after req.TimeoutMs; while it waits it
	// should also give up when StdinClosed() is closed.
	Acquire(req *Request) Answer
	// Token is the fencing token of the lock held now, 0 when none (or no lock is held); the
	// critical section's calls carry it when positive.
	Token() int64
	// Release releases the lock taken by the last acquire answered ok.
	Release(req *Request) Answer
	// Shutdown releases what is held and lets the session go, within a few seconds: stdin has
	// ended and the process exits after it.
	Shutdown()
}

// ---- stdin, stdout, stderr ----

// input is stdin as a queue of lines, filled by one reader goroutine.
type input struct {
	mu     sync.Mutex
	queue  []string
	eof    bool
	wake   chan struct{} // a line or the end arrived (capacity 1; one consumer)
	closed chan struct{} // closed at the end of input
}

func readLines(r io.Reader) *input {
	in := &input{wake: make(chan struct{}, 1), closed: make(chan struct{})}
	go func() {
		br := bufio.NewReaderSize(r, 1<<16)
		for {
			s, err := br.ReadString('\n')
			in.mu.Lock()
			if s = strings.TrimRight(s, "\r\n"); s != "" {
				in.queue = append(in.queue, s)
			}
			if err != nil {
				in.eof = true
			}
			in.mu.Unlock()
			select {
			case in.wake <- struct{}{}:
			default:
			}
			if err != nil {
				close(in.closed)
				return
			}
		}
	}()
	return in
}

// next returns the next line from lockstep, or false at the end of input.
func (in *input) next() (string, bool) {
	for {
		in.mu.Lock()
		if len(in.queue) > 0 {
			s := in.queue[0]
			in.queue = in.queue[1:]
			in.mu.Unlock()
			return s, true
		}
		eof := in.eof
		in.mu.Unlock()
		if eof {
			return "", false
		}
		<-in.wake
	}
}

// conn is the adapter's side of the protocol.
type conn struct {
	in    *input
	outMu sync.Mutex
	out   io.Writer
}

// std is the conn of Run (stdin, stdout); name prefixes the log lines.
var (
	std  *conn
	name = "adapter"
)

// Logf writes one line to stderr, prefixed with the adapter's name.
func Logf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, name+": "+format+"\n", args...)
}

// StdinClosed is closed when lockstep has closed the adapter's stdin (lines it sent before are
// still read, in order). Valid once Run has started.
func StdinClosed() <-chan struct{} { return std.in.closed }

func (c *conn) send(v Fields) {
	b, err := json.Marshal(v)
	if err != nil {
		Logf("marshal: %v", err)
		return
	}
	c.outMu.Lock()
	defer c.outMu.Unlock()
	c.out.Write(append(b, '\n'))
}

func (c *conn) answer(id int64, a Answer) {
	m := Fields{"id": id, "type": a.Type}
	for k, v := range a.Fields {
		m[k] = v
	}
	c.send(m)
}

// ---- requests ----

// Run serves lockstep's requests on stdin with l until stdin ends, then calls l.Shutdown and
// exits 0. name prefixes the log lines.
func Run(adapterName string, l Lock) {
	name = adapterName
	std = &conn{in: readLines(os.Stdin), out: os.Stdout}
	std.serve(l)
	l.Shutdown()
	Logf("stdin closed, exiting")
	os.Exit(0)
}

// serve answers requests until the end of input.
func (c *conn) serve(l Lock) {
	for {
		line, ok := c.in.next()
		if !ok {
			return
		}
		var req Request
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&req); err != nil || req.ID <= 0 {
			var idOnly struct {
				ID int64 `json:"id"`
			}
			if json.Unmarshal([]byte(line), &idOnly) == nil && idOnly.ID > 0 && err != nil {
				c.answer(idOnly.ID, Fail("malformed request: "+err.Error()))
			} else {
				Logf("ignoring a line that is not a request: %s", line)
			}
			continue
		}
		var a Answer
		switch req.Op {
		case "hello":
			a = c.hello(&req, l)
		case "acquire":
			a = l.Acquire(&req)
		case "critical_section":
			a = c.criticalSection(&req, l.Token())
		case "release":
			a = l.Release(&req)
		default:
			a = Fail("unknown op " + strconv.Quote(req.Op))
		}
		c.answer(req.ID, a)
	}
}

func (c *conn) hello(req *Request, l Lock) Answer {
	if req.Protocol != 1 {
		return Fail(fmt.Sprintf("protocol %d not supported (1 is)", req.Protocol))
	}
	h := Hello{Endpoints: req.Endpoints, TLS: req.TLS, User: req.User, LockName: req.LockName,
		TTL: 60} // concurrency's defaultSessionTTL
	if len(h.Endpoints) == 0 && os.Getenv("LOCKSTEP_ETCD_ENDPOINTS") != "" {
		h.Endpoints = strings.Split(os.Getenv("LOCKSTEP_ETCD_ENDPOINTS"), ",")
	}
	for _, opt := range []string{"ttl", "lease_ttl_seconds"} { // the latter wins
		if v, ok := req.Options[opt].(json.Number); ok {
			if n, err := strconv.Atoi(v.String()); err == nil && n > 0 {
				h.TTL = n
			}
		}
	}
	if err := l.Hello(h); err != nil {
		return Fail(err.Error())
	}
	Logf("hello: endpoints %v (tls %v, user %v), lock %q, session ttl %d s", h.Endpoints,
		h.TLS != nil, h.User != nil, h.LockName, h.TTL)
	return OK(Fields{"protocol": 1})
}

// callAnswer is lockstep's answer to a resource call.
type callAnswer struct {
	Call   string      `json:"call"`
	Type   string      `json:"type"`
	Value  json.Number `json:"value"`
	Reason string      `json:"reason"`
}

func (c *conn) criticalSection(req *Request, token int64) Answer {
	call := func(m Fields) (*callAnswer, string) {
		if token > 0 {
			m["token"] = token
		}
		c.send(m)
		line, ok := c.in.next()
		if !ok {
			return nil, "stdin closed during the critical section"
		}
		var ans callAnswer
		if err := json.Unmarshal([]byte(line), &ans); err != nil || ans.Call == "" {
			return nil, "expected the answer to a " + m["call"].(string) + " call, got: " + line
		}
		if ans.Type != "ok" {
			return nil, ans.Call + " " + ans.Type + ": " + ans.Reason
		}
		return &ans, ""
	}
	ans, why := call(Fields{"call": "read"})
	if ans == nil {
		return Fail(why)
	}
	if req.Write {
		v, err := ans.Value.Int64()
		if err != nil {
			return Fail("read answered no integer value")
		}
		if ans, why = call(Fields{"call": "write", "value": v + 1}); ans == nil {
			return Fail(why)
		}
	}
	return OK(nil)
}
