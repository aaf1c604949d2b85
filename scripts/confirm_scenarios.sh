#!/usr/bin/env bash
# confirm_scenarios.sh LOCKSTEP [RUNS] [OUT]: replays every scenario of scenarios/ that expects
# `violated` on a local real etcd RUNS times (default 5) with `lockstep replay --backend etcd`,
# keeping each in OUT/<scenario>/ (default: a temporary directory), and prints a Markdown table:
# scenario, simulated verdict, real runs that reproduced it, what the real runs violated.
# docs/real-etcd.md holds the table it printed last, with the reasons for each miss.
set -euo pipefail
lockstep="$1"
runs="${2:-5}"
out="${3:-$(mktemp -d)}"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
echo "| scenario | simulated | reproduced on etcd | real runs' violations |"
echo "|---|---|---|---|"
for scenario in "$root"/scenarios/*.json; do
  grep -q '"verdict": *"violated"' "$scenario" || continue
  name="$(basename "$scenario" .json)"
  set +e
  "$lockstep" replay "$scenario" --backend etcd --runs "$runs" --out "$out/$name" --force \
    >"$out/$name.txt" 2>&1
  set -e
  simulated="$(sed -n 's/^  simulated: //p' "$out/$name.txt")"
  summary="$(grep -E '^  (not )?reproduced on|^  the simulated replay' "$out/$name.txt" || true)"
  k="$(sed -nE 's/.* in ([0-9]+) of ([0-9]+) runs?.*/\1 of \2/p' <<<"$summary")"
  violations="$(sed -nE 's/.*\((.*violated in [^)]*)\).*/\1/p' <<<"$summary")"
  [[ -n "$k" ]] || k="error: $(tail -n 1 "$out/$name.txt")"
  echo "| $name | ${simulated:-?} | $k | ${violations:-none} |"
done
