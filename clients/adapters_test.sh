#!/usr/bin/env bash
# The adapters of clients/ under lockstep on real etcd clusters lockstep starts on loopback:
#   - each adapter through a run without faults: every check ok, every client granted the lock
#     (the Go RWMutex in both modes);
#   - etcd's own Go concurrency.Mutex (3.4.23, Debian's source, unmodified) replaying the
#     scenario whose pause of the waiters catches the C++ etcd-mutex-3.4 port: mutual exclusion
#     broken (etcd issue 11456), as the port breaks it on the same schedule;
#   - a client that breaks the protocol;
#   - the Go Mutex, etcdctl-lock and node-etcd3 on an existing cluster (--endpoints) that this
#     script starts with mutual TLS and users on: the TLS files and the user reach each hello.
#
#   adapters_test.sh LOCKSTEP ADAPTERS_DIR SOURCE_DIR      (ADAPTERS_DIR: clients/build.sh's OUTDIR)
set -euo pipefail
lockstep=$1 bin=$2 src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# run NAME EXPECTED_EXIT ARGS...: lockstep ARGS --out work/NAME; its output in work/NAME.out.
run() {
  local name=$1 want=$2
  shift 2
  local rc=0
  "$lockstep" "$@" --out "$work/$name" >"$work/$name.out" 2>&1 || rc=$?
  if [ "$rc" != "$want" ]; then
    cat "$work/$name.out" >&2
    for f in "$work/$name"/client-*.stderr "$work/$name"/real-1/client-*.stderr; do
      [ -f "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }
    done
    fail "$name: exit $rc, expected $want"
  fi
  echo "ok: $name (exit $rc)"
}

# granted HISTORY MODE...: every client's acquires were granted at least once (in each mode).
granted() {
  python3 - "$@" <<'PY' || fail "$1: not every client was granted in every mode"
import json, sys
history, modes = sys.argv[1], sys.argv[2:]
open_mode, seen, clients = {}, set(), set()
for line in open(history):
    e = json.loads(line)
    if e.get("op") != "acquire" or not e.get("process", "").startswith("client-"):
        continue
    clients.add(e["process"])
    if e["type"] == "invoke":
        open_mode[e["process"]] = e["args"]["mode"]
    elif e["type"] == "ok":
        seen.add((e["process"], open_mode[e["process"]]))
missing = [(c, m) for c in sorted(clients) for m in modes if (c, m) not in seen]
for c, m in missing:
    print(f"{history}: {c} never granted in {m} mode", file=sys.stderr)
sys.exit(1 if missing or len(clients) < 2 else 0)
PY
}

common=(run --backend etcd --members 1 --clients 3 --duration 5)
run go-mutex 0 "${common[@]}" --algorithm etcd-mutex-3.4 --option lease_ttl_seconds=5 --client-cmd "$bin/go-mutex"
granted "$work/go-mutex/history.jsonl" exclusive
run go-rwmutex 0 "${common[@]}" --algorithm etcd-recipes-rwmutex --option lease_ttl_seconds=5 \
  --client-cmd "$bin/go-rwmutex"
granted "$work/go-rwmutex/history.jsonl" exclusive shared
run etcdctl-lock 0 "${common[@]}" --algorithm etcd-mutex --option lease_ttl_seconds=5 \
  --client-cmd "python3 $src/clients/etcdctl-lock/adapter.py"
granted "$work/etcdctl-lock/history.jsonl" exclusive
run node-etcd3 0 "${common[@]}" --algorithm txn-retry-lock --option lease_ttl_seconds=5 \
  --client-cmd "node $src/clients/node-etcd3/adapter.js"
granted "$work/node-etcd3/history.jsonl" exclusive

# etcd issue 11456 in etcd's own Go Mutex, and in the C++ port, on the same schedule.
scenario="$src/scenarios/etcd-mutex-3.4-waiters-paused-past-their-lease.json"
# The Go run names its clients in a copy of the scenario (client_cmd), as a user would.
python3 - "$scenario" "$work/go-mutex-11456.json" "$bin/go-mutex" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["client_cmd"] = sys.argv[3]
json.dump(s, open(sys.argv[2], "w"), indent=2)
PY
run go-mutex-11456 1 replay "$work/go-mutex-11456.json" --backend etcd --runs 1
grep -q "clients: the scenario's client_cmd" "$work/go-mutex-11456.out" || fail "the replay did not say it runs the scenario's client_cmd"
grep -q "real run 1: mutex violated (reproduced)" "$work/go-mutex-11456.out" ||
  fail "the Go Mutex did not break mutual exclusion: $(cat "$work/go-mutex-11456.out")"
run port-11456 1 replay "$scenario" --backend etcd --runs 1
grep -q "real run 1: mutex violated (reproduced)" "$work/port-11456.out" ||
  fail "the C++ port did not break mutual exclusion: $(cat "$work/port-11456.out")"
# A client that breaks the protocol mid-run: exit 2 ("bad client", not a verdict), an error
# naming the client and its line, the history and the client's stderr kept.
bad='read l; echo "{\"id\":1,\"type\":\"ok\",\"protocol\":1}"; read l; echo "{\"id\":9,\"type\":\"ok\"}"; sleep 31.25'
run bad-client 2 run --backend etcd --members 1 --clients 2 --duration 2 --algorithm etcd-mutex --client-cmd "$bad"
grep -q "bad client: client-.: answers request 9, but the open request is 2: line 2 of its output" "$work/bad-client.out" ||
  fail "no bad-client message: $(cat "$work/bad-client.out")"
for f in history.jsonl verdict.json client-0.stderr client-1.stderr; do
  [ -f "$work/bad-client/$f" ] || fail "bad-client: $f not written"
done
grep -q '"bad_client"' "$work/bad-client/verdict.json" || fail "bad-client: verdict.json does not say bad_client"
! pgrep -f "sleep 31.25" >/dev/null || fail "bad-client: a client process is still running"
# An existing cluster with mutual TLS and users (what --endpoints --cacert --cert --key --user
# are for): every adapter gets the files and the user in its hello and is served. The client
# certificate's name is no etcd user, so each request passes only with the password's token.
pki="$work/pki"
mkdir -p "$pki"
cert() { # cert NAME CN USAGE: NAME.pem and NAME.key signed by the test CA
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$pki/$1.key" \
    -out "$pki/$1.csr" -subj "/CN=$2" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=%s\n' "$3" >"$pki/$1.ext"
  openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 1 -extfile "$pki/$1.ext" -out "$pki/$1.pem" 2>/dev/null
}
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$pki/ca.key" \
  -out "$pki/ca.pem" -days 1 -subj "/CN=lockstep test CA" 2>/dev/null || fail "openssl: no test CA"
cert server 127.0.0.1 serverAuth,clientAuth
cert client lockstep-adapters-test clientAuth
read -r client_port peer_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
etcd --name tls0 --data-dir "$work/etcd-tls" \
  --listen-client-urls "https://127.0.0.1:$client_port" --advertise-client-urls "https://127.0.0.1:$client_port" \
  --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-cluster "tls0=http://127.0.0.1:$peer_port" \
  --cert-file "$pki/server.pem" --key-file "$pki/server.key" --trusted-ca-file "$pki/ca.pem" \
  --client-cert-auth >"$work/etcd-tls.log" 2>&1 &
etcd_pid=$!
trap 'kill -9 "$etcd_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
tls=(--endpoints "https://127.0.0.1:$client_port" --cacert "$pki/ca.pem" --cert "$pki/client.pem" --key "$pki/client.key")
ctl() { ETCDCTL_API=3 etcdctl --dial-timeout=2s "${tls[@]}" "$@"; }
for _ in $(seq 50); do ctl endpoint health >/dev/null 2>&1 && break; sleep 0.2; done
ctl user add root:lockstep-pw >/dev/null || fail "etcd (TLS): user add: $(tail -5 "$work/etcd-tls.log")"
# (etcdctl grants root the root role itself when auth enable finds it missing, after a warning)
ctl auth enable >/dev/null 2>"$work/auth-enable.err" || fail "etcd (TLS): auth enable: $(cat "$work/auth-enable.err")"
secure=(run --backend etcd "${tls[@]}" --user root:lockstep-pw --clients 2 --duration 3)
run go-mutex-tls 0 "${secure[@]}" --algorithm etcd-mutex-3.4 --option lease_ttl_seconds=5 --client-cmd "$bin/go-mutex"
granted "$work/go-mutex-tls/history.jsonl" exclusive
run etcdctl-lock-tls 0 "${secure[@]}" --algorithm etcd-mutex --option lease_ttl_seconds=5 \
  --client-cmd "python3 $src/clients/etcdctl-lock/adapter.py"
granted "$work/etcdctl-lock-tls/history.jsonl" exclusive
run node-etcd3-tls 0 "${secure[@]}" --algorithm txn-retry-lock --option lease_ttl_seconds=5 \
  --client-cmd "node $src/clients/node-etcd3/adapter.js"
granted "$work/node-etcd3-tls/history.jsonl" exclusive
# Without the password the same client gets nowhere: the user is what let it in.
if ETCDCTL_API=3 etcdctl --dial-timeout=2s "${tls[@]}" put "lockstep-adapters-test" x >/dev/null 2>&1; then
  fail "etcd (TLS): a request without the user was served; the test proves nothing"
fi
kill "$etcd_pid"
wait "$etcd_pid" 2>/dev/null || true
echo "adapters_test: all passed"
