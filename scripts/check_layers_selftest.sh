#!/usr/bin/env bash
# check_layers.sh notices an include that climbs a layer, a folder the block does not name,
# and passes a tree that keeps to the block.
set -euo pipefail
script="$(cd "$(dirname "$0")" && pwd)/check_layers.sh"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
cd "$tree"
git init -q .
mkdir -p docs low high
cat >docs/architecture.md <<'DOC'
```text
high/        -> low/
high/ tests -> other/
low/         -> nothing
other/       -> nothing
```
DOC
echo '#include "lockstep/low/a.h"' >high/b.cc
echo '#include <vector>' >low/a.h
git add -A
bash "$script" "$tree" >/dev/null || { echo "selftest: a tree that keeps to the block failed"; exit 1; }

echo '#include "lockstep/high/b.h"' >low/a.cc
git add -A
out=$(bash "$script" "$tree" || true)
[[ $out == *"low/a.cc:1 includes high/"* ]] || { echo "selftest: a climbing include passed: $out"; exit 1; }
git rm -q --cached low/a.cc && rm low/a.cc

mkdir -p other
echo '#include "lockstep/other/c.h"' >high/b_test.cc
echo '#include "lockstep/other/c.h"' >high/c.cc
git add -A
out=$(bash "$script" "$tree" || true)
[[ $out == *"high/c.cc:1 includes other/"* && $out != *"b_test.cc"* ]] ||
  { echo "selftest: test-only dependencies are not told apart: $out"; exit 1; }
git rm -q --cached high/c.cc && rm high/c.cc

mkdir -p stray
echo 'int x;' >stray/s.cc
git add -A
out=$(bash "$script" "$tree" || true)
[[ $out == *"stray/ has sources but no line"* ]] || { echo "selftest: an undocumented folder passed: $out"; exit 1; }
echo "check_layers selftest: ok"
