#!/usr/bin/env bash
# merge_test.sh LOCKSTEP: an exploration split into shards and merged gives what one run gives.
#   - 4 shards of 3 seeds (explore --shard I/4, and --shard auto/4 with JOB_COMPLETION_INDEX as
#     a Kubernetes Indexed Job sets it) merged: the same lowest failing seed as one run of 12
#     seeds, its failure.json copied, exit 1; with no failure, the seeds covered are those of one
#     run, exit 0.
#   - Refused with exit 2 and the reason: shards of different explorations, a shard given twice,
#     a directory that is not an explore result, an existing summary without --force,
#     auto/N without JOB_COMPLETION_INDEX.
set -euo pipefail
lockstep="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { set +e; "$@" > out.txt 2>&1; code=$?; set -e; }

# etcd-mutex-3.4's lowest failing seed under lease-drops, with 10 s of load, is 9: the third
# seed of shard 1, after seeds of every shard ran clean.
A=(--algorithm etcd-mutex-3.4 --faults lease-drop --clients 3 --duration 10 --no-shrink --jobs 1)
run "$lockstep" explore "${A[@]}" --seeds 12 --out single
[[ $code -eq 1 ]] || fail "the single run exited $code: $(cat out.txt)"
for i in 1 2; do
  run "$lockstep" explore "${A[@]}" --seeds 3 --shard "$i/4" --out "s$i"
done
for i in 3 4; do  # as pods of an Indexed Job: JOB_COMPLETION_INDEX counts from 0
  run env JOB_COMPLETION_INDEX=$((i - 1)) "$lockstep" explore "${A[@]}" --seeds 3 --shard auto/4 --out "s$i"
  grep -qF "shard $i/4" out.txt || fail "auto/4 with JOB_COMPLETION_INDEX=$((i - 1)) did not run shard $i/4: $(cat out.txt)"
done
run "$lockstep" merge s1 s2 s3 s4 --out merged
[[ $code -eq 1 ]] || fail "merge exited $code with a failure among the shards: $(cat out.txt)"
python3 - <<'PY' || fail "the merged result differs from the single run"
import json
single = json.load(open("single/summary.json"))
merged = json.load(open("merged/summary.json"))
assert merged["format"] == "lockstep-explore-merge", merged
assert merged["failing_seed"] == single["failing_seed"] == 9, (merged, single)
assert merged["missing_shards"] == [], merged
assert json.load(open("merged/failure.json"))["seed"] == 9
assert merged["seeds_covered"]["first"] == 1 and merged["seeds_covered"]["through"] >= 9, merged
PY

# No failure: every seed of the single run is covered by the shards.
B=(--algorithm etcd-mutex --faults none --clients 2 --duration 2 --jobs 1)
run "$lockstep" explore "${B[@]}" --seeds 12 --out whole
[[ $code -eq 0 ]] || fail "the single run exited $code: $(cat out.txt)"
for i in 1 2 3; do run "$lockstep" explore "${B[@]}" --seeds 4 --shard "$i/3" --out "n$i"; done
run "$lockstep" merge n1 n2 n3 --out nmerged
[[ $code -eq 0 ]] || fail "merge exited $code with no failure: $(cat out.txt)"
grep -qF "every seed from 1 to 12" out.txt || fail "the merge does not say it covered seeds 1 to 12: $(cat out.txt)"
python3 -c "
import json
m = json.load(open('nmerged/summary.json')); w = json.load(open('whole/summary.json'))
assert m['seeds_done'] == w['seeds_done'] == 12 and m['failing_seed'] is None, (m, w)
assert m['seeds_covered'] == {'first': 1, 'through': 12}, m
" || fail "the merged coverage differs from the single run"

# A missing shard is reported, and the coverage stops before its first seed.
run "$lockstep" merge n1 n3 --out partial
grep -qF "missing shards: 2" out.txt || fail "a missing shard is not reported: $(cat out.txt)"
python3 -c "
import json; m = json.load(open('partial/summary.json'))
assert m['missing_shards'] == [2] and m['seeds_covered']['through'] == 1, m
" || fail "the coverage with shard 2 missing is wrong"

# Refusals.
run "$lockstep" merge n1 s2 --out bad1
[[ $code -eq 2 ]] && grep -qF "not a shard of the same exploration" out.txt && grep -qF "algorithm" out.txt ||
  fail "shards of different explorations were not refused by name: $code $(cat out.txt)"
