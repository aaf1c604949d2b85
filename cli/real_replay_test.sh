#!/usr/bin/env bash
# real_replay_test.sh LOCKSTEP SCENARIO: `lockstep replay --backend etcd` runs a simulated
# failure (a holder paused past its TTL) on a local real etcd. Whether a real run reproduces it
# depends on real timing (the paused client must hold the lock at that moment), so the test
# holds the result to what the real run recorded: the confirmation, the printed summary, the
# exit code and the real run's own verdict.json agree. A fault the real backend lacks (a link
# reorder window, added here: TCP never reorders) is listed as skipped before the run and in the result; each real run
# keeps its files in DIR/real-K; the scenario's verdict.json and report carry the
# confirmation; a second replay into the directory is refused without changing anything.
# The scenario's pause names the client that first held the lock in the simulation; on the real
# cluster it hits whichever client first held it there (its role), and with --faults-by-name the
# client it names.
set -euo pipefail
lockstep="$1"
scenario="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The scenario with a reorder fault on a link: the real backend has none.
python3 - "$scenario" "$work/with-reorder.json" <<'PY' 2>/dev/null ||
import json, sys
s = json.load(open(sys.argv[1]))
s["faults"].append({"kind": "reorder", "start_ms": 100, "duration_ms": 200, "from": ["member-0"],
                    "to": ["member-1"], "symmetric": True, "amount_ms": 5})
json.dump(s, open(sys.argv[2], "w"), indent=2)
PY
  fail "could not write the scenario with a reorder fault"

set +e
"$lockstep" replay "$work/with-reorder.json" --backend etcd --runs 1 --out "$work/out" >"$work/out.txt" 2>&1
code=$?
set -e
[[ $code -eq 0 || $code -eq 1 ]] || fail "expected exit 0 or 1, got $code: $(cat "$work/out.txt")"
grep -qF "skipped on the real backend" "$work/out.txt" || fail "the skipped reorder was not listed: $(cat "$work/out.txt")"
grep -qE "^  reorder member-0 <-> member-1 at 0.100 s for 0.200 s" "$work/out.txt" ||
  fail "the skipped reorder is not described: $(cat "$work/out.txt")"
grep -qE "^  simulated: mutex violated" "$work/out.txt" || fail "the simulated verdict is not shown: $(cat "$work/out.txt")"
for f in history.jsonl verdict.json scenario.json report.html real-1/history.jsonl real-1/verdict.json real-1/report.html; do
  [[ -s "$work/out/$f" ]] || fail "missing $f"
done
python3 - "$work/out" "$code" "$work/out.txt" <<'PY' || fail "the confirmation disagrees with the real run: $(cat "$work/out.txt")"
import json, re, sys
out, code, printed = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
c = json.load(open(out + "/verdict.json"))["real_confirmation"]
real = json.load(open(out + "/real-1/verdict.json"))
violated = [x["name"] for x in real["checks"] if x["status"] == "violated"]
assert c["simulated_violations"] == ["mutex"], c
assert c["client_roles"][0] == "client-1", c
assert len(c["skipped_faults"]) == 1 and c["skipped_faults"][0].startswith("reorder"), c
run = c["runs"][0]
assert run["dir"] == "real-1" and run["violated"] == violated, (run, violated)
assert run["reproduced"] == ("mutex" in violated) and c["reproduced"] == int(run["reproduced"]), c
assert code == (1 if violated else 0), (code, violated)
word = "reproduced" if run["reproduced"] else "not reproduced"
assert re.search(r"  %s on etcd [0-9.]+ in %d of 1 run.*; 1 fault skipped" % (word, c["reproduced"]), printed), printed
assert ("real run 1: mutex violated (reproduced)" in printed) == run["reproduced"], printed
PY
grep -qF "faults on clients follow their roles in the simulated run: client-1 = the first to hold the lock" "$work/out.txt" ||
  fail "the roles are not shown: $(cat "$work/out.txt")"
# The pause hit the real first holder (it starts at 500 ms, long after the first acquire).
role_target() {
  python3 - "$1" <<'PY'
import json, sys
events = [json.loads(l) for l in open(sys.argv[1])][1:]
first = next(e["process"] for e in events if e["type"] == "ok" and e["op"] == "acquire")
pause = next(e for e in events if e["type"] == "fault" and e["op"] == "pause" and e["args"]["phase"] == "start")
print(first, pause["args"]["targets"][0], pause["args"].get("scenario_clients", {}).get("targets", ["client-1"])[0])
PY
}
read -r first target named <<<"$(role_target "$work/out/real-1/history.jsonl")"
[[ $target == "$first" && $named == client-1 ]] ||
  fail "the pause of client-1 (the simulated first holder) hit $target; the real first holder was $first"
"$lockstep" replay "$scenario" --backend etcd --runs 1 --faults-by-name --out "$work/by-name" >"$work/by-name.txt" 2>&1 || true
read -r first target named <<<"$(role_target "$work/by-name/real-1/history.jsonl")"
[[ $target == client-1 ]] || fail "with --faults-by-name the pause hit $target, not client-1"
grep -qF "follow their roles" "$work/by-name.txt" && fail "--faults-by-name still maps roles: $(cat "$work/by-name.txt")"
if "$lockstep" replay "$scenario" --faults-by-name >/dev/null 2>&1; then
  fail "--faults-by-name without --backend etcd was accepted"
fi
grep -qF 'id="real-confirmation"' "$work/out/report.html" || fail "the report does not show the confirmation"
grep -qF 'href="real-1/report.html"' "$work/out/report.html" || fail "the report does not link the real run"

before="$(md5sum "$work/out/verdict.json")"
if "$lockstep" replay "$work/with-reorder.json" --backend etcd --runs 1 --out "$work/out" >/dev/null 2>&1; then
  fail "a replay into an existing directory was not refused"
fi
[[ "$(md5sum "$work/out/verdict.json")" == "$before" ]] || fail "the refused replay changed verdict.json"
if "$lockstep" replay "$scenario" --endpoints 127.0.0.1:2379 >/dev/null 2>&1; then
  fail "--endpoints without --backend etcd was accepted"
fi
if "$lockstep" replay "$scenario" --members 1 >/dev/null 2>&1; then
  fail "--members without --backend etcd was accepted"
fi
if "$lockstep" replay "$scenario" --backend etcd --members 5 --out "$work/five" >/dev/null 2>&1; then
  fail "--members 5 was accepted (a local cluster has 1 or 3 members)"
fi
[[ ! -e "$work/five" ]] || fail "a refused replay wrote $work/five"
echo "real_replay_test: ok"
