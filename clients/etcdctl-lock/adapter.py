#!/usr/bin/env python3
"""etcdctl-lock: a lockstep external client (protocol 1, docs/external-clients.md) wrapping
`etcdctl lock` from Debian's etcd-client 3.4.23 (ETCDCTL_API=3). Python standard library only.

What `etcdctl lock NAME` does (etcdctl/ctlv3/command/lock_command.go, 3.4.23): it opens a
concurrency.Session with --ttl (default 10 s), Lock()s a concurrency.Mutex on NAME (the 3.4
Mutex: key "NAME/<lease hex>"), then Gets its own key ("lock lost on init" if it is gone, a
re-check that Mutex 3.4 itself lacks), prints that Get, and holds until SIGINT or SIGTERM, when
it Unlocks (a delete of the key, no deadline) and exits 0; it exits 1 with "session expired" if
its session ends first. The catalogue's nearest algorithm is etcd-mutex (a Mutex with the
re-check); each acquire is a new process, so a new session and a new key name.

How the protocol maps onto it:
  hello      remembers endpoints (joined for --endpoints), tls and user (passed to etcdctl as
             ETCDCTL_CACERT, ETCDCTL_CERT, ETCDCTL_KEY and ETCDCTL_USER), lock_name and the TTL
             (options.lease_ttl_seconds, else options.ttl, passed as --ttl; else etcdctl's
             default 10 s). Answers fail if there is no etcdctl on PATH.
  acquire    exclusive only ("shared" answers fail). Starts
             `etcdctl --endpoints=E -w json lock [--ttl=T] LOCK_NAME` and waits for its first
             stdout line: the JSON of its Get, which gives ok with key (base64-decoded), lease
             and token = the key's create revision (read back from etcd after the grant, so it
             is the own key's). At timeout_ms (or stdin EOF) it sends SIGINT (etcdctl cancels
             its Lock, whose clean-up deletes the waiting key), waits up to 3 s, then SIGKILLs
             it, and answers info. An etcdctl that exits before printing answers fail when its
             exit code says nothing was sent (2: could not connect; 128: bad arguments), else
             info (its stderr's last line is the reason).
  critical_section
             {"call":"read","token":T}, then when write {"call":"write","token":T,
             "value":read+1}, each answer read from stdin first; ok, or fail when lockstep
             answers a call with fail.
  release    SIGINT to the holding etcdctl, wait up to 10 s: exit 0 is ok; another exit code,
             no exit (then SIGKILL), or an etcdctl that had already exited (session expired)
             is info. fail when nothing was acquired.
  stdin EOF  a holding or waiting etcdctl gets SIGINT (SIGKILL after 5 s); exit 0.

Processes: etcdctl stays in the adapter's process group, so lockstep's pause (SIGSTOP to the
group) and crash (SIGKILL to the group) reach the process that holds the session, as they would
a single-process client; it is signalled by its own PID only. It also gets PR_SET_PDEATHSIG
(SIGKILL) so it never outlives the adapter. Its stderr is copied to the adapter's stderr.
"""
import base64
import ctypes
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections import deque

PR_SET_PDEATHSIG = 1
try:
    _libc = ctypes.CDLL(None, use_errno=True)
except OSError:
    _libc = None


def _die_with_parent():
    if _libc is not None:
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def log(msg):
    sys.stderr.write("etcdctl-lock: %s\n" % msg)
    sys.stderr.flush()


def send(obj):
    try:
        sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        pass


answered = set()


def answer(rid, typ, **fields):
    answered.add(rid)
    send(dict(id=rid, type=typ, **fields))


