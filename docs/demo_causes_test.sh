#!/usr/bin/env bash
# demo_causes_test.sh LOCKSTEP: every failure `lockstep demo --seeds 200` finds is explained by
# its real cause. For each algorithm the demo catches, the explanation's cause class, the client
# it holds responsible, and what it names (the fault by its kind and target, the request by its
# kind and sender, the lease whose revoke committed) are checked against the failure's own
# history. Release builds only: the demo runs 200 seeds of each survivor (about 30 s).
set -euo pipefail
lockstep="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$lockstep" demo --seeds 200 --jobs 2 --out "$work/demo" > "$work/demo.txt" 2>&1 ||
  fail "lockstep demo exited $?: $(cat "$work/demo.txt")"

# algorithm  check  cause-class  fault-named (kind:target, kind for a cluster-wide fault, or -)
# request-named (kind:client, or -)
expected='
naive-get-put     mutex    key-overwritten         -                  put:client-1
txn-try-lock      mutex    lease-expired           partition:member-2 -
txn-retry-lock    mutex    lease-expired           pause:client-0     -
reentrant         mutex    key-deleted-by-request  partition:client-0 delete_range:client-0
redisson-reentrant mutex   lease-expired           pause:client-1     -
rw-lock           mutex    granted-while-key-held  -                  -
etcd-recipes-rwmutex mutex lease-expired           pause:client-1     -
prefix-watch-lock mutex    grantee-key-gone        -                  -
zk-recipe         mutex    lease-expired           lease-drop:client-0 -
etcd-mutex-3.4    mutex    lease-expired           pause:client-1     -
etcd-mutex        mutex    lease-expired           lease-drop:client-2 -
etcd-mutex-safe-unlock mutex lease-expired         lease-drop:client-2 -
setnx-no-ttl      liveness release-lost            leader-change      -
setnx-then-expire mutex    lease-expired           -                  -
fixed-ttl-no-renewal mutex lease-expired           -                  -
'
checked=0
while read -r algorithm check class fault request; do
  [[ -n $algorithm ]] || continue
  dir="$work/demo/$algorithm"
  grep -qE "^  $algorithm +violated $check" "$work/demo.txt" ||
    fail "$algorithm: the demo did not report a $check violation: $(grep " $algorithm " "$work/demo.txt")"
  "$lockstep" report "$dir" --explanation-json > "$work/$algorithm.json" ||
    fail "$algorithm: lockstep report --explanation-json failed"
  python3 - "$work/$algorithm.json" "$dir/history.jsonl" "$check" "$class" "$fault" "$request" <<'PY' ||
import json, sys
explained, history_path, check, want_class, want_fault, want_request = sys.argv[1:]
events = [json.loads(line) for line in open(history_path)][1:]
x = next((e for e in json.load(open(explained))["explanations"] if e["check"] == check), None)
assert x is not None, f"no explanation of {check}"
cause = x["cause"]
assert cause["class"] == want_class, f"cause {cause['class']}, expected {want_class}: {x['sentences']}"
named = set()
for i in cause.get("faults", []):
    e = events[i]
    assert e["type"] == "fault" and e["args"].get("phase") == "start", f"event {i} is not a fault's start"
    for p in e["args"].get("targets", []) + e["args"].get("from", []):
        named.add(f"{e['op']}:{p}")
    if not e["args"].get("targets") and not e["args"].get("from"):
        named.add(e["op"])  # a fault on the cluster as a whole (a leader change)
if want_fault != "-":
    assert want_fault in named, f"the cause names the faults {sorted(named)}, not {want_fault}"
if want_request != "-":
    r = cause.get("request", {})
    assert f"{r.get('request')}:{r.get('client')}" == want_request, f"the cause names the request {r}"
if cause["class"] == "lease-expired":
    committed = [e for e in events if e["type"] == "truth" and e["op"] == "lease-expired"
                 and e["args"]["lease"] == cause["lease"]]
    assert committed, f"lease {cause['lease']} is said to have expired, but no revoke of it committed"
    assert any("'s lease " in s and " expired at " in s for s in x["sentences"][: x["chain_length"]])
assert 0 < x["chain_length"] <= len(x["sentences"])
PY
    fail "$algorithm: the explanation does not name its real cause (above)"
  checked=$((checked + 1))
done <<< "$expected"
[[ $checked -eq 15 ]] || fail "checked $checked algorithms, expected 15"
grep -qE '^  etcd-mutex-fenced +survived 200 seeds' "$work/demo.txt" || fail "etcd-mutex-fenced did not survive"
echo "demo_causes_test: ok ($checked failures explained by their causes)"
