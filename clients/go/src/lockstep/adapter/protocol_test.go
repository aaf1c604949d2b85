package adapter

// The protocol side without etcd: a fake Lock behind serve, lockstep's side played through pipes.
//
//	GO111MODULE=off GOPATH="$PWD/clients/go:/usr/share/gocode" go test lockstep/adapter

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"io/ioutil"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

type fakeLock struct {
	hellos []Hello
	token  int64
}

func (f *fakeLock) Hello(h Hello) error {
	f.hellos = append(f.hellos, h)
	return nil
}

func (f *fakeLock) Acquire(req *Request) Answer {
	if req.Mode == "wait" { // waits for the end of stdin, as a real acquire would give up
		<-StdinClosed()
		return Info("stdin closed during acquire")
	}
	f.token = 7
	return OK(Fields{"token": f.token, "key": "k", "lease": int64(1) << 62})
}

func (f *fakeLock) Token() int64 { return f.token }

func (f *fakeLock) Release(req *Request) Answer {
	f.token = 0
	return OK(nil)
}

func (f *fakeLock) Shutdown() {}

// lockstep is the other end of the pipes.
type lockstep struct {
	t     *testing.T
	w     *io.PipeWriter
	r     *bufio.Reader
	ended chan struct{}
}

func start(t *testing.T, l Lock) *lockstep {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	std = &conn{in: readLines(inR), out: outW}
	ls := &lockstep{t: t, w: inW, r: bufio.NewReader(outR), ended: make(chan struct{})}
	go func() {
		std.serve(l)
		close(ls.ended)
	}()
	return ls
}

func (ls *lockstep) write(line string) {
	if _, err := io.WriteString(ls.w, line+"\n"); err != nil {
		ls.t.Fatal(err)
	}
}

// expect reads the adapter's next line and compares it, as JSON, with want.
func (ls *lockstep) expect(want string) {
	ls.t.Helper()
	got, err := ls.r.ReadString('\n')
	if err != nil {
		ls.t.Fatalf("reading the adapter's output: %v", err)
	}
	var g, w interface{}
	dg := json.NewDecoder(strings.NewReader(got))
	dg.UseNumber()
	dw := json.NewDecoder(strings.NewReader(want))
	dw.UseNumber()
	if dg.Decode(&g) != nil || dw.Decode(&w) != nil || !reflect.DeepEqual(g, w) {
		ls.t.Fatalf("adapter wrote %s, want %s", strings.TrimSpace(got), want)
	}
}

func (ls *lockstep) close() {
	ls.w.Close()
	select {
	case <-ls.ended:
	case <-time.After(5 * time.Second):
		ls.t.Fatal("serve did not return at the end of stdin")
	}
}

func TestExchange(t *testing.T) {
	l := &fakeLock{}
	ls := start(t, l)
	ls.write(`{"id":1,"op":"hello","protocol":1,"client":"client-1","endpoints":["127.0.0.1:1","127.0.0.1:2"],"key_prefix":"p/","lock_name":"p/lock","options":{"ttl":9,"lease_ttl_seconds":5}}`)
	ls.expect(`{"id":1,"type":"ok","protocol":1}`)
	want := Hello{Endpoints: []string{"127.0.0.1:1", "127.0.0.1:2"}, LockName: "p/lock", TTL: 5}
	if len(l.hellos) != 1 || !reflect.DeepEqual(l.hellos[0], want) {
		t.Fatalf("Hello got %+v, want %+v", l.hellos, want)
	}
	ls.write(`{"id":2,"op":"acquire","mode":"exclusive","timeout_ms":5000}`)
	ls.expect(`{"id":2,"type":"ok","token":7,"key":"k","lease":4611686018427387904}`)
	ls.write(`{"id":3,"op":"critical_section","write":true}`)
	ls.expect(`{"call":"read","token":7}`)
	ls.write(`{"call":"read","type":"ok","value":3}`)
	ls.expect(`{"call":"write","token":7,"value":4}`)
	ls.write(`{"call":"write","type":"ok"}`)
	ls.expect(`{"id":3,"type":"ok"}`)
	ls.write(`{"id":4,"op":"release"}`)
	ls.expect(`{"id":4,"type":"ok"}`)
	// No token now: a shared read carries none; a refused call fails the critical section.
	ls.write(`{"id":5,"op":"critical_section","write":false}`)
	ls.expect(`{"call":"read"}`)
	ls.write(`{"call":"read","type":"fail","reason":"rejected: stale token 5 < 7"}`)
	ls.expect(`{"id":5,"type":"fail","reason":"read fail: rejected: stale token 5 < 7"}`)
	ls.close()
}

