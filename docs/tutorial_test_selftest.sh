#!/usr/bin/env bash
# Checks that docs/tutorial_test.sh notices a rotten tutorial: a wrong exit status, output that
# is no longer printed, a command it cannot run, and that it passes a sound one.
#
# usage: tutorial_test_selftest.sh LOCKSTEP_BINARY SOURCE_DIR
set -euo pipefail

lockstep=$1
source_dir=$2
checker=$(dirname "$0")/tutorial_test.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_result NAME STATUS MESSAGE: tutorial_test.sh on $work/NAME.md exits STATUS and, when
# MESSAGE is not empty, says MESSAGE.
expect_result() {
  local name=$1 want=$2 message=$3 status=0
  bash "$checker" "$lockstep" "$source_dir" "$work/$name.md" > "$work/$name.out" 2>&1 || status=$?
  [[ $status -eq $want ]] || fail "$name: tutorial_test.sh exited $status, expected $want: $(cat "$work/$name.out")"
  [[ -z $message ]] || grep -qF -- "$message" "$work/$name.out" ||
    fail "$name: tutorial_test.sh did not say \"$message\": $(cat "$work/$name.out")"
}

fence='```'
cat > "$work/sound.md" <<MD
Prose.

${fence}sh
# a comment line
./build/release/lockstep list   # the catalogue
lockstep run --algorithm naive-get-put --seed 1 --duration 2   # exit 1
${fence}

${fence}text
Algorithms:
...
naive-get-put seed 1: VIOLATED (...)
${fence}
MD
expect_result sound 0 "0 failures"

cat > "$work/wrong-exit.md" <<MD
${fence}sh
./build/release/lockstep list   # exit 1
${fence}
MD
expect_result wrong-exit 1 "exit 0, the tutorial says 1"

cat > "$work/stale-output.md" <<MD
${fence}sh
./build/release/lockstep list
${fence}

${fence}text
naive-get-put   an algorithm that no longer exists
${fence}
MD
expect_result stale-output 1 "does not occur in what it printed"

cat > "$work/foreign-command.md" <<MD
${fence}sh
rm -rf out
${fence}
MD
expect_result foreign-command 1 "not a lockstep command"

cat > "$work/shell-syntax.md" <<MD
${fence}sh
./build/release/lockstep list | head
${fence}
MD
expect_result shell-syntax 1 "shell syntax is not supported"

# Output shown after prose is not tied to the block before it, so it is not checked.
cat > "$work/unrelated-text.md" <<MD
${fence}sh
./build/release/lockstep list
${fence}

Some prose in between.

${fence}text
anything at all
${fence}
MD
expect_result unrelated-text 0 "checked 0 output lines"
echo "tutorial_test_selftest: ok"
