#!/usr/bin/env bash
# fuzz.sh SECONDS: builds every parser's libFuzzer target with clang (ASan + UBSan, through
# CMake with -DLOCKSTEP_FUZZ=ON) and runs each for SECONDS. Fails (exit 1) on any crash, hang
# (a single input over 10 s), leak, out-of-memory or sanitizer report. The seed corpora in the
# repository are read, never written: new inputs go to the build directory.
#
# Environment: CXX (default clang++), BUILD_DIR (default build/fuzz under the repository).
#
# Adding a target: lockstep_add_fuzzer(NAME SOURCE LIBS...) in the folder's CMakeLists.txt,
# seeds in <folder>/fuzz/corpus/NAME/, and a line "NAME seed-dir..." in TARGETS below.
set -euo pipefail

SECONDS_EACH="${1:?usage: fuzz.sh SECONDS}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/fuzz}"

# name  seed directories (relative to the repository)
TARGETS=(
  "history_jsonl checker/fuzz/corpus/history_jsonl"
  "jepsen_etcd checker/fuzz/corpus/jepsen_etcd"
  "porcupine_kv checker/fuzz/corpus/porcupine_kv"
  "scenario harness/fuzz/corpus/scenario"
)

names=()
for line in "${TARGETS[@]}"; do read -r name _ <<<"$line"; names+=("fuzz_$name"); done

# ccache when present, as scripts/setup.sh does.
launcher=()
command -v ccache >/dev/null &&
  launcher=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$ROOT;CCACHE_NOHASHDIR=true;ccache")
echo "building the fuzz targets in $BUILD_DIR with ${CXX:-clang++}"
CXX="${CXX:-clang++}" cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DLOCKSTEP_FUZZ=ON -DLOCKSTEP_BUILD_TESTS=OFF -DLOCKSTEP_BUILD_REAL_ETCD=OFF "${launcher[@]}" >/dev/null
cmake --build "$BUILD_DIR" --target "${names[@]}"

failed=()
for line in "${TARGETS[@]}"; do
  read -r name seed_dirs <<<"$line"
  seeds=()
  for d in $seed_dirs; do seeds+=("$ROOT/$d"); done
  work="$BUILD_DIR/corpus/$name"
  mkdir -p "$work" "$BUILD_DIR/artifacts/$name"
  echo "fuzzing $name for $SECONDS_EACH s"
  if ! "$BUILD_DIR/fuzz_$name" "$work" "${seeds[@]}" -max_total_time="$SECONDS_EACH" \
      -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
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
