#!/usr/bin/env bash
# The long form of the load test: 32 readers of random ranges, each checked
# against the model file, plus find and cat loops, through a real mount,
# for DURATION seconds (default 600). Prints a summary table: reads, bytes,
# errors, mismatches, p50/p99 latency, heap, descriptors, goroutines.
#
#   ./stress.sh [DURATION] [extra go test flags, e.g. -race]
set -euo pipefail
cd "$(dirname "$0")"
duration=${1:-600}
shift || true
FSMOUNT_LOAD_SECONDS=$duration go test ./fusefs -run '^TestLoad$' -count=1 -v -timeout 0 "$@" |
  grep -E '^\s+\|' | sed 's/^\s*//'
