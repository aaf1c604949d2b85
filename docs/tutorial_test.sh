#!/usr/bin/env bash
# Runs every command of docs/tutorial.md and checks its exit status and the output the tutorial
# shows, so that the tutorial cannot rot.
#
# usage: tutorial_test.sh LOCKSTEP_BINARY SOURCE_DIR [MARKDOWN_FILE]
#   MARKDOWN_FILE defaults to SOURCE_DIR/docs/tutorial.md.
#
# The rules the tutorial is written to (they are stated at its top too):
#   - Every line of a ```sh block is a command the test runs; blank lines and lines starting
#     with '#' are skipped. A command starts with `lockstep` or `./build/<type>/lockstep`, which
#     is replaced by LOCKSTEP_BINARY. Any other command fails the test, so that nothing in the
#     tutorial goes unrun. Arguments are split on blanks (no quoting, no shell syntax).
#   - A command must exit 0, unless its line ends with a comment `# exit N`.
#   - A ```text block right after a ```sh block shows output: each of its lines, trimmed, other
#     than blank lines and `...`, must occur in one line of what that block's commands printed
#     (stdout and stderr together). Inside a line, `...` stands for any text (for figures that
#     vary, such as timings): the parts around it must occur in that order in one output line.
#   - Commands run in order, in one fresh directory where `scenarios` and `docs` link to
#     SOURCE_DIR's, so later commands see the files earlier ones wrote under out/.
# When a change of the simulator or of the reports changes what a command prints, the failure
# shows what the block printed: check that the story still holds, then update the tutorial.
# Exit status: 0 when every command and output line is as the tutorial says, 1 otherwise, 2 for
# bad usage.
set -uo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 LOCKSTEP_BINARY SOURCE_DIR [MARKDOWN_FILE]" >&2
  exit 2
fi
lockstep=$1
source_dir=$2
markdown=${3:-$source_dir/docs/tutorial.md}
[[ -x $lockstep && -f $lockstep ]] || { echo "tutorial_test: $lockstep is not an executable" >&2; exit 2; }
lockstep=$(cd "$(dirname "$lockstep")" && pwd)/$(basename "$lockstep")
[[ -f $markdown ]] || { echo "tutorial_test: no file $markdown" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$(cd "$source_dir" && pwd)/scenarios" "$work/scenarios"
ln -s "$(cd "$source_dir" && pwd)/docs" "$work/docs"

# Parse: block_cmds[i] holds the commands of the i-th sh block (with their line numbers),
# block_expect[i] the lines of the text block that follows it.
declare -a block_cmds=() block_expect=()
state=outside  # outside, sh, text, other
last_sh=-1     # the sh block a text block may follow, or -1
line_no=0
while IFS= read -r line || [[ -n $line ]]; do
  line_no=$((line_no + 1))
  if [[ $line =~ ^\`\`\` ]]; then
    fence=${line#\`\`\`}
    fence=${fence//[[:space:]]/}
    if [[ $state != outside ]]; then
      [[ $state == sh ]] && last_sh=$((${#block_cmds[@]} - 1)) || last_sh=-1
      state=outside
    elif [[ $fence == sh ]]; then
      block_cmds+=("")
      block_expect+=("")
      state=sh
    elif [[ $fence == text && $last_sh -ge 0 ]]; then
      state=text
    else
      state=other
      last_sh=-1
    fi
    continue
  fi
  case $state in
    sh)
      trimmed=${line#"${line%%[![:space:]]*}"}
      [[ -z $trimmed || $trimmed == \#* ]] && continue
      i=$((${#block_cmds[@]} - 1))
      block_cmds[i]+="$line_no	$trimmed"$'\n'
      ;;
    text)
      block_expect[last_sh]+="$line"$'\n'
      ;;
    outside)
      [[ -n ${line//[[:space:]]/} ]] && last_sh=-1
      ;;
  esac
done < "$markdown"
if [[ $state != outside ]]; then
  echo "tutorial_test: $markdown: a code block is not closed" >&2
  exit 1
fi

failures=0
commands=0
checked_lines=0
fail() {
  echo "FAIL: $markdown:$*" >&2
  failures=$((failures + 1))
}

for i in "${!block_cmds[@]}"; do
  out="$work/.block-$i.out"
  : > "$out"
  while IFS=$'\t' read -r at command; do
    [[ -z $command ]] && continue
    want=0
    text=$command
    if [[ $command == *" #"* ]]; then  # a trailing comment
      comment=${command#* #}
      text=${command%% #*}
      if [[ $comment =~ (^|[[:space:]])exit[[:space:]]+([0-9]+)[[:space:]]*$ ]]; then
        want=${BASH_REMATCH[2]}
      fi
    fi
    read -ra words <<< "$text"
    if [[ ${#words[@]} -eq 0 ]] || ! [[ ${words[0]} == lockstep || ${words[0]} =~ ^\./build/[A-Za-z0-9_.-]+/lockstep$ ]]; then
      fail "$at: not a lockstep command, so the test cannot run it: $command"
      continue
    fi
    if [[ $text =~ [\;\&\|\<\>\`\$\(\)\"\'\\] ]]; then
      fail "$at: shell syntax is not supported in tutorial commands: $command"
      continue
    fi
    commands=$((commands + 1))
    echo "\$ $text" >> "$out"
    (cd "$work" && "$lockstep" "${words[@]:1}") < /dev/null >> "$out" 2>&1
    status=$?
    if [[ $status -ne $want ]]; then
      fail "$at: exit $status, the tutorial says $want: $command"
      echo "---- output of the block so far:" >&2
      cat "$out" >&2
      echo "----" >&2
    fi
  done <<< "${block_cmds[i]}"
  while IFS= read -r expected; do
    expected=${expected#"${expected%%[![:space:]]*}"}
    expected=${expected%"${expected##*[![:space:]]}"}
    [[ -z $expected || $expected == "..." ]] && continue
    checked_lines=$((checked_lines + 1))
    if ! EXPECTED=$expected awk '
          BEGIN { n = split(ENVIRON["EXPECTED"], parts, /[.][.][.]/) }
          {
            rest = $0
            for (k = 1; k <= n; ++k) {
              if (parts[k] == "") continue
              at = index(rest, parts[k])
              if (at == 0) next
              rest = substr(rest, at + length(parts[k]))
            }
            found = 1
            exit
          }
          END { exit found ? 0 : 1 }' "$out"; then
      fail " the output shown after block $((i + 1)) does not occur in what it printed: $expected"
      echo "---- what block $((i + 1)) printed:" >&2
      cat "$out" >&2
      echo "----" >&2
    fi
  done <<< "${block_expect[i]}"
done

if [[ $commands -eq 0 ]]; then
  echo "FAIL: $markdown: no command found in its sh blocks" >&2
  exit 1
fi
echo "tutorial_test: ran $commands commands from ${#block_cmds[@]} blocks, checked $checked_lines output lines, $failures failures"
[[ $failures -eq 0 ]]
