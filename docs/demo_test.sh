#!/usr/bin/env bash
# Runs `lockstep demo` on a small budget and checks what it promises: it exits 0, leaves an
# existing lockstep-demo/ alone and writes lockstep-demo-2/ instead, and its index.html is a
# self-contained page linking every algorithm of the catalogue (from `lockstep list`) to a
# report.html and verdict.json that exist, with a replay command that reproduces the row.
#
# usage: demo_test.sh LOCKSTEP_BINARY
set -euo pipefail

lockstep=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

algorithms=$("$lockstep" list | awk '/^Algorithms:/ { on = 1; next } /^$/ { on = 0 } on && /^  [a-z0-9]/ { print $1 }')
count=$(echo "$algorithms" | wc -w)
[[ $count -ge 12 ]] || fail "lockstep list shows only $count algorithms: $algorithms"

# A directory the user owns under the default name: the demo must not write into it.
mkdir lockstep-demo
echo "mine" > lockstep-demo/notes.txt

# One seed per algorithm, a short shrink: the suite runs this in Debug and under ASan too.
status=0
"$lockstep" demo --seeds 1 --shrink-runs 5 --jobs 2 > demo.txt 2>&1 || status=$?
[[ $status -eq 0 ]] || fail "lockstep demo exited $status: $(cat demo.txt)"
[[ $(ls lockstep-demo) == notes.txt && $(cat lockstep-demo/notes.txt) == mine ]] ||
  fail "lockstep demo wrote into the existing lockstep-demo/"
index=lockstep-demo-2/index.html
[[ -f $index ]] || fail "no $index: $(cat demo.txt)"
grep -qF "index: $index" demo.txt || fail "the demo does not print the index's path: $(cat demo.txt)"

for a in $algorithms; do
  for f in report.html verdict.json scenario.json history.jsonl; do
    [[ -s lockstep-demo-2/$a/$f ]] || fail "no lockstep-demo-2/$a/$f"
  done
  grep -qF "href=\"$a/report.html\"" "$index" || fail "$index does not link $a/report.html"
  grep -qF "href=\"$a/verdict.json\"" "$index" || fail "$index does not link $a/verdict.json"
  grep -qF "lockstep replay lockstep-demo-2/<wbr>$a/<wbr>scenario.json" "$index" ||
    fail "$index has no replay command for $a"
  grep -qE "^  $a +(violated|survived)" demo.txt || fail "no terminal line for $a: $(cat demo.txt)"
done
rows=$(grep -c '<tr id=' "$index")
[[ $rows -eq $count ]] || fail "$index has $rows rows for $count algorithms"
if grep -qiE 'https?://|<script|<link|<img' "$index"; then
  fail "$index is not self-contained: $(grep -oiE 'https?://[^"]*|<script|<link|<img' "$index" | head -3)"
fi
# naive-get-put breaks on any seed, with no fault: its row is a violation that replays.
grep -qE "^  naive-get-put +violated mutex" demo.txt || fail "naive-get-put was not caught: $(cat demo.txt)"
"$lockstep" replay lockstep-demo-2/naive-get-put/scenario.json > replay.txt 2>&1 ||
  fail "the demo's naive-get-put scenario does not replay as expected: $(cat replay.txt)"

# An existing, non-empty --out is refused (exit 2) with a message naming --force.
status=0
"$lockstep" demo --out lockstep-demo --seeds 1 > refuse.txt 2>&1 || status=$?
[[ $status -eq 2 ]] || fail "demo into a non-empty --out exited $status, expected 2"
grep -qF -- "--force" refuse.txt || fail "the refusal does not mention --force: $(cat refuse.txt)"
echo "demo_test: ok ($count algorithms)"