run "$lockstep" merge n1 n1 --out bad2
[[ $code -eq 2 ]] && grep -qF "are both shard 1" out.txt || fail "a shard given twice was not refused: $code $(cat out.txt)"
mkdir notashard
run "$lockstep" merge n1 notashard --out bad3
[[ $code -eq 2 ]] && grep -qF "notashard/summary.json" out.txt || fail "a directory with no summary was not refused: $code $(cat out.txt)"
run "$lockstep" merge n1 n2 n3 --out nmerged
[[ $code -eq 2 ]] && grep -qF -- "--force" out.txt || fail "an existing merged summary was overwritten: $code $(cat out.txt)"
run env -u JOB_COMPLETION_INDEX "$lockstep" explore "${B[@]}" --seeds 4 --shard auto/3 --out auto
[[ $code -eq 2 ]] && grep -qF "JOB_COMPLETION_INDEX" out.txt || fail "auto/N without JOB_COMPLETION_INDEX was not refused: $code $(cat out.txt)"
run env JOB_COMPLETION_INDEX=3 "$lockstep" explore "${B[@]}" --seeds 4 --shard auto/3 --out auto
[[ $code -eq 2 ]] || fail "JOB_COMPLETION_INDEX=3 with auto/3 was accepted: $(cat out.txt)"

# A summary.json with a field of the wrong type or range: refused naming the file and the field
# (these once aborted merge, ran it out of memory, or dropped a failure and exited 0).
mutated() {  # mutated NAME PYTHON-STATEMENT: a copy of n2 whose summary s was changed
  rm -rf "$1"; cp -r n2 "$1"
  python3 -c "
import json
s = json.load(open('$1/summary.json'))
$2
json.dump(s, open('$1/summary.json', 'w'))"
}
# A merge that ran away with memory (a huge shard count, before the cap) is stopped by a memory
# limit; AddressSanitizer reserves terabytes of shadow address space at start, so a sanitizer
# build runs without it (the timeout still bounds it).
memory_limit="ulimit -v 4000000"
# (ldd's whole output first: `grep -q` would stop reading early, and under pipefail the SIGPIPE
# that ldd then gets would make the test read as "no sanitizer".)
libraries=$(ldd "$lockstep" 2>/dev/null || true)
if [[ $libraries == *libasan* ]]; then memory_limit=":"; fi
refused_merge() {  # refused_merge EXPECTED DIR: merge n1 DIR n3 exits 2 within 20 s, saying EXPECTED
  set +e; ($memory_limit; timeout 20 "$lockstep" merge n1 "$2" n3 --out "merged-$2") > out.txt 2>&1; code=$?; set -e
  [[ $code -eq 2 ]] && grep -qF -- "$1" out.txt || fail "merge with $2 exited $code, expected 2 and '$1': $(cat out.txt)"
  [[ ! -e "merged-$2" ]] || fail "a refused merge wrote merged-$2"
}
mutated m_format 's["format"] = 5'
refused_merge "m_format/summary.json: not an explore summary" m_format
mutated m_version 's["version"] = 2'
refused_merge "m_version/summary.json: version: expected an integer <= 1" m_version
mutated m_unknown 's["unknown"] = "x"'
refused_merge "m_unknown/summary.json: unknown: expected an integer" m_unknown
mutated m_count_x 's["plan"]["shard_count"] = "x"'
refused_merge "m_count_x/summary.json: plan.shard_count: expected an integer" m_count_x
mutated m_count_huge 's["plan"]["shard_count"] = 2000000000'
refused_merge "m_count_huge/summary.json: plan.shard_count: expected an integer <= 100000" m_count_huge
mutated m_count_0 's["plan"]["shard_count"] = 0'
refused_merge "plan.shard_count: expected an integer >= 1" m_count_0
mutated m_first 's["plan"]["first_seed"] = "x"'
refused_merge "m_first/summary.json: plan.first_seed: expected an integer" m_first
mutated m_dropped 's["failures"] = 1; s["failing_seed"] = "x"'
refused_merge "m_dropped/summary.json: failing_seed: expected the lowest failing seed" m_dropped
mutated m_done 's["seeds_done"] = 1e30'
refused_merge "m_done/summary.json: seeds_done: expected an integer" m_done
for index in 0 -1 18446744073709551615 4; do
  mutated "m_index$index" "s['shard']['index'] = $index"
  refused_merge "m_index$index/summary.json: shard.index: expected an integer" "m_index$index"
done
run "$lockstep" explore "${B[@]}" --seeds 1 --shard 1/100001 --out toomany
[[ $code -eq 2 ]] && grep -qF "N <= 100000" out.txt || fail "--shard 1/100001 was accepted: $code $(cat out.txt)"
echo "merge_test: ok"
