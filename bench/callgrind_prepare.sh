# Sourced by bench's callgrind scripts (instructions.sh, cost_by_layer.sh):
#   callgrind_prepare SCRIPT_NAME BINARY
# exits 2 with a message naming the script when valgrind or the engine binary is missing, and
# sets `work` to a scratch directory removed when the script exits.
callgrind_prepare() {
  local script=$1 binary=$2
  command -v valgrind >/dev/null || { echo "$script: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
  [ -x "$binary" ] || { echo "$script: $binary is not an executable (build it first)" >&2; exit 2; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
