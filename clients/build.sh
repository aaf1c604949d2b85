#!/usr/bin/env bash
# Builds lockstep's external-client adapters (see clients/README.md).
#
#   clients/build.sh OUTDIR
#
#   OUTDIR/go-mutex, OUTDIR/go-rwmutex   the two Go adapters, built in GOPATH mode
#                                        (GO111MODULE=off) from go-mutex/ and go-rwmutex/ with
#                                        their shared package lockstep/adapter (clients/go, a
#                                        GOPATH of its own) against Debian's etcd 3.4.23 Go
#                                        sources (golang-etcd-server-dev, /usr/share/gocode)
#   clients/node-etcd3/node_modules      `npm ci --omit=dev` from the committed lock file, when
#                                        missing or older than package-lock.json
# etcdctl-lock/adapter.py needs no build (python3 and Debian's etcdctl at run time).
# Exits non-zero, saying what is missing, when a tool or the Go sources are not there.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
gocode=/usr/share/gocode

missing() {
  echo "clients/build.sh: $1" >&2
  exit 1
}
command -v go >/dev/null || missing "go not found (Debian: apt-get install golang-go)"
[[ -d "$gocode/src/go.etcd.io/etcd/clientv3/concurrency" && -d "$gocode/src/go.etcd.io/etcd/contrib/recipes" ]] ||
  missing "etcd's Go sources not found under $gocode/src/go.etcd.io/etcd (Debian: apt-get install golang-etcd-server-dev)"
command -v node >/dev/null || missing "node not found (Node.js 16 or later; etcd3 1.1.2 needs >= 16)"
command -v npm >/dev/null || missing "npm not found"
command -v etcdctl >/dev/null ||
  echo "clients/build.sh: warning: etcdctl not on PATH; etcdctl-lock/adapter.py needs it at run time (Debian: etcd-client)" >&2

# Go: GOPATH mode. The GOPATH is clients/go (the adapters' shared package, lockstep/adapter),
# then the Debian sources. The build cache is Go's default (or OUTDIR/.gocache where there is
# none, e.g. no HOME).
export GO111MODULE=off GOPATH="$here/go:$gocode" GOFLAGS=
if [[ -z "${GOCACHE:-}" ]]; then
  GOCACHE="$(go env GOCACHE 2>/dev/null || true)"
  [[ -n "$GOCACHE" && "$GOCACHE" != off ]] || GOCACHE="$out/.gocache"
  export GOCACHE
fi
for adapter in go-mutex go-rwmutex; do
  start=$SECONDS
  (cd "$here" && go build -o "$out/$adapter" "./$adapter")
  echo "built $out/$adapter ($((SECONDS - start)) s)"
done

# Node: install from the lock file when node_modules is missing or stale. No install scripts:
# the only one in the tree (protobufjs' postinstall) just prints version-scheme warnings.
nodedir="$here/node-etcd3"
stamp="$nodedir/node_modules/.package-lock.json" # npm's own record of what it installed
if [[ ! -f "$stamp" || "$nodedir/package-lock.json" -nt "$stamp" || "$nodedir/package.json" -nt "$stamp" ]]; then
  start=$SECONDS
  (cd "$nodedir" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline)
  echo "installed $nodedir/node_modules ($((SECONDS - start)) s)"
else
  echo "up to date: $nodedir/node_modules"
fi