class Io:
    """One selector over stdin and the current etcdctl's stdout and stderr; lines are queued."""

    def __init__(self):
        self.sel = selectors.DefaultSelector()
        self.bufs = {}
        self.stdin = deque()
        self.stdin_eof = False
        self.proc_out = deque()
        self.proc_out_eof = True
        self.err_tail = deque(maxlen=5)
        self._watch(sys.stdin.buffer.fileno(), "stdin")

    def _watch(self, fd, kind):
        os.set_blocking(fd, False)
        self.bufs[fd] = b""
        self.sel.register(fd, selectors.EVENT_READ, kind)

    def watch_proc(self, proc):
        self.proc_out.clear()
        self.err_tail.clear()
        self.proc_out_eof = False
        self._watch(proc.stdout.fileno(), "out")
        self._watch(proc.stderr.fileno(), "err")

    def pump(self, timeout):
        """Waits up to timeout (None: for ever) for input and queues what arrived."""
        for key, _ in self.sel.select(timeout):
            fd, kind = key.fd, key.data
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                continue
            buf = self.bufs[fd] + data
            *done, self.bufs[fd] = buf.split(b"\n")
            if not data:  # end of file: the last partial line counts too
                done.append(self.bufs[fd])
                self.sel.unregister(fd)
                del self.bufs[fd]
            for raw in done:
                line = raw.decode("utf-8", "replace").rstrip("\r")
                if not line:
                    continue
                if kind == "stdin":
                    self.stdin.append(line)
                elif kind == "out":
                    self.proc_out.append(line)
                else:
                    self.err_tail.append(line)
                    log("[etcdctl] " + line)
            if not data:
                if kind == "stdin":
                    self.stdin_eof = True
                elif kind == "out":
                    self.proc_out_eof = True

    def next_stdin_line(self):
        while not self.stdin and not self.stdin_eof:
            self.pump(None)
        return self.stdin.popleft() if self.stdin else None

    def drain_proc(self, proc, timeout):
        """Waits up to timeout for proc to exit, copying its output; its exit code or None."""
        end = time.monotonic() + timeout
        while proc.poll() is None and time.monotonic() < end:
            self.pump(min(0.05, max(0.0, end - time.monotonic())))
        rc = proc.poll()
        if rc is not None:
            self.pump(0)
            for f in (proc.stdout, proc.stderr):
                if f.closed:
                    continue
                if f.fileno() in self.bufs:
                    self.sel.unregister(f.fileno())
                    del self.bufs[f.fileno()]
                f.close()
        return rc


