#!/usr/bin/env bash
# bad_input_test.sh LOCKSTEP SCENARIO REAL_BACKEND: bad input on the command line gets one message naming
# what is wrong and exit 2, within seconds (no hang, no run that ignores the value), and
# nothing the user wrote is written over. Each case here once did otherwise: NaN budgets ran
# for ever, seeds wrapped, a device was read until memory ran out, `report -o` replaced any
# file, and a refused run left three of its four files behind.
set -euo pipefail
lockstep="$1"
scenario="$2"  # a scenario that replays quickly
real_backend="$3"  # ON when lockstep was built with the real etcd backend, else OFF
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# refused EXPECTED_TEXT ARGS...: lockstep ARGS exits 2 within 60 s, saying EXPECTED_TEXT.
refused() {
  local expected="$1" code=0
  shift
  timeout 60 "$lockstep" "$@" > out.txt 2> err.txt || code=$?
  [ "$code" -eq 2 ] || fail "lockstep $* exited $code, expected 2 (stderr: $(head -c 300 err.txt))"
  grep -qF -- "$expected" err.txt || fail "lockstep $*: stderr lacks '$expected': $(head -c 300 err.txt)"
}

# Numbers: NaN, infinities, out of range, wrapped or clamped.
refused "--time-budget: must be between 0.001 and 10000000, not nan" explore --algorithm etcd-mutex --time-budget nan --out x
refused "--time-budget: must be between 0.1 and 86400, not nan" demo --time-budget nan --out x
refused "--kv-seconds: must be between 1 and 86400, not nan" bench --kv-seconds nan
mkdir empty_data
refused "no checker data in empty_data" bench --seeds 1 --kv-seconds 1 --checker-data empty_data
# Checker data whose expected.tsv cannot be read as such: once a bench of 0 files, exit 0.
mkdir -p bad_data/jepsen
printf 'garbage\n' > bad_data/expected.tsv
refused "bad_data/expected.tsv:1: expected the header line" bench --seeds 1 --kv-seconds 1 --checker-data bad_data
printf 'file\texpected_linearizable\tops\tcrashed_info_ops\n' > bad_data/expected.tsv
refused "bad_data/expected.tsv: lists no history" bench --seeds 1 --kv-seconds 1 --checker-data bad_data
printf 'file\texpected_linearizable\tops\tcrashed_info_ops\njepsen/a.log\tmaybe\t1\t0\n' > bad_data/expected.tsv
refused "bad_data/expected.tsv:2: expected_linearizable: expected true, false or excluded(why), not \"maybe\"" bench --seeds 1 --kv-seconds 1 --checker-data bad_data
printf 'file\texpected_linearizable\tops\tcrashed_info_ops\njepsen/missing.log\ttrue\t1\t0\n' > bad_data/expected.tsv
refused "bad_data/expected.tsv:2: bad_data/jepsen/missing.log: no such file" bench --seeds 1 --kv-seconds 1 --checker-data bad_data
refused "--budget: must be between 0 and 10000000, not 1e10" shrink "$scenario" --out x.json --budget 1e10
refused "--budget: must be between 0 and 10000000, not -1" shrink "$scenario" --out x.json --budget -1
refused "--shrink-budget: must be between 0 and 10000000, not nan" explore --algorithm etcd-mutex --seeds 1 --shrink-budget nan --out x
refused "--time-budget: must be between 0 and 10000000, not nan" check "$scenario" --time-budget nan
refused "--memory-budget: must be between 0 and 1048576, not -1" check "$scenario" --memory-budget -1
refused "--liveness-bound: must be between 0.001 and 86400, not 0" explore --algorithm etcd-mutex --seeds 1 --liveness-bound 0 --out x
refused "--liveness-bound: must be between 0.001 and 86400, not 0.0001" explore --algorithm etcd-mutex --seeds 1 --liveness-bound 0.0001 --out x
refused "--duration: must be between 0.001 and 86400, not 0" run --algorithm etcd-mutex --duration 0
refused "--seed: expected an integer from 0 to 18446744073709551615, not \"-1\"" run --algorithm etcd-mutex --seed -1
refused "--seed: expected an integer from 0 to 18446744073709551615, not \"18446744073709551616\"" run --algorithm etcd-mutex --seed 18446744073709551616
refused "--first-seed: expected an integer" explore --algorithm etcd-mutex --seeds 1 --first-seed -1 --out x
# A seed range past 2^64-1 wrapped around to 0 and reported "lowest failing seed 11".
refused "--first-seed 18446744073709551614 with --seeds 14 runs past the last seed, 18446744073709551615 (2 seeds from there)" explore --algorithm txn-try-lock --seeds 14 --first-seed 18446744073709551614 --no-shrink --out x
refused "--first-seed 18446744073709551615 with --seeds 2 (shard 2/2) runs past the last seed" explore --algorithm txn-try-lock --seeds 2 --shard 2/2 --first-seed 18446744073709551615 --out x
refused "--seed 18446744073709551615 with --seeds 2 runs past the last seed" demo --seeds 2 --seed 18446744073709551615 --out x
refused "option lease_ttl_seconds of \"etcd-mutex\" must be between 1 and 600, not -5" explore --algorithm etcd-mutex --seeds 1 --option lease_ttl_seconds=-5 --out x
# A lease TTL of a day or a year stretched a run with faults into as long a simulation (the
# load goes on for TTL + 20 s after the last fault): gigabytes, never done. Refused at once.
refused "option lease_ttl_seconds of \"etcd-mutex\" must be between 1 and 600, not 31536000" run --algorithm etcd-mutex --option lease_ttl_seconds=31536000 --faults all
refused "option lease_ttl_seconds of \"etcd-mutex\" must be between 1 and 600, not 86400" explore --algorithm etcd-mutex --seeds 1 --option lease_ttl_seconds=86400 --out x
refused "option session_ttl_seconds of \"etcd-lock-rpc\" must be between 1 and 600, not 601" run --algorithm etcd-lock-rpc --option session_ttl_seconds=601
refused "option retry_interval_ms of \"txn-retry-lock\" must be between 10 and 86400000, not 1" run --algorithm txn-retry-lock --option retry_interval_ms=1
# run and replay accept the same runs: what a scenario cannot hold is refused before anything
# runs (run simulated --duration 0.0015 and then failed to save it; a fault drawn to end after
# a day was written into a scenario.json that replay refused).
refused "--duration: must be a whole number of milliseconds" run --algorithm etcd-mutex --duration 0.0015 --out short
refused "--duration: must be a whole number of milliseconds" explore --algorithm etcd-mutex --seeds 1 --duration 0.0015 --out x
refused "--liveness-bound: must be a whole number of milliseconds" explore --algorithm etcd-mutex --seeds 1 --liveness-bound 1.0001 --out x
refused "the run cannot be written as a scenario that replay reads back: faults[" run --algorithm etcd-mutex --duration 86400 --faults pause --out long
refused "cannot be written as a scenario that replay reads back: faults[" explore --algorithm etcd-mutex --duration 86400 --faults pause --seeds 1 --out x
[ ! -e short ] && [ ! -e long ] || fail "a refused run wrote its directory"
refused "--option lease_ttl_seconds is given twice" explore --algorithm etcd-mutex --seeds 1 --option lease_ttl_seconds=5 --option lease_ttl_seconds=7 --out x

