#!/usr/bin/env bash
# Renders the report of a failing simulated run in headless Chromium and checks that the page
# ran its script without errors and shows the violation. Screenshots are kept as artifacts.
#
# usage: chromium_report_test.sh LOCKSTEP_BINARY CHROMIUM_BINARY ARTIFACT_DIR
set -euo pipefail

lockstep=$1
chromium=$2
artifacts=$3
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# naive-get-put breaks with no fault at all, so the run fails whatever the fault schedule;
# --faults all puts fault bands on the page too.
set +e
"$lockstep" run --algorithm naive-get-put --seed 1 --clients 4 --duration 10 --faults all \
  --out "$work/run" --force > "$work/run.txt"
status=$?
set -e
[[ $status -eq 1 ]] || fail "lockstep run should report a violation (exit 1), got exit $status: $(cat "$work/run.txt")"

# --force: the artifact of the previous run of this test is replaced.
"$lockstep" report "$work/run" -o "$artifacts/report.html" --force > "$work/report.txt" ||
  fail "lockstep report failed: $(cat "$work/report.txt")"
grep -q "why (mutex):" "$work/report.txt" || fail "the terminal summary has no explanation: $(cat "$work/report.txt")"

# Every flag that could make Chromium reach the network is off, and no host resolves: the
# page must not need anything beyond the file.
browse() {
  local profile
  profile=$(mktemp -d -p "$work")
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$profile" "$@" 2> "$work/chromium.err"
}

check_page() {  # FILE: the page ran its script to the end, without errors, and drew the violation
  local dom=$work/dom.html
  browse --dump-dom "file://$1" > "$dom" || fail "chromium --dump-dom failed: $(tail -5 "$work/chromium.err")"
  grep -q 'data-ready="ok"' "$dom" ||
    fail "the page's script did not finish: $(grep -o '<div id="script-errors"[^<]*</div>' "$dom" || echo no ready marker)"
  grep -q '<div id="script-errors" class="errors"></div>' "$dom" ||
    fail "the page reported script errors: $(grep -o '<div id="script-errors"[^<]*</div>' "$dom")"
  grep -q '<g class="violation" data-check="mutex" id="violation">' "$dom" ||
    fail "the timeline has no highlighted violation"
  grep -q 'class="violation-band"' "$dom" || fail "the violation has no band in the timeline"
  grep -q 'id="violation-explanation"' "$dom" || fail "the page has no explanation"
  grep -q 'class="k-belief' "$dom" || fail "the timeline drew no holding"
}

check_page "$artifacts/report.html"

# The error capture itself works: a page whose script throws must be caught.
sed 's/JSON.parse(document/JSON.parseBroken(document/' "$artifacts/report.html" > "$work/broken.html"
browse --dump-dom "file://$work/broken.html" > "$work/broken-dom.html" || fail "chromium failed on the broken page"
grep -q 'data-ready="error"' "$work/broken-dom.html" || fail "a script error went unnoticed"
grep -q 'Script error: .*parseBroken' "$work/broken-dom.html" || fail "the script error was not written into the page"

browse --screenshot="$artifacts/report.png" --window-size=1400,1000 "file://$artifacts/report.html" > /dev/null ||
  fail "chromium --screenshot failed: $(tail -5 "$work/chromium.err")"
browse --screenshot="$artifacts/report-zoomed.png" --window-size=1400,1400 \
  "file://$artifacts/report.html#zoom=violation" > /dev/null || fail "chromium --screenshot (zoomed) failed"
for png in report.png report-zoomed.png; do
  size=$(stat -c %s "$artifacts/$png")
  [[ $size -gt 20000 ]] || fail "$png is suspiciously small ($size bytes)"
done
echo "ok: report, DOM checks and screenshots in $artifacts"