class Adapter:
    def __init__(self):
        self.io = Io()
        self.etcdctl = None
        self.endpoints = None
        self.lock_name = None
        self.ttl = None
        self.credentials = {}  # ETCDCTL_* variables for TLS and a user, from the hello
        self.proc = None  # the etcdctl of the current or last acquire
        self.held = False
        self.token = None

    def hello(self, req):
        if req.get("protocol") != 1:
            return answer(req["id"], "fail", reason="protocol %r not supported (1 is)" % req.get("protocol"))
        self.etcdctl = shutil.which("etcdctl")
        if not self.etcdctl:
            return answer(req["id"], "fail", reason="etcdctl not found on PATH (Debian package etcd-client)")
        eps = req.get("endpoints") or os.environ.get("LOCKSTEP_ETCD_ENDPOINTS", "").split(",")
        self.endpoints = ",".join(e for e in eps if e)
        self.lock_name = req.get("lock_name") or os.environ.get("LOCKSTEP_LOCK_NAME")
        # etcdctl reads each flag from ETCDCTL_<FLAG> too: the password stays out of argv.
        self.credentials = {}
        tls = req.get("tls")
        if isinstance(tls, dict):
            for field, var in (("ca_file", "ETCDCTL_CACERT"), ("cert_file", "ETCDCTL_CERT"),
                               ("key_file", "ETCDCTL_KEY")):
                if tls.get(field):
                    self.credentials[var] = tls[field]
        user = req.get("user")
        if isinstance(user, dict) and user.get("name"):
            self.credentials["ETCDCTL_USER"] = "%s:%s" % (user["name"], user.get("password", ""))
        opts = req.get("options") or {}
        self.ttl = None
        for name in ("ttl", "lease_ttl_seconds"):  # the latter wins
            if isinstance(opts.get(name), int) and opts[name] > 0:
                self.ttl = opts[name]
        log("hello: endpoints %s (tls %s, user %s), lock %r, ttl %s" % (
            self.endpoints, isinstance(tls, dict), "ETCDCTL_USER" in self.credentials,
            self.lock_name, self.ttl or "etcdctl's default (10 s)"))
        answer(req["id"], "ok", protocol=1)

    def _stop(self, proc, grace):
        """SIGINT to proc (only), up to grace seconds to exit, then SIGKILL. Its exit code, or None
        when it had to be killed."""
        if proc.poll() is None:
            try:
                os.kill(proc.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
        rc = self.io.drain_proc(proc, grace)
        if rc is None:
            log("etcdctl %d did not exit %.0f s after SIGINT; SIGKILL" % (proc.pid, grace))
            proc.kill()
            self.io.drain_proc(proc, 5)
        return rc

    def acquire(self, req):
        rid = req["id"]
        if not self.etcdctl:
            return answer(rid, "fail", reason="no hello")
        if req.get("mode", "exclusive") != "exclusive":
            return answer(rid, "fail", reason="etcdctl lock has no %s mode" % req.get("mode"))
        if self.held:
            return answer(rid, "fail", reason="already holding the lock")
        timeout_ms = req.get("timeout_ms")
        if not isinstance(timeout_ms, (int, float)):
            return answer(rid, "fail", reason="malformed request: timeout_ms %r" % (timeout_ms,))
        if self.proc is not None and self.proc.poll() is None:
            self._stop(self.proc, 3)
        cmd = [self.etcdctl, "--endpoints=" + self.endpoints, "-w", "json", "lock"]
        if self.ttl:
            cmd.append("--ttl=%d" % self.ttl)
        cmd.append(self.lock_name)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ETCDCTL_")}
        env["ETCDCTL_API"] = "3"
        env.update(self.credentials)
        self.proc = proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, env=env,
                                            preexec_fn=_die_with_parent)
        self.io.watch_proc(proc)
        deadline = time.monotonic() + timeout_ms / 1000.0
        io = self.io
        while True:
            if io.proc_out:
                return self._granted(rid, io.proc_out.popleft())
            if io.proc_out_eof:
                rc = io.drain_proc(proc, 5)
                why = io.err_tail[-1] if io.err_tail else "no output"
                if rc in (2, 128):  # clientv3.New failed / bad arguments: nothing was sent
                    return answer(rid, "fail", reason="etcdctl exited %s: %s" % (rc, why))
                return answer(rid, "info", reason="etcdctl exited %s: %s" % (rc, why))
            left = deadline - time.monotonic()
            if left <= 0 or io.stdin_eof:
                rc = self._stop(proc, 3)
                why = "timed out" if left <= 0 else "stdin closed"
                return answer(rid, "info", reason="%s; etcdctl stopped (exit %s)" % (why, rc))
            io.pump(left)

    def _granted(self, rid, line):
        self.held, self.token = True, None
        fields = {}
        try:
            kv = json.loads(line)["kvs"][0]
            fields["key"] = base64.b64decode(kv["key"]).decode("utf-8", "replace")
            if kv.get("lease"):
                fields["lease"] = int(kv["lease"])
            if kv.get("create_revision", 0) > 0:
                self.token = fields["token"] = int(kv["create_revision"])
        except (ValueError, KeyError, IndexError, TypeError) as e:
            log("granted, but its output is not the expected JSON (%s): %s" % (e, line))
        answer(rid, "ok", **fields)

    def release(self, req):
        rid, proc = req["id"], self.proc
        if not self.held or proc is None:
            return answer(rid, "fail", reason="not holding the lock")
        self.held, self.token, self.proc = False, None, None
        if proc.poll() is not None:
            self.io.drain_proc(proc, 0)
            why = self.io.err_tail[-1] if self.io.err_tail else "no message"
            return answer(rid, "info", reason="etcdctl had exited (%s) before release: %s" % (proc.returncode, why))
        rc = self._stop(proc, 10)
        if rc == 0:
            return answer(rid, "ok")
        if rc is None:
            return answer(rid, "info", reason="etcdctl did not exit within 10 s of SIGINT; killed")
        why = self.io.err_tail[-1] if self.io.err_tail else "no message"
        answer(rid, "info", reason="etcdctl exited %s: %s" % (rc, why))

    def critical_section(self, req):
        rid = req["id"]

        def call(msg):
            if self.token is not None:
                msg["token"] = self.token
            send(msg)
            line = self.io.next_stdin_line()
            if line is None:
                return None, "stdin closed during the critical section"
            try:
                ans = json.loads(line)
                assert isinstance(ans, dict) and "call" in ans
            except (ValueError, AssertionError):
                return None, "expected the answer to a %s call, got: %s" % (msg["call"], line)
            if ans.get("type") != "ok":
                return None, "%s %s: %s" % (ans.get("call"), ans.get("type"), ans.get("reason"))
            return ans, None

        ans, why = call({"call": "read"})
        if ans is None:
            return answer(rid, "fail", reason=why)
        if req.get("write"):
            if not isinstance(ans.get("value"), int):
                return answer(rid, "fail", reason="read answered no integer value")
            ans, why = call({"call": "write", "value": ans["value"] + 1})
            if ans is None:
                return answer(rid, "fail", reason=why)
        answer(rid, "ok")

    def run(self):
        ops = {"hello": self.hello, "acquire": self.acquire, "release": self.release,
               "critical_section": self.critical_section}
        while True:
            line = self.io.next_stdin_line()
            if line is None:
                break
            try:
                req = json.loads(line)
                assert isinstance(req, dict) and isinstance(req.get("id"), int)
            except (ValueError, AssertionError):
                log("ignoring a line that is not a request: " + line)
                continue
            op = ops.get(req.get("op"))
            if op is None:
                answer(req["id"], "fail", reason="unknown op %r" % req.get("op"))
                continue
            try:
                op(req)
            except Exception as e:  # a bug or a malformed request: never leave it unanswered
                log("error in %s: %r" % (req.get("op"), e))
                if req["id"] not in answered:
                    answer(req["id"], "info", reason="adapter error: %r" % (e,))
        if self.proc is not None and self.proc.poll() is None:
            self._stop(self.proc, 5)
        log("stdin closed, exiting")


if __name__ == "__main__":
    Adapter().run()
    sys.exit(0)