func TestBadLinesAndOptions(t *testing.T) {
	l := &fakeLock{}
	ls := start(t, l)
	ls.write(`{"id":1,"op":"hello","protocol":2}`)
	ls.expect(`{"id":1,"type":"fail","reason":"protocol 2 not supported (1 is)"}`)
	ls.write(`not json`)                                    // logged and skipped
	ls.write(`{"id":2,"op":"acquire","timeout_ms":"soon"}`) // malformed, but has an id
	if got, _ := ls.r.ReadString('\n'); !strings.HasPrefix(got, `{"id":2,"reason":"malformed request: json: cannot unmarshal string`) ||
		!strings.HasSuffix(got, `","type":"fail"}`+"\n") {
		t.Fatalf("adapter wrote %s", got)
	}
	ls.write(`{"id":3,"op":"frobnicate"}`)
	ls.expect(`{"id":3,"type":"fail","reason":"unknown op \"frobnicate\""}`)
	t.Setenv("LOCKSTEP_ETCD_ENDPOINTS", "127.0.0.1:3,127.0.0.1:4")
	ls.write(`{"id":4,"op":"hello","protocol":1,"lock_name":"p/lock","options":{"ttl":9}}`)
	ls.expect(`{"id":4,"type":"ok","protocol":1}`)
	ls.write(`{"id":5,"op":"hello","protocol":1,"lock_name":"p/lock","options":{"lease_ttl_seconds":0}}`)
	ls.expect(`{"id":5,"type":"ok","protocol":1}`)
	// A cluster with TLS and users: both reach Lock.Hello as sent.
	ls.write(`{"id":6,"op":"hello","protocol":1,"lock_name":"p/lock","options":{},"tls":{"ca_file":"/pki/ca.pem"},"user":{"name":"root","password":"pw"}}`)
	ls.expect(`{"id":6,"type":"ok","protocol":1}`)
	want := []Hello{
		{Endpoints: []string{"127.0.0.1:3", "127.0.0.1:4"}, LockName: "p/lock", TTL: 9},
		{Endpoints: []string{"127.0.0.1:3", "127.0.0.1:4"}, LockName: "p/lock", TTL: 60},
		{Endpoints: []string{"127.0.0.1:3", "127.0.0.1:4"}, TLS: &TLSFiles{CAFile: "/pki/ca.pem"},
			User: &User{Name: "root", Password: "pw"}, LockName: "p/lock", TTL: 60},
	}
	if !reflect.DeepEqual(l.hellos, want) {
		t.Fatalf("Hello got %+v, want %+v", l.hellos, want)
	}
	ls.close()
}

func TestStdinClosedDuringAcquire(t *testing.T) {
	ls := start(t, &fakeLock{})
	ls.write(`{"id":1,"op":"acquire","mode":"wait","timeout_ms":5000}`)
	time.Sleep(50 * time.Millisecond)
	ls.w.Close()
	ls.expect(`{"id":1,"type":"info","reason":"stdin closed during acquire"}`)
	select {
	case <-ls.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not return at the end of stdin")
	}
}

// TLSConfig reads the CA file into the roots and the client certificate with its key; a file
// that is not there or holds no PEM, or a certificate without its key, is an error naming it.
func TestTLSConfig(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, junk := dir+"/cert.pem", dir+"/key.pem", dir+"/junk.pem"
	write := func(name string, data []byte) {
		if err := ioutil.WriteFile(name, data, 0600); err != nil {
			t.Fatal(err)
		}
	}
	write(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	write(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	write(junk, []byte("not a certificate"))

	config, err := TLSConfig(TLSFiles{CAFile: certFile, CertFile: certFile, KeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	if config.RootCAs == nil || len(config.Certificates) != 1 {
		t.Fatalf("roots %v, %d client certificates", config.RootCAs, len(config.Certificates))
	}
	if config, err := TLSConfig(TLSFiles{}); err != nil || config.RootCAs != nil || len(config.Certificates) != 0 {
		t.Fatalf("no files: %v, %v (the system's roots, no client certificate expected)", config, err)
	}
	for _, bad := range []struct {
		files TLSFiles
		want  string
	}{
		{TLSFiles{CAFile: dir + "/missing.pem"}, "tls.ca_file: open " + dir + "/missing.pem"},
		{TLSFiles{CAFile: junk}, "tls.ca_file " + junk + ": no PEM certificate in it"},
		{TLSFiles{CertFile: certFile}, "tls: cert_file and key_file go together"},
		{TLSFiles{CertFile: certFile, KeyFile: junk}, "tls.cert_file, tls.key_file: "},
	} {
		if _, err := TLSConfig(bad.files); err == nil || !strings.HasPrefix(err.Error(), bad.want) {
			t.Errorf("TLSConfig(%+v) = %v, want an error starting %q", bad.files, err, bad.want)
		}
	}
}
