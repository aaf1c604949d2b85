#!/usr/bin/env bash
# Where a simulated KV request's instructions go, by layer of the simulator.
#
#   bench/cost_by_layer.sh [LOCKSTEP_BINARY] [KV_SECONDS] [KV_CLIENTS]
#   (defaults: build/release/lockstep-engine, 5 simulated seconds, 16 clients)
#
# Runs bench's plain KV load under valgrind's callgrind (as bench/instructions.sh does) and
# sums each function's own instructions (not those of what it calls) into the layer its name
# belongs to: the event queue (sim::World), the network, the members (EtcdMember, EtcdCluster,
# the lock service), raft, the store, the client and its coroutines, allocation, strings and
# memory copies, and the containers, variants and closures in between. Printed per request,
# largest first. Why: the profile of a simulator tuned for a while is flat, and a speed-up of
# the whole needs to know which layer a request spends in, not which function. Needs valgrind
# and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build/release/lockstep-engine}
kv_seconds=${2:-5}
kv_clients=${3:-16}
source bench/callgrind_prepare.sh
callgrind_prepare cost_by_layer.sh "$binary"

valgrind --tool=callgrind --trace-children=yes --toggle-collect='*simulate_kv_load*' \
  --callgrind-out-file="$work/out" "$binary" bench --no-checker --kv-runs 1 --seeds 1 \
  --kv-seconds "$kv_seconds" --kv-clients "$kv_clients" >"$work/figures" 2>"$work/valgrind"
requests=$(awk '$1 == "sim_kv_requests" {print $2}' "$work/figures")
callgrind_annotate --threshold=100 "$work/out" >"$work/functions" 2>/dev/null
python3 - "$work/functions" "$requests" <<'EOF'
import collections, re, sys

# A function's layer: the first rule whose word its name contains (order matters: a
# World::schedule_at inside a Network lambda is the queue's).
RULES = [
    ("event queue (World)", ["World::"]),
    ("network", ["Network::", "schedule_delivery"]),
    ("allocation", ["operator new", "operator delete", "tcmalloc", "allocate_frame", "free_frame"]),
    ("store (EtcdStore)", ["EtcdStore"]),
    ("raft (RaftNode, RaftSafety)", ["RaftNode", "RaftSafety"]),
    ("members (EtcdMember, EtcdCluster)", ["EtcdMember", "EtcdCluster", "LockService"]),
    ("client (SimKvClient, coroutines)", ["SimKvClient", "kv_loop", "DeadlineTimer", "SimNode", "Task"]),
    ("strings, memcpy, memcmp", ["mem", "basic_string", "strlen"]),
    ("containers, variants, closures", ["variant", "EventFn", "Rb_tree", "vector", "deque", "Result", "function"]),
]
totals = collections.Counter()
program = 0
line = re.compile(r"^\s*([0-9,]+)\s+\(\s*[0-9.]+%\)\s+(.*)$")
for text in open(sys.argv[1]):
    m = line.match(text)
    if not m:
        continue
    count, name = int(m.group(1).replace(",", "")), m.group(2)
    if "PROGRAM TOTALS" in name:
        program = count
        continue
    layer = next((label for label, words in RULES if any(w in name for w in words)), "other")
    totals[layer] += count
requests = float(sys.argv[2])
print(f"{'layer':40s} {'instructions/request':>22s} {'share':>7s}")
for layer, count in totals.most_common():
    print(f"{layer:40s} {count / requests:22.0f} {100 * count / program:6.1f}%")
print(f"{'all':40s} {program / requests:22.0f}")
EOF
