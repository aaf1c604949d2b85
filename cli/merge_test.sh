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
echo "merge_test: ok"
