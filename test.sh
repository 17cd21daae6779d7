#!/usr/bin/env bash
# The project's test suite: formatting, vet, staticcheck, then every test
# with the race detector. CI runs exactly this (see .ci/run).
#
# FSMOUNT_REQUIRE_FUSE=1 turns a missing /dev/fuse from a skip into a
# failure; CI sets it.
set -euo pipefail
cd "$(dirname "$0")"

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi

go vet ./...

# staticcheck is a tool dependency in go.mod: nothing to install.
go tool staticcheck ./...

# go.mod and go.sum must be what go mod tidy makes them.
go mod tidy -diff

# -count=1: never trust a cached result; -p 1: mount tests do not compete
# for the two cores and their timings stay readable.
go test -race -count=1 -p 1 -timeout 20m ./...

# Without the race detector, remote chunk buffers live in huge-page
# slabs outside the Go heap (race builds keep them on the heap so the
# detector sees them): run the buffer-reuse tests on the slabs too.
go test -count=1 ./source/remote

# Some failures only show on one core.
GOMAXPROCS=1 go test -count=1 -p 1 -timeout 10m ./fusefs ./e2e

# The mount tests again in open mode, files/ by kernel passthrough where
# the kernel grants it (fsmount --passthrough).
FSMOUNT_TEST_PASSTHROUGH=1 go test -race -count=1 -timeout 10m ./fusefs

# The end-to-end suite again as an unprivileged user, so that mounting
# through fusermount3 (not mount(2) as root) is tested too. The binaries
# and the test binary are built here, and run from a copy of testdata/ that
# the user can read.
if [ "$(id -u)" = 0 ]; then
  why=""
  command -v setpriv >/dev/null || why="setpriv (util-linux) is missing"
  command -v fusermount3 >/dev/null || why="fusermount3 (Debian package fuse3) is missing"
  [ -r /dev/fuse ] && [ "$(stat -c %a /dev/fuse)" = 666 ] || why="/dev/fuse is not mode 0666, as fusermount3 needs"
  if [ -n "$why" ]; then
    if [ "${FSMOUNT_REQUIRE_FUSE:-}" = 1 ]; then
      echo "FAIL: cannot run the unprivileged suite: $why" >&2
      exit 1
    fi
    echo "SKIPPING the unprivileged end-to-end suite: $why" >&2
  else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    go build -o "$work/bin/" ./cmd/...
    go test -c -o "$work/bin/e2e.test" ./e2e
    cp -r testdata "$work/testdata"
    cp go.mod "$work/"                       # where the tests find the repository's root
    mkdir -p "$work/gguf" && cp -r gguf/testdata "$work/gguf/testdata"
    mkdir -p "$work/internal/quant" && cp -r internal/quant/testdata "$work/internal/quant/testdata"
    mkdir "$work/e2e"
    chmod -R a+rX "$work"
    echo "--- e2e as user nobody (fusermount3)"
    (cd "$work/e2e" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
      env HOME=/tmp FSMOUNT_BIN_DIR="$work/bin" FSMOUNT_REQUIRE_FUSE="${FSMOUNT_REQUIRE_FUSE:-}" \
      "$work/bin/e2e.test" -test.count=1 -test.timeout=10m)
  fi
fi
