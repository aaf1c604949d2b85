#!/usr/bin/env bash
# Instructions per simulated KV request and per standard seed, counted by valgrind's callgrind.
#
#   bench/instructions.sh [LOCKSTEP_BINARY] [KV_SECONDS] [SEEDS]
#   (defaults: build/release/lockstep-engine, 5 simulated seconds of KV load, 3 standard seeds;
#   given the `lockstep` front instead, valgrind follows it into the engine it execs)
#
# Why: `lockstep bench` measures CPU time, which moves by +-20 % from one hour to the next on a
# shared virtual machine. A simulated run is deterministic, so its instruction count is the same
# on every run: comparing two builds by instructions shows a 2 % change that CPU time cannot.
# Instructions are not time (allocation and cache misses cost more per instruction), so a
# change is confirmed with `lockstep bench` run alternately on both builds.
#
# Counts cover only the simulation (callgrind's --toggle-collect): the KV load for the first
# figure, the same load with its KV calls recorded for the second, the standard seeds' run
# (checks included) for the third, and the same seeds with the load extended for liveness for
# the fourth (see bench/sim_bench.h). Needs valgrind (Debian: valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build/release/lockstep-engine}
kv_seconds=${2:-5}
seeds=${3:-3}
source bench/callgrind_prepare.sh
callgrind_prepare instructions.sh "$binary"

# count FUNCTION_GLOB ARGS...: instructions inside FUNCTION_GLOB while running the bench.
count() {
  local glob=$1
  shift
  valgrind --tool=callgrind --trace-children=yes --toggle-collect="$glob" --callgrind-out-file="$work/out" \
    "$binary" bench --no-checker --kv-runs 1 "$@" >"$work/figures" 2>"$work/valgrind"
  awk '/^totals:/ {print $2}' "$work/out"
}

kv_instructions=$(count '*simulate_kv_load*' --seeds 1 --kv-seconds "$kv_seconds")
requests=$(awk '$1 == "sim_kv_requests" {print $2}' "$work/figures")
recorded_kv_instructions=$(count '*simulate_recorded_kv_load*' --seeds 1 --kv-seconds "$kv_seconds")
seed_instructions=$(count '*run_standard_seed*' --seeds "$seeds" --kv-seconds 1)
liveness_instructions=$(count '*run_liveness_seed*' --seeds "$seeds" --kv-seconds 1)
awk -v i="$kv_instructions" -v ri="$recorded_kv_instructions" -v r="$requests" -v s="$seed_instructions" \
    -v l="$liveness_instructions" -v n="$seeds" 'BEGIN {
  printf "%-40s %12.0f instructions\n", "sim_kv_instructions_per_request", i / r
  printf "%-40s %12.0f instructions\n", "sim_kv_recorded_instructions_per_request", ri / r
  printf "%-40s %12.0f instructions\n", "standard_seed_instructions", s / n
  printf "%-40s %12.0f instructions\n", "liveness_seed_instructions", l / n
}'
