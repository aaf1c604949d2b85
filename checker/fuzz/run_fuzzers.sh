#!/usr/bin/env bash
# run_fuzzers.sh SECONDS: builds every parser's libFuzzer target with clang (ASan + UBSan) and
# runs each for SECONDS. Fails (exit 1) on any crash, hang (a single input over 10 s), leak,
# out-of-memory or sanitizer report. The seed corpus in checker/fuzz/corpus/<target>/ is read,
# never written: new inputs go to the build directory.
#
# Environment: CXX (default clang++), BUILD_DIR (default build/fuzz under the repository),
# JOBS (parallel compiles, default 2).
#
# Adding a target (e.g. the scenario-file parser, once it exists): write
# <dir>/fuzz_<name>.cc with LLVMFuzzerTestOneInput, put seeds in checker/fuzz/corpus/<name>/,
# and add a line "<name> <path of fuzz_<name>.cc> <extra sources...>" to TARGETS below.
set -euo pipefail

SECONDS_EACH="${1:?usage: run_fuzzers.sh SECONDS}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CXX="${CXX:-clang++}"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/fuzz}"
JOBS="${JOBS:-2}"

# The code every parser target links: the history format, the importers, the adapters, the
# checker and the models.
COMMON_SOURCES=(
  kv/types.cc
  checker/history.cc
  checker/etcd_json.cc
  checker/history_ops.cc
  checker/porcupine_import.cc
  checker/check_command.cc
  checker/linearizability.cc
  model/mutex.cc model/register.cc model/kv_map.cc model/etcd_kv.cc
)

# name  target source  [extra sources...]
TARGETS=(
  "history_jsonl checker/fuzz/fuzz_history_jsonl.cc"
  "jepsen_etcd checker/fuzz/fuzz_jepsen_etcd.cc"
  "porcupine_kv checker/fuzz/fuzz_porcupine_kv.cc"
)

FLAGS=(-std=c++20 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=all -I"$ROOT")

mkdir -p "$BUILD_DIR/obj"
echo "building the fuzz targets in $BUILD_DIR with $CXX"
objects=()
pids=()
for src in "${COMMON_SOURCES[@]}"; do
  obj="$BUILD_DIR/obj/$(echo "$src" | tr '/' '_').o"
  objects+=("$obj")
  if [[ ! -f "$obj" || "$ROOT/$src" -nt "$obj" ]]; then
    "$CXX" "${FLAGS[@]}" -c "$ROOT/$src" -o "$obj" &
    pids+=($!)
    if (( ${#pids[@]} >= JOBS )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done

failed=()
for line in "${TARGETS[@]}"; do
  read -r name source extra <<<"$line"
  binary="$BUILD_DIR/fuzz_$name"
  extra_paths=()
  for e in $extra; do extra_paths+=("$ROOT/$e"); done
  "$CXX" "${FLAGS[@]}" -fsanitize=fuzzer "$ROOT/$source" "${extra_paths[@]}" "${objects[@]}" \
    -o "$binary"
  seeds="$ROOT/checker/fuzz/corpus/$name"
  work="$BUILD_DIR/corpus/$name"
  mkdir -p "$work" "$BUILD_DIR/artifacts/$name"
  echo "fuzzing $name for $SECONDS_EACH s"
  if ! "$binary" "$work" "$seeds" -max_total_time="$SECONDS_EACH" -timeout=10 \
      -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="$BUILD_DIR/artifacts/$name/" >"$BUILD_DIR/$name.log" 2>&1; then
    echo "FAILED: $name (see $BUILD_DIR/$name.log and $BUILD_DIR/artifacts/$name/)"
    tail -n 40 "$BUILD_DIR/$name.log"
    failed+=("$name")
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$BUILD_DIR/$name.log" | sed 's/^/  /'
  fi
done

if (( ${#failed[@]} > 0 )); then
  echo "fuzzing failed: ${failed[*]}"
  exit 1
fi
echo "fuzzing passed: no crash, hang or sanitizer report"
