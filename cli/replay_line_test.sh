#!/usr/bin/env bash
# replay_line_test.sh LOCKSTEP: the "replay:" line `lockstep run` prints reproduces the run:
# running it gives the same history hash. It once left out --option, so a run with a TTL of
# 7 s said VIOLATED and its printed command, run with the default TTL, said OK.
set -euo pipefail
lockstep="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# same_again ARGS...: `lockstep run ARGS` and the command it prints give the same hash.
same_again() {
  local code=0
  timeout 120 "$lockstep" run "$@" > first.txt || code=$?
  [ "$code" -le 1 ] || fail "lockstep run $* exited $code"
  local hash replay
  hash="$(sed -n 's/^  history hash //p' first.txt)"
  replay="$(sed -n 's/^  replay: lockstep //p' first.txt)"
  [ -n "$hash" ] && [ -n "$replay" ] || fail "lockstep run $* printed no hash or replay line"
  code=0
  # shellcheck disable=SC2086  # the printed line is words separated by spaces
  timeout 120 "$lockstep" $replay > second.txt || code=$?
  [ "$code" -le 1 ] || fail "the printed command 'lockstep $replay' exited $code"
  grep -qx "  history hash $hash" second.txt ||
    fail "'lockstep $replay' gave $(sed -n 's/^  history hash //p' second.txt), the run $* gave $hash"
  head -1 first.txt > verdict1.txt
  head -1 second.txt > verdict2.txt
  cmp -s verdict1.txt verdict2.txt || fail "'lockstep $replay': $(cat verdict2.txt), the run: $(cat verdict1.txt)"
}

same_again --algorithm txn-try-lock --option lease_ttl_seconds=7 --seed 3 --faults pause
grep -q -- "--option lease_ttl_seconds=7" first.txt || fail "the replay line lacks --option: $(cat first.txt)"
same_again --algorithm txn-retry-lock --option retry_interval_ms=250 --option lease_ttl_seconds=3 --seed 5 \
  --clients 4 --members 5 --duration 2.5 --faults pause,crash --fixed-length
same_again --algorithm redisson-reentrant --option watchdog=0 --seed 2 --duration 1.234
echo "replay line: every printed command gave the same history"