# A seed with a leading zero is decimal (CLI11 alone would read 010 as octal 8).
timeout 60 "$lockstep" run --algorithm etcd-mutex --seed 010 --duration 1 > seed.txt ||
  fail "run --seed 010 failed"
grep -q "seed 10\b" seed.txt || fail "run --seed 010 did not run seed 10: $(head -c 200 seed.txt)"

# Empty or contradictory values.
refused "--out: must not be empty" run --algorithm etcd-mutex --out ""
refused "--out: must not be empty" replay "$scenario" --out ""
refused "--faults: must not be empty" run --algorithm etcd-mutex --faults ""
refused "\"all\" must stand alone" run --algorithm etcd-mutex --faults all,none
refused "an empty item" run --algorithm etcd-mutex --faults pause,,crash
refused "--check: must not be empty" explore --algorithm etcd-mutex --seeds 1 --check "" --out x
if [ "$real_backend" = ON ]; then
  refused "with --endpoints no cluster is started" run --algorithm etcd-mutex --backend etcd --endpoints 127.0.0.1:1 --etcd-bin /bin/true
  refused "etcd binary '/tmp' not found (not an executable file)" run --algorithm etcd-mutex --backend etcd --etcd-bin /tmp
  # replay exited 3 (runs that "could not run"); explore explored and shrunk first.
  refused "etcd binary '/nonexistent' not found" replay "$scenario" --backend etcd --etcd-bin /nonexistent
  refused "--confirm-real: etcd binary '/nonexistent' not found" explore --algorithm naive-get-put --seeds 1 --confirm-real 1 --etcd-bin /nonexistent --out x
  refused "--confirm-real: etcd binary '/nonexistent' not found" demo --seeds 1 --confirm-real 1 --etcd-bin /nonexistent --out x
  # An external client's acquire answer with a key that is not UTF-8 aborted the run (an
  # uncaught exception writing verdict.json), leaving the run directory half written.
  if command -v etcd > /dev/null; then
    client="read l; echo '{\"id\":1,\"type\":\"ok\",\"protocol\":1}'; read l; printf '{\"id\":2,\"type\":\"ok\",\"key\":\"k\\377\"}\\n'; sleep 30"
    refused "client-0: \"key\": not valid UTF-8 (byte 0xff at byte 29 of the line" run --backend etcd --members 1 --clients 1 --duration 2 --algorithm etcd-mutex --client-cmd "$client" --out nonutf8
    grep -qF 'line 2 of its output, {"id":2,"type":"ok","key":"k\xff"}' err.txt || fail "the bad line is not quoted: $(cat err.txt)"
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' nonutf8/verdict.json || fail "nonutf8/verdict.json is not valid JSON"
    [ -f nonutf8/report.html ] && [ -f nonutf8/client-0.stderr ] || fail "the bad client's run directory is incomplete: $(ls nonutf8)"
    # A client that breaks the protocol before its hello answer: the stderr file by its name.
    refused "client-0: not a JSON object" run --backend etcd --members 1 --clients 1 --duration 2 --algorithm etcd-mutex --client-cmd "echo garbage >&2; echo hello-there; sleep 30" --out garbage
    grep -qF "the clients' stderr: garbage/client-0.stderr" err.txt || fail "the stderr file is not named: $(cat err.txt)"
  fi
