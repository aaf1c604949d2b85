#!/usr/bin/env bash
# explore_confirm_real_test.sh LOCKSTEP: `explore --confirm-real 1` replays the shrunk failure
# on a local real etcd: summary.json, the failure's verdict.json and report carry the
# confirmation, the real run keeps its files in failure/real-1, and the printed line agrees
# with what that run recorded.
set -euo pipefail
lockstep="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

set +e
"$lockstep" explore --algorithm txn-try-lock --faults pause --clients 2 --members 1 --seeds 50 \
  --jobs 1 --shrink-budget 10 --out "$work/out" --confirm-real 1 >"$work/out.txt" 2>&1
code=$?
set -e
[[ $code -eq 1 ]] || fail "expected exit 1 (a seed failed), got $code: $(cat "$work/out.txt")"
grep -qE "^  real run 1: " "$work/out.txt" || fail "no real run was reported: $(cat "$work/out.txt")"
for f in summary.json failure.json failure/verdict.json failure/report.html failure/real-1/history.jsonl \
         failure/real-1/verdict.json failure/real-1/report.html; do
  [[ -s "$work/out/$f" ]] || fail "missing $f"
done
python3 - "$work/out" "$work/out.txt" <<'PY' || fail "the confirmation disagrees with the real run: $(cat "$work/out.txt")"
import json, sys
out, printed = sys.argv[1], open(sys.argv[2]).read()
summary = json.load(open(out + "/summary.json"))["real_confirmation"]
failure = json.load(open(out + "/failure/verdict.json"))["real_confirmation"]
assert summary == failure, (summary, failure)
real = json.load(open(out + "/failure/real-1/verdict.json"))
violated = [c["name"] for c in real["checks"] if c["status"] == "violated"]
run = summary["runs"][0]
assert run["violated"] == violated and run["dir"] == "real-1", (run, violated)
assert run["reproduced"] == any(v in summary["simulated_violations"] for v in violated), summary
assert summary["simulated_violations"], summary
assert "  on a real etcd: " + summary["summary"] + "\n" in printed, printed
PY
grep -qF 'id="real-confirmation"' "$work/out/failure/report.html" ||
  fail "the failure's report does not show the confirmation"
echo "explore_confirm_real_test: ok"
