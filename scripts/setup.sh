#!/usr/bin/env bash
# Installs the Debian packages lockstep needs (when missing) and builds it.
#
#   scripts/setup.sh [release] [debug] [sanitize]    (default: release)
#
# Build directories: build/release, build/debug, build/sanitize. Needs root (or sudo) only
# when a package is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build clang libclang-rt-14-dev chromium
  catch2 librapidcheck-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  etcd-server etcd-client openssl libgoogle-perftools-dev ccache python3 python3-yaml
  # The external-client adapters (clients/): etcd's Go client 3.4.23 as Debian ships it, and
  # Node for the npm package etcd3 (npm comes with the machine's nodejs, or below).
  golang-go golang-etcd-server-dev nodejs
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! command -v npm >/dev/null; then  # Debian's nodejs comes without it
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm
fi

# ccache: CI runs on the machine the session used, and its cache stays warm between the two,
# so a clean clone recompiles only what changed. The cache is keyed on the preprocessed source,
# so the checkout's path does not matter (base_dir makes the paths inside it relative).
launcher=()
if command -v ccache >/dev/null; then
  ccache --max-size=8G >/dev/null
  launcher=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$PWD;CCACHE_NOHASHDIR=true;ccache")
fi

types=("$@")
((${#types[@]})) || types=(release)
jobs=$(nproc)
for t in "${types[@]}"; do
  case "$t" in
    release) cmake_type=Release ;;
    debug) cmake_type=Debug ;;
    sanitize) cmake_type=Sanitize ;;
    *) echo "setup: unknown build type '$t' (expected release, debug or sanitize)" >&2; exit 2 ;;
  esac
  cmake -S . -B "build/$t" -G Ninja -DCMAKE_BUILD_TYPE="$cmake_type" -DLOCKSTEP_WERROR=ON \
    "${launcher[@]}" >/dev/null
  cmake --build "build/$t" -j "$jobs"
done
# The external-client adapters (clients/README.md): Go binaries in build/clients, the Node
# adapter's npm packages (pinned by its package-lock.json) in clients/node-etcd3/node_modules.
bash clients/build.sh build/clients >/dev/null