else
  # A lockstep built without the backend says so, whatever the other options.
  refused "built without the real etcd backend" run --algorithm etcd-mutex --backend etcd --etcd-bin /tmp
fi

# Options that would do nothing are refused, as run refuses --etcd-bin without --backend etcd
# (each was accepted silently).
refused "--etcd-bin names the etcd of --confirm-real's runs; without --confirm-real N it would be ignored" explore --algorithm etcd-mutex --seeds 1 --etcd-bin /nonexistent --out x
refused "--etcd-bin names the etcd of --confirm-real's runs" demo --seeds 1 --etcd-bin /nonexistent --out x
refused "--seconds needs --backend etcd" bench --seconds 1
refused "--go-client, --etcd-bin need --backend etcd" bench --go-client /nonexistent --etcd-bin /nonexistent
refused "--seeds, --no-checker time the simulator and the checker, not --backend etcd" bench --backend etcd --seeds 1 --no-checker
refused "--checker-data excludes --no-checker" bench --no-checker --checker-data empty_data
refused "--no-shrink excludes --shrink-runs" explore --algorithm etcd-mutex --seeds 1 --no-shrink --shrink-runs 5 --out x
refused "--no-shrink excludes --shrink-budget" explore --algorithm etcd-mutex --seeds 1 --no-shrink --shrink-budget 5 --out x
refused "--check mutex is given twice" explore --algorithm etcd-mutex --seeds 1 --check mutex,mutex --out x
refused "--check liveness is given twice" explore --algorithm etcd-mutex --seeds 1 --check liveness --check mutex,liveness --out x

refused "unknown command \"bogus\"" bogus

# Input files that are not files.
refused "/dev/zero: not a regular file" check /dev/zero
refused "/dev/zero: not a regular file" replay /dev/zero
refused "/dev/zero: not a regular file" shrink /dev/zero --out x.json
mkdir adir
refused "adir: is a directory" replay adir
refused "adir: is a directory" check adir
[ ! -e x ] && [ ! -e x.json ] || fail "a refused command wrote its output"

