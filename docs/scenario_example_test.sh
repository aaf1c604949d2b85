#!/usr/bin/env bash
# scenario_example_test.sh LOCKSTEP SOURCE_DIR: the example scenario in docs/scenario-format.md
# (its first ```json block) is a valid scenario that replays to the verdict it expects, so the
# story the doc tells about it stays true.
set -euo pipefail
lockstep="$1"
doc="$2/docs/scenario-format.md"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
awk '/^```json$/ && !done {inside = 1; next} /^```$/ && inside {inside = 0; done = 1} inside' \
  "$doc" > "$work/example.json"
[ -s "$work/example.json" ] || { echo "FAIL: no json block in $doc" >&2; exit 1; }
code=0
"$lockstep" replay "$work/example.json" --runs 2 > "$work/out" 2>&1 || code=$?
cat "$work/out"
[ "$code" -eq 0 ] || { echo "FAIL: replaying the example of $doc exited $code" >&2; exit 1; }
grep -q "as expected" "$work/out" || { echo "FAIL: the replay did not report 'as expected'" >&2; exit 1; }
