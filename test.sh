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

staticcheck=$(command -v staticcheck || echo "$(go env GOPATH)/bin/staticcheck")
if [ -x "$staticcheck" ]; then
  "$staticcheck" ./...
else
  echo "staticcheck not installed: go install honnef.co/go/tools/cmd/staticcheck@v0.8.2" >&2
  exit 1
fi

# -count=1: never trust a cached result; -p 1: mount tests do not compete
# for the two cores and their timings stay readable.
go test -race -count=1 -p 1 -timeout 20m ./...