# Nothing the user wrote is written over.
timeout 120 "$lockstep" replay "$scenario" --out run > /dev/null || fail "replay --out run failed"
cp run/history.jsonl history.before
echo "mine" > mine.html
refused "mine.html already exists" report run -o mine.html
[ "$(cat mine.html)" = mine ] || fail "report -o replaced an existing file"
refused "is the run's own history.jsonl" report run -o run/history.jsonl
refused "is the run's own history.jsonl" report run -o run/history.jsonl --force
cmp -s run/history.jsonl history.before || fail "report -o wrote over the run's history"
timeout 60 "$lockstep" report run -o mine.html --force > /dev/null || fail "report -o --force failed"
grep -q "<html" mine.html || fail "report -o --force wrote no report"
timeout 60 "$lockstep" report run > /dev/null || fail "report DIR could not rewrite its own report.html"
timeout 60 "$lockstep" report run -o ./run/../run/report.html > /dev/null ||
  fail "report DIR -o DIR/report.html is DIR's own report and needs no --force"
echo "mine" > notes.tmp
timeout 60 "$lockstep" report run -o notes > /dev/null || fail "report -o notes failed"
[ "$(cat notes.tmp)" = mine ] || fail "report -o notes replaced the user's notes.tmp"
[ -z "$(ls notes.* | grep -v '^notes.tmp$')" ] || fail "report -o left a temporary file: $(ls notes.*)"

# A run directory's files with a wrong value: one message naming the file and the line or
# field, exit 2. A scenario.json replay refuses was once reported on; a wrongly typed field
# the report reads aborted it; a line nested 150,000 deep overflowed its stack.
cp -r run badscn
echo '{"format":"x"}' > badscn/scenario.json
refused "badscn/scenario.json: format: expected \"lockstep-scenario\"" report badscn -o badscn.html
refused "badscn/scenario.json: format: expected \"lockstep-scenario\"" report badscn --explanation-json
cp -r run badtype
python3 - badtype <<'PY'
import json, sys
path = sys.argv[1] + "/history.jsonl"
lines = open(path).read().splitlines()
for i, line in enumerate(lines[1:], start=1):
    e = json.loads(line)
    if e["type"] == "invoke" and e["op"] == "acquire":
        e["args"]["mode"] = 5
        lines[i] = json.dumps(e)
        print(i + 1, file=open(sys.argv[1] + "/line.txt", "w"))
        break
open(path, "w").write("\n".join(lines) + "\n")
v = json.load(open(sys.argv[1] + "/verdict.json"))
v.pop("history_hash", None)
json.dump(v, open(sys.argv[1] + "/verdict.json", "w"))
PY
refused "badtype/history.jsonl:$(cat badtype/line.txt): args.mode: expected a string (invoke acquire)" report badtype -o badtype.html
cp -r run badverdict
python3 -c "
import json, sys
v = json.load(open('badverdict/verdict.json'))
v['algorithm'] = 5
json.dump(v, open('badverdict/verdict.json', 'w'))"
refused "badverdict/verdict.json: algorithm: expected a string" report badverdict -o badverdict.html
cp -r run deep
python3 -c "
import json
lines = open('deep/history.jsonl').read().splitlines()
e = json.loads(lines[1])
lines[1] = json.dumps(e)[:-1] + ', \"deep\": ' + '[' * 150000 + ']' * 150000 + '}'
open('deep/history.jsonl', 'w').write('\n'.join(lines) + '\n')"
refused "deep/history.jsonl:2: expected a value nested less deeply" report deep -o deep.html
refused "deep/history.jsonl:2: expected a value nested less deeply" check deep/history.jsonl
[ ! -e badscn.html ] && [ ! -e badtype.html ] && [ ! -e badverdict.html ] && [ ! -e deep.html ] ||
  fail "a refused report wrote its output"

