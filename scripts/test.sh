#!/usr/bin/env bash
# Runs the whole test suite through ctest in every build directory that exists
# (scripts/setup.sh debug sanitize builds them). Exit status: non-zero if any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
ran=0
failed=()
for t in debug sanitize release; do
  [ -f "build/$t/CTestTestfile.cmake" ] || continue
  echo "== ctest: build/$t"
  # ASan's leak checker and stack-use-after-return checks, as in CI; see lsan.supp.
  ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 \
  LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp" \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "build/$t" --output-on-failure -j "$(nproc)" --timeout 600 ||
    failed+=("$t")  # the other build types still run: one report names every failure
  ran=1
done
if [ "$ran" -eq 0 ]; then
  echo "test: no build directory found; run scripts/setup.sh debug sanitize first" >&2
  exit 2
fi
if (( ${#failed[@]} > 0 )); then
  echo "test: failures in build/${failed[*]}" >&2
  exit 1
fi
