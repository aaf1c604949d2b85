#!/usr/bin/env bash
# The layering of docs/architecture.md, checked against the code: every file in a folder
# includes headers only from its own folder and from the folders its line in the
# "What may depend on what" block reaches (directly or through the folders below). A folder
# with sources that the block does not name is an error too: a new folder is documented
# before it is used. A line "F/ tests -> ..." adds what F's tests (*_test.cc and their
# *_test_support.h) may use besides. Prints each offending include with its file and line; exit 1 if any.
set -euo pipefail
root=${1:-"$(cd "$(dirname "$0")/.." && pwd)"}
doc="$root/docs/architecture.md"

declare -A direct=()
in_block=0
while IFS= read -r line; do
  if [[ $line == '```text' ]]; then in_block=1; continue; fi
  (( in_block )) || continue
  [[ $line == '```' ]] && break
  folder=${line%%/*}
  [[ ${line%%->*} == *" tests "* ]] && folder="$folder tests"
  rhs=$(sed -e 's/^[^>]*->//' -e 's/([^)]*)//g' <<<"$line")  # remarks in parentheses are prose
  direct[$folder]=$(grep -oE '[a-z_]+/' <<<"$rhs" | tr -d / | tr '\n' ' ' || true)
done <"$doc"
if (( ${#direct[@]} == 0 )); then
  echo "check_layers: no dependency block (\`\`\`text ... \`\`\`) found in $doc" >&2
  exit 2
fi

reach() {  # every folder $1 may include from, itself first
  local -A seen=(["$1"]=1)
  local queue=("$1") f d
  while (( ${#queue[@]} )); do
    f=${queue[0]}
    queue=("${queue[@]:1}")
    for d in ${direct[$f]:-}; do
      [[ -n ${seen[$d]:-} ]] && continue
      seen[$d]=1
      queue+=("$d")
    done
  done
  echo "${!seen[@]}"
}

status=0
cd "$root"
for folder in $(git ls-files -- '*.cc' '*.h' | cut -d/ -f1 | sort -u); do
  [[ $folder == examples ]] && continue  # a separate project, built against the install
  [[ $folder == *.* ]] && continue       # a file at the top level
  if [[ -z ${direct[$folder]+set} ]]; then
    echo "check_layers: $folder/ has sources but no line in docs/architecture.md's dependency block"
    status=1
    continue
  fi
  allowed=" $(reach "$folder") "
  allowed_in_tests="$allowed"
  for d in ${direct["$folder tests"]:-}; do allowed_in_tests+=" $(reach "$d") "; done
  while IFS=: read -r file line include; do
    used=$(sed -E 's@.*"lockstep/([a-z_]+)/.*@\1@' <<<"$include")
    may=$allowed
    [[ $file == *_test.cc || $file == *_test_support.h ]] && may=$allowed_in_tests
    if [[ $may != *" $used "* ]]; then
      echo "check_layers: $file:$line includes $used/, which $folder/ may not reach:${include#*#}"
      status=1
    fi
  done < <(git ls-files -- "$folder/*.cc" "$folder/*.h" | xargs grep -nHE '^#include "lockstep/' || true)
done
exit $status
