#!/usr/bin/env bash
# The project's test suite. CI runs exactly this (see .ci/run).
#
#   ./test.sh           everything, as CI does
#   ./test.sh --quick   the edit-test loop: checks and unit tests, no mounts
#
# What each run covers, and why it exists:
#
# | run                              | covers                                   | why                                                    |
# |----------------------------------|------------------------------------------|--------------------------------------------------------|
# | gofmt, go vet, staticcheck       | every package                            | house style; staticcheck is a tool in go.mod           |
# | go mod tidy -diff                | go.mod, go.sum                           | they are what tidy makes them                          |
# | go test -race (all but e2e)      | every package's tests, real mounts too   | the race detector on every concurrent path in-process  |
# | heavy tests without -race        | the few slow tests of pure computation   | 20-45x slower under -race; other tests race their paths|
# | go test ./source/remote          | chunk buffers in huge-page slabs         | race builds keep buffers on the Go heap, so the slab   |
# |                                  |                                          | path (the production one) runs only without -race      |
# | FSMOUNT_TEST_PASSTHROUGH=1 fusefs| the mount in open mode (--passthrough)   | open mode answers OPEN; the default never sees one     |
# | GOMAXPROCS=1 ./fusefs            | the mount on one core                    | some orderings only show on one core                   |
# | e2e as root (background)         | the built commands, as a user runs them  | e2e runs binaries, which -race would not instrument    |
# | e2e as nobody, one core (bg)     | mounting through fusermount3, and the    | root mounts with mount(2); users go through            |
# |                                  | commands on one core (GOMAXPROCS=1)      | fusermount3; some orderings only show on one core      |
# | leftover-mount check             | no FUSE mount left under the tests' TMPDIR| a test that leaks a mount is a failing test           |
#
# --quick runs the first two rows and the unit tests with -short and no
# mounts (FSMOUNT_NO_MOUNT=1 makes every mount test skip), without e2e;
# it uses the test cache, so an unchanged package costs nothing. What
# --quick leaves out, all of which the full run covers: the mounts, e2e
# and -race; the comparisons with torch (testmodel.Torch skips under
# -short: importing torch costs seconds of CPU a test); spec's mutants
# of all but one fuzz or reference layout in eight (every layout still
# checks clean); the other tests that skip under -short (grep
# testing.Short). Its budget (CONTRIBUTING.md): two minutes with the
# build cache warm and the test cache cold, at load 2 and at load 8
# (bench/load.sh).
#
# Environment: FSMOUNT_REQUIRE_FUSE=1 turns a missing /dev/fuse from a skip
# into a failure (CI sets it, and FSMOUNT_REQUIRE_{NGINX,NUMPY,PIL,CHROMIUM}
# for the tests against those programs). FSMOUNT_TEST_PASSTHROUGH,
# FSMOUNT_BIN_DIR and FSMOUNT_NO_MOUNT are set here, for one run each.
set -euo pipefail
cd "$(dirname "$0")"

quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: ./test.sh [--quick]" >&2; exit 64 ;;
esac

# One run at a time on a machine: two runs would share the e2e ports and
# mount points' parents, race for fusectl and the CPU, and fail each
# other's timing-sensitive tests. The script runs again under flock(1) on
# a file in /tmp (not TMPDIR, which differs between users' shells), as
# gocryptfs' test.bash does; flock holds the lock and, with -o, keeps its
# descriptor from the script, so that no daemon a test leaves behind
# holds the lock after the run.
lock=${FSMOUNT_TEST_LOCK:-/tmp/fsmount-test.lock}
if [ -z "${FSMOUNT_TEST_LOCKED:-}" ]; then
  if ! flock -n "$lock" true; then
    echo "test.sh: another ./test.sh is running on this machine (it holds $lock): waiting for it to end…" >&2
  fi
  exec env FSMOUNT_TEST_LOCKED=1 flock -o "$lock" "$BASH" "$PWD/$(basename "$0")" "$@"
