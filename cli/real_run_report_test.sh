#!/usr/bin/env bash
# real_run_report_test.sh LOCKSTEP: a run on a real etcd (a local cluster lockstep starts and
# stops) leaves a report.html beside its history and verdict, with its backend where a
# simulated run's scenario stands; `lockstep report` rewrites it from the directory; a second
# run into the directory is refused and changes nothing.
set -euo pipefail
lockstep="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$lockstep" run --algorithm etcd-mutex --backend etcd --seed 1 --clients 2 --duration 2 \
  --out "$work/real" >"$work/real.out" || fail "the real run failed: $(cat "$work/real.out")"
grep -qF "report.html" "$work/real.out" || fail "the real run did not say it wrote report.html"
# The clients' calls are recorded as in a simulated run, naming the member each went to.
history="$work/real/history.jsonl"
grep -qE '"op":"kv-send".*"member":"member-[0-2]"|"member":"member-[0-2]".*"op":"kv-send"' "$history" ||
  fail "the real run's history has no kv-send record naming a member"
grep -qE '"op":"kv-end"' "$history" || fail "the real run's history has no kv-end record"
[[ ! -e "$work/real/scenario.json" ]] || fail "a real run wrote a scenario.json (nothing replays it)"
report="$work/real/report.html"
[[ -s "$report" ]] || fail "no report.html in the real run's directory"
grep -qF 'data-verdict="ok"' "$report" || fail "the report does not show the run's verdict (ok)"
grep -qF 'id="real-run"' "$report" || fail "the report does not say it is of a real etcd run"
grep -qF 'lockstep-run/' "$report" || fail "the report does not show the run's key prefix"
grep -qF 'real_seconds <b>' "$report" || fail "the report does not show the real seconds the run took"
! grep -qF 'events_run <b>' "$report" || fail "the report shows simulator counts for a real run"

"$lockstep" report "$work/real" -o "$work/again.html" >/dev/null ||
  fail "lockstep report refused the real run's directory"
cmp -s "$report" "$work/again.html" || fail "lockstep report wrote another report than the run's"

before="$(md5sum "$report")"
if "$lockstep" run --algorithm etcd-mutex --backend etcd --duration 1 --out "$work/real" \
  >/dev/null 2>&1; then
  fail "a real run into an existing run directory was not refused"
fi
[[ "$(md5sum "$report")" == "$before" ]] || fail "the refused run changed report.html"
echo "real_run_report_test: ok"
