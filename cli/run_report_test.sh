#!/usr/bin/env bash
# run_report_test.sh LOCKSTEP SCENARIO: `run`, `replay` and `explore` leave a report.html that
# shows the violation next to the files of every run directory they write; `--fixed-length`
# reaches the scenarios `run` and `explore` write, and such a scenario replays as such.
set -euo pipefail
lockstep="$1"
scenario="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

has_report() {  # DIR
  [[ -s "$1/report.html" ]] || fail "no report.html in $1"
  grep -q "VIOLATED" "$1/report.html" || fail "$1/report.html does not show the violation"
}

set +e
"$lockstep" run --algorithm naive-get-put --seed 1 --clients 2 --duration 3 --out "$work/run" >/dev/null
[[ $? -eq 1 ]] || fail "run: expected exit 1 (violated)"
"$lockstep" replay "$scenario" --out "$work/replay" >/dev/null
[[ $? -eq 0 ]] || fail "replay: expected exit 0 (as expected)"
"$lockstep" explore --algorithm naive-get-put --seeds 4 --jobs 1 --out "$work/explore" >/dev/null
[[ $? -eq 1 ]] || fail "explore: expected exit 1 (a failure found)"
set -e
has_report "$work/run"
has_report "$work/replay"
has_report "$work/explore/failure"
[[ -s "$work/explore/failure.json" ]] || fail "explore wrote no failure.json"

# A fenced algorithm is judged, by default, on what it claims: its resource and liveness.
"$lockstep" explore --algorithm etcd-mutex-fenced --seeds 1 --duration 2 --jobs 1 \
  --out "$work/explore-fenced" >/dev/null || fail "explore etcd-mutex-fenced: expected exit 0"
tr -d ' \n' < "$work/explore-fenced/summary.json" | grep -qF '"checks":["resource","liveness"]' ||
  fail "explore etcd-mutex-fenced did not default to the resource and liveness checks"

# A second run into the same directory is refused and leaves the report as it was.
before="$(md5sum "$work/run/report.html")"
if "$lockstep" run --algorithm naive-get-put --seed 2 --out "$work/run" >/dev/null 2>&1; then
  fail "run into an existing directory was not refused"
fi
[[ "$(md5sum "$work/run/report.html")" == "$before" ]] || fail "the refused run changed report.html"
# A fixed-length run records it in its scenario and its replay command, and replays exactly.
"$lockstep" run --algorithm etcd-mutex --seed 3 --clients 3 --duration 5 --faults pause,partition \
  --fixed-length --out "$work/fixed" >"$work/fixed.out" || fail "run --fixed-length failed"
grep -q -- "--faults partition,pause --fixed-length" "$work/fixed.out" ||
  fail "run --fixed-length printed no replay command with --fixed-length"
tr -d ' \n' < "$work/fixed/scenario.json" | grep -qF '"extend_load_for_liveness":false' ||
  fail "run --fixed-length wrote a scenario that extends its load"
"$lockstep" replay --runs 2 "$work/fixed/scenario.json" >/dev/null ||
  fail "the fixed-length scenario did not replay as expected"
# explore --fixed-length writes failures that keep it.
set +e
"$lockstep" explore --algorithm naive-get-put --seeds 4 --jobs 1 --fixed-length \
  --out "$work/explore-fixed" >/dev/null
[[ $? -eq 1 ]] || fail "explore --fixed-length: expected exit 1 (a failure found)"
set -e
tr -d ' \n' < "$work/explore-fixed/failure.json" | grep -qF '"extend_load_for_liveness":false' ||
  fail "explore --fixed-length wrote a failure that extends its load"
echo "run_report_test: ok"