fi

# step names each run as it starts, with the minutes and seconds so far:
# where the time goes, in CI's log.
step() { printf -- '--- %s (%d:%02d)\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }

step "gofmt, go vet, staticcheck, go mod tidy"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi

go vet ./...

# Every assembly file is left out by -tags purego (CONTRIBUTING.md).
untagged=$(for f in $(git ls-files '*.s' 2>/dev/null || find . -name '*.s'); do
  head -1 "$f" | grep -q '^//go:build.*!purego' || echo "$f"
done)
if [ -n "$untagged" ]; then
  echo "assembly without //go:build !purego: $untagged" >&2
  exit 1
fi

# staticcheck is a tool dependency in go.mod: nothing to install.
go tool staticcheck ./...

# go.mod and go.sum must be what go mod tidy makes them.
go mod tidy -diff

if [ "$quick" = 1 ]; then
  # spec first: its tests run longest (80 s of a 192 s run, at load 8),
  # and go test starts packages in the order given; last, it ran alone.
  pkgs=$(go list ./... | grep -v -e '/e2e$' -e '/bench$')
  FSMOUNT_NO_MOUNT=1 go test -short $(grep '/spec$' <<<"$pkgs") $(grep -v '/spec$' <<<"$pkgs")
  exit 0
fi

# Every temporary directory of the tests lives under one TMPDIR, so that a
# FUSE mount a test leaves behind is found (and fails the run) at the end.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/fsmount-test.XXXXXX")
export TMPDIR
chmod 755 "$TMPDIR"   # the unprivileged run reaches its own directory in it
# fuse_mounts lists the FUSE mount points under TMPDIR.
fuse_mounts() {
  awk -v dir="$TMPDIR/" '{
    for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i+1) ~ /^fuse/ && index($5, dir) == 1) print $5; break }
  }' /proc/self/mountinfo
}
leftover_check() {
  local left
  left=$(fuse_mounts)
  if [ -n "$left" ]; then
    echo "FAIL: the tests left FUSE mounts behind:" >&2
    echo "$left" >&2
    return 1
  fi
  rm -rf "$TMPDIR" 2>/dev/null || true
}
trap 'leftover_check || exit 1' EXIT

# The end-to-end suite runs twice, as root and as an unprivileged user
# (mounting through fusermount3, not mount(2), on one core), from one build
# of the commands and of its test binary. Both runs spend most of their
# time waiting (mounts, servers, python and chromium starting), so they run
# in the background while the package tests below use the CPU; their
# output is shown when they end. The unprivileged run reads a copy of
# testdata/ it can read.
work="$TMPDIR/e2e-work"
mkdir "$work"
step "build the commands and the e2e test binary"
go build -o "$work/bin/" ./cmd/...
go test -c -o "$work/bin/e2e.test" ./e2e
chmod -R a+rX "$work"

nobody_pid=""
if [ "$(id -u)" = 0 ]; then
  # fsmount -u aborts a hung daemon's connection through fusectl, which
  # only root can mount (fsmount -u as root mounts it when missing): the
  # unprivileged run needs it mounted from the start.
  # Asked of the path, not the mount table, which also lists a fusectl
  # hidden under a later mount.
  if [ "$(stat -f -c %T /sys/fs/fuse/connections 2>/dev/null)" != fusectl ]; then
    mount -t fusectl fusectl /sys/fs/fuse/connections
  fi
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
    copy="$TMPDIR/nobody-work"
    mkdir "$copy"
    cp go.mod "$copy/"                       # where the tests find the repository's root
    # The testdata directories the tests read, at their own paths.
    for d in testdata gguf/testdata internal/quant/testdata internal/quantconfig/testdata adapter/testdata pytorch/testdata dcp/testdata; do
      cp -r --parents "$d" "$copy/"
    done
    # SeaweedFS's weed, when the S3 tests are to run: its cache under /root
    # is not readable by nobody, so the run gets its own copy.
    weed=""
    if [ -n "${FSMOUNT_WEED:-}" ]; then
      cp "$FSMOUNT_WEED" "$work/bin/weed"
      weed="$work/bin/weed"
    fi
    mkdir "$copy/e2e"
    chmod -R a+rX "$copy" "$work"
    tmp="$TMPDIR/nobody-tmp"
    mkdir "$tmp" && chown nobody:nogroup "$tmp"
    step "e2e as user nobody (fusermount3), one core: started"
    (cd "$copy/e2e" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
      env HOME=/tmp TMPDIR="$tmp" GOMAXPROCS=1 FSMOUNT_BIN_DIR="$work/bin" FSMOUNT_REQUIRE_FUSE="${FSMOUNT_REQUIRE_FUSE:-}" \
      ${weed:+FSMOUNT_WEED="$weed"} "$work/bin/e2e.test" -test.count=1 -test.timeout=30m) >"$TMPDIR/nobody.log" 2>&1 &
    nobody_pid=$!
  fi