# A run refused for one taken file writes none of the others.
mkdir taken
echo "mine" > taken/report.html
refused "taken/report.html already exists" run --algorithm etcd-mutex --duration 1 --out taken
refused "taken/report.html already exists" replay "$scenario" --out taken
[ "$(ls taken)" = report.html ] || fail "a refused run wrote into taken/: $(ls taken)"
mkdir -p explored/failure
echo "mine" > explored/failure/history.jsonl
refused "explored/failure/history.jsonl already exists" explore --algorithm naive-get-put --seeds 1 --jobs 1 --out explored
[ "$(ls explored)" = failure ] || fail "a refused explore wrote into explored/: $(ls explored)"
# A user's file named like a writer's temporary (OUT.tmp) is neither written nor removed: every
# writer once wrote OUT.tmp and renamed it over OUT, so run, shrink, explore and demo --force
# clobbered and deleted the user's file of that name. None leaves a temporary of its own.
mkdir tmps
for f in history.jsonl verdict.json scenario.json report.html; do echo mine > "tmps/$f.tmp"; done
timeout 60 "$lockstep" run --algorithm etcd-mutex --duration 1 --out tmps > /dev/null || fail "run --out tmps failed"
for f in history.jsonl verdict.json scenario.json report.html; do
  [ "$(cat "tmps/$f.tmp")" = mine ] || fail "run --out replaced the user's tmps/$f.tmp"
done
[ "$(ls tmps | wc -l)" -eq 8 ] || fail "run --out left other files: $(ls tmps)"
echo mine > shrunk.json.tmp
timeout 120 "$lockstep" shrink "$scenario" --out shrunk.json --jobs 1 --max-runs 5 > /dev/null || fail "shrink --out shrunk.json failed"
[ "$(cat shrunk.json.tmp)" = mine ] || fail "shrink --out replaced the user's shrunk.json.tmp"
[ "$(ls shrunk.json* | wc -l)" -eq 2 ] || fail "shrink left a temporary file: $(ls shrunk.json*)"
mkdir exo
for f in summary.json failure.json failure-unshrunk.json; do echo mine > "exo/$f.tmp"; done
code=0
timeout 120 "$lockstep" explore --algorithm naive-get-put --seeds 1 --jobs 1 --shrink-runs 5 --out exo > /dev/null || code=$?
[ "$code" -eq 1 ] || fail "explore naive-get-put --out exo exited $code, expected 1"
for f in summary.json failure.json failure-unshrunk.json; do
  [ "$(cat "exo/$f.tmp")" = mine ] || fail "explore --out replaced the user's exo/$f.tmp"
done
mkdir dmf
echo mine > dmf/index.html.tmp
timeout 300 "$lockstep" demo --seeds 1 --jobs 2 --shrink-runs 1 --out dmf --force > /dev/null || fail "demo --force failed"
[ "$(cat dmf/index.html.tmp)" = mine ] || fail "demo --force replaced the user's dmf/index.html.tmp"
[ -z "$(ls dmf | grep '^index.html.')" ] || [ "$(ls dmf | grep '^index.html.')" = index.html.tmp ] ||
  fail "demo left a temporary file: $(ls dmf | grep '^index.html')"
# A dangling link is a file there too: not replaced without --force.
mkdir linked
ln -s /nonexistent/target linked/history.jsonl
refused "linked/history.jsonl already exists" run --algorithm etcd-mutex --duration 1 --out linked
[ -L linked/history.jsonl ] || fail "run --out replaced a dangling link"
ln -s /nonexistent/target linked.json
refused "linked.json already exists" shrink "$scenario" --out linked.json --max-runs 5
# --out problems are found before the work, not after it (run simulated the whole run,
# printed its verdict, then said "Not a directory").
echo "mine" > afile
refused "--out afile: not a directory (a file is there)" run --algorithm etcd-mutex --out afile
[ ! -s out.txt ] || fail "run --out afile ran before refusing: $(head -c 200 out.txt)"
refused "--out afile/sub: cannot be created: afile is not a directory" run --algorithm etcd-mutex --out afile/sub
refused "--out afile: not a directory (a file is there)" replay "$scenario" --out afile --force
refused "--out afile: not a directory (a file is there)" explore --algorithm etcd-mutex --seeds 1 --out afile
refused "--out adir: is a directory (give a file name)" shrink "$scenario" --out adir --force
[ -z "$(ls -d adir.* 2> /dev/null)" ] || fail "shrink --out adir left a temporary: $(ls -d adir.*)"
[ "$(cat afile)" = mine ] || fail "a refused --out changed afile"
echo "bad input: every case refused with its message"
