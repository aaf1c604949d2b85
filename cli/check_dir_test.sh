#!/usr/bin/env bash
# check_dir_test.sh LOCKSTEP PORCUPINE_DATA: the `lockstep` program as a user runs it.
# - `check DIR` and `check DIR --json` over a linearizable history, a violation, a malformed
#   history and a file that is no history: the lines, the summary, the JSON, the exit code;
# - `check FILE` alone prints the verdict with its figures, as it always did;
# - every other command runs in lockstep-engine (the front execs it): `list`, `--help`, and a
#   front without its engine beside it says so and exits 2;
# - the front that runs `check` loads neither gRPC nor tcmalloc (what made start-up 14 ms).
set -euo pipefail
lockstep="$1"
data="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir "$work/dir"
log() { printf 'INFO  jepsen.util - %s\n' "$@"; }
log $'0\t:invoke\t:write\t1' $'0\t:ok\t:write\t1' $'1\t:invoke\t:read\tnil' $'1\t:ok\t:read\t1' > "$work/dir/a-good.log"
log $'0\t:invoke\t:write\t1' $'0\t:ok\t:write\t1' $'1\t:invoke\t:read\tnil' $'1\t:ok\t:read\t2' > "$work/dir/b-bad.log"
log $'0\t:invoke\t:write\t1' $'0\t:ok\t:write\tx' > "$work/dir/c-malformed.log"
echo "# notes" > "$work/dir/README.md"

code=0
"$lockstep" check "$work/dir" --jobs 2 > "$work/out" 2> "$work/err" || code=$?
[ "$code" -eq 1 ] || fail "check DIR exited $code, expected 1 (a violation is the worst)"
[ "$(wc -l < "$work/out")" -eq 5 ] || fail "expected 4 file lines and a summary: $(cat "$work/out")"
grep -q "^linearizable .*a-good.log$" "$work/out" || fail "no linearizable line: $(cat "$work/out")"
grep -q "^not linearizable .*b-bad.log$" "$work/out" || fail "no violation line"
grep -q "^bad input .*c-malformed.log:2: " "$work/out" || fail "no bad input line naming line 2"
grep -q "^skipped .*README.md: not a history" "$work/out" || fail "README.md not skipped"
tail -1 "$work/out" | grep -q "^4 files: 1 linearizable, 1 not linearizable, 0 unknown, 1 bad input, 1 skipped; .* with 2 jobs$" ||
  fail "bad summary: $(tail -1 "$work/out")"
grep -q "^lockstep check: .*c-malformed.log:2: " "$work/err" || fail "the error is not on stderr: $(cat "$work/err")"

code=0
"$lockstep" check "$work/dir" --json > "$work/json" 2> /dev/null || code=$?
[ "$code" -eq 1 ] || fail "check DIR --json exited $code, expected 1"
python3 - "$work/json" <<'PY' || fail "bad JSON document: $(head -c 400 "$work/json")"
import json, sys
doc = json.load(open(sys.argv[1]))
verdicts = [f["verdict"] for f in doc["files"]]
# Path order: README.md sorts before the lower-case names.
assert verdicts == ["skipped", "linearizable", "not_linearizable", "bad_input"], verdicts
assert doc["files"][3]["error"]["line"] == 2, doc["files"][3]
s = doc["summary"]
assert (s["files"], s["linearizable"], s["not_linearizable"], s["bad_input"], s["skipped"],
        s["exit_code"]) == (4, 1, 1, 1, 1, 1), s
PY

# Exit codes of the worst file: 2 once the violation is gone, 0 with only good files.
rm "$work/dir/b-bad.log"
code=0; "$lockstep" check "$work/dir" > /dev/null 2>&1 || code=$?
[ "$code" -eq 2 ] || fail "a malformed file and a good one: exit $code, expected 2"
rm "$work/dir/c-malformed.log"
"$lockstep" check "$work/dir" > /dev/null || fail "only good files: exit $?, expected 0"

# One file alone: the full report, as before.
"$lockstep" check "$data/jepsen/etcd_002.log" > "$work/one" || fail "etcd_002: exit $?"
grep -q "^verdict: linearizable$" "$work/one" || fail "etcd_002: $(cat "$work/one")"
grep -q "^operations: 77 (19 indeterminate)" "$work/one" || fail "etcd_002 figures: $(cat "$work/one")"

# The rest through the engine.
"$lockstep" list > "$work/list" || fail "list exited $?"
grep -q "etcd-mutex" "$work/list" || fail "list printed no catalogue"
"$lockstep" --help > "$work/help" || fail "--help exited $?"
for c in run explore check bench; do grep -q "^  $c" "$work/help" || fail "--help lacks $c"; done
cp "$lockstep" "$work/alone"
code=0; "$work/alone" list > /dev/null 2> "$work/alone.err" || code=$?
[ "$code" -eq 2 ] || fail "a front without its engine exited $code, expected 2"
grep -q "cannot start .*lockstep-engine" "$work/alone.err" || fail "no message: $(cat "$work/alone.err")"
"$work/alone" check "$data/jepsen/etcd_000.log" > /dev/null && fail "etcd_000 is a violation"
[ $? -eq 1 ] || fail "the front alone checks files"

# What the check path loads.
if command -v ldd > /dev/null; then
  ! ldd "$lockstep" | grep -qE "grpc|protobuf|tcmalloc" || fail "the front links $(ldd "$lockstep" | grep -oE 'lib(grpc|protobuf|tcmalloc)[^ ]*' | head -3)"
fi
echo "check_dir_test: ok"
