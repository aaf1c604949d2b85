#!/usr/bin/env bash
# bench_test.sh LOCKSTEP: `lockstep bench` prints every simulator figure it documents, each a
# positive number with its unit, for a short run; --json prints the same figures; bad options
# exit 2 naming the option. (It checks that the figures exist and make sense, not how fast
# they are: speed is the benchmark's job, not a test's.)
set -euo pipefail
lockstep="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

short=(--no-checker --seeds 1 --kv-seconds 1 --kv-runs 3)
"$lockstep" bench "${short[@]}" --kv-clients 4 > "$work/bench4" || fail "bench exited $?"
# figure FILE NAME: prints the figure's value; exits non-zero when FILE has no such figure.
# Called as `v=$(figure ...) || fail ...`: a failure inside $(...) would only end the subshell.
figure() { awk -v n="$2" '$1 == n && NF == 3 {print $2; found = 1} END {exit !found}' "$1"; }
# Every figure bench/sim_bench.h documents.
for name in sim_kv_runs sim_kv_requests sim_kv_requests_per_cpu_second \
            sim_kv_requests_per_cpu_second_min sim_kv_requests_per_cpu_second_max \
            sim_kv_requests_per_cpu_second_recorded sim_kv_events_per_request \
            sim_kv_messages_per_request sim_events_per_cpu_second standard_seeds \
            standard_seeds_per_cpu_second standard_seed_simulated_seconds standard_seed_events \
            sim_to_wall_time_ratio liveness_seeds_per_cpu_second liveness_seed_simulated_seconds; do
  v=$(figure "$work/bench4" "$name") || fail "bench printed no figure $name"
  awk -v v="$v" 'BEGIN {exit !(v > 0)}' || fail "$name = '$v' is not positive"
done
! grep -q "^checker_" "$work/bench4" || fail "--no-checker ran the checker"
in_range() {  # NAME LOW HIGH: LOW <= figure < HIGH
  local v
  v=$(figure "$work/bench4" "$1") || fail "bench printed no figure $1"
  awk -v v="$v" -v lo="$2" -v hi="$3" 'BEGIN {exit !(v >= lo && v < hi)}' ||
    fail "$1 = $v, expected in [$2, $3)"
}
# One simulated second of 4 clients, each with one request of a few milliseconds in flight:
# hundreds of requests, each costing a few messages (client, raft, reply).
in_range sim_kv_requests 100 10000
in_range sim_kv_messages_per_request 2 20
in_range sim_kv_runs 3 4
# The median of three runs lies between the slowest and the fastest.
median=$(figure "$work/bench4" sim_kv_requests_per_cpu_second) || fail "no median"
slowest=$(figure "$work/bench4" sim_kv_requests_per_cpu_second_min) || fail "no _min"
fastest=$(figure "$work/bench4" sim_kv_requests_per_cpu_second_max) || fail "no _max"
awk -v m="$median" -v lo="$slowest" -v hi="$fastest" 'BEGIN {exit !(lo <= m && m <= hi)}' ||
  fail "the median $median is not between the slowest run's $slowest and the fastest's $fastest"
# A standard seed runs its 60 s of load, then the clients drain.
in_range standard_seed_simulated_seconds 60 120

# More clients, more requests in the same simulated second.
"$lockstep" bench "${short[@]}" --kv-clients 16 > "$work/bench16"
four=$(figure "$work/bench4" sim_kv_requests) || fail "bench printed no figure sim_kv_requests"
sixteen=$(figure "$work/bench16" sim_kv_requests) || fail "bench --kv-clients 16 printed no sim_kv_requests"
awk -v a="$four" -v b="$sixteen" 'BEGIN {exit !(b > 2 * a)}' ||
  fail "--kv-clients 16 simulated $sixteen requests, not more than twice the $four of 4 clients"

"$lockstep" bench "${short[@]}" --json > "$work/bench.json"
grep -q '"format": "lockstep-bench"' "$work/bench.json" || fail "--json: no format field"
grep -q '"sim_kv_requests_per_cpu_second": {' "$work/bench.json" || fail "--json: no KV figure"

for bad in "--kv-clients 0" "--seeds 0" "--kv-seconds 0.5" "--kv-runs 0"; do
  set +e
  # shellcheck disable=SC2086  # the option and its value are two words
  # A time limit: were the option accepted, the whole default benchmark would run.
  timeout 60 "$lockstep" bench --no-checker $bad > /dev/null 2> "$work/err"
  rc=$?
  set -e
  [[ $rc -eq 2 ]] || fail "bench $bad: expected exit 2, got $rc"
  grep -q -- "${bad%% *}" "$work/err" || fail "bench $bad: the error does not name the option"
done
echo "bench: ok"