fi

step "e2e as root: started"
(cd e2e && FSMOUNT_BIN_DIR="$work/bin" "$work/bin/e2e.test" -test.count=1 -test.timeout=30m) >"$TMPDIR/e2e-root.log" 2>&1 &
root_pid=$!

# -count=1: never trust a cached result. e2e runs above: its tests run the
# built binaries, which a -race test build does not instrument, so under
# -race it would only be slower. A failing run does not stop the script:
# the e2e runs in the background are waited for (and their mounts gone)
# before it exits, and every failure is reported at the end.
failed=""
run() { # NAME COMMAND...: runs a step, noting a failure
  local name=$1
  shift
  step "$name"
  "$@" || failed="$failed; $name"
}
# Tests of pure computation on large inputs (the whole GGUF-converted
# layout table, a 30B GPTQ checkpoint's check, a 70B GGUF layout, the
# 0.6B model's pictures, a reader against 40,000 random reads, every
# page with hostile statistics) run 6 to 45 times slower under the race
# detector, and their concurrent paths are run under it by other tests
# (TestLayouts races the families' compilation, TestRealShardedIndexes
# opens shards at once, TestTinySite and TestWrite run the site's
# renderers): they run
# once, without -race, in their own step. The list is here only.
heavy='^(TestGGUFConverted|TestGPTQLogicalCount|TestLlama70BLayout|TestReadmePictures06B|TestWindowReader|TestFixedWidthFields|TestFuzzLayouts|TestLayoutsMore)$'
names=${heavy#^}
heavy_pkgs=$(grep -rlE "^func ${names%\$}\(" --include='*_test.go' . | xargs -n1 dirname | sort -u)
run "go test -race, every package but e2e (the heavy tests skipped)" go test -race -count=1 -timeout 20m -skip "$heavy" $(go list ./... | grep -v -e '/e2e$')
run "the heavy tests, without -race" go test -count=1 -timeout 10m -run "$heavy" $heavy_pkgs
run "source/remote without -race" go test -count=1 ./source/remote
run "fusefs with --passthrough" env FSMOUNT_TEST_PASSTHROUGH=1 go test -race -count=1 -timeout 10m ./fusefs
run "fusefs on one core" env GOMAXPROCS=1 go test -count=1 -timeout 10m ./fusefs

root_ok=1
wait "$root_pid" || root_ok=0
step "e2e as root: ended"
cat "$TMPDIR/e2e-root.log"
nobody_ok=1
if [ -n "$nobody_pid" ]; then
  wait "$nobody_pid" || nobody_ok=0
  step "e2e as user nobody: ended"
  cat "$TMPDIR/nobody.log"
fi
[ "$root_ok" = 1 ] || failed="$failed; e2e as root"
[ "$nobody_ok" = 1 ] || failed="$failed; e2e as user nobody"
if [ -n "$failed" ]; then
  echo "FAIL: ${failed#; }" >&2
  exit 1
fi
step "done"
