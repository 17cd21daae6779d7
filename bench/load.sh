#!/usr/bin/env bash
# A known load on the machine, to time something under it: N busy
# processes, each a shell spinning on `:` (pure CPU in one core, no
# memory, no I/O, no system calls), at normal priority, so that the load
# average settles at N plus what the machine already runs (it takes about
# a minute to reach it: the 1-minute average).
#
#   bench/load.sh N [COMMAND...]
#
# With a COMMAND, it runs it under the load, prints its wall time with
# the load average before and after, and stops the load; without one,
# it keeps the load until interrupted (Ctrl-C, or kill of this script).
# For the quick test run's budget (CONTRIBUTING.md: two minutes with warm
# caches at load 2 and at load 8):
#
#   bench/load.sh 8 sleep 60                       # let the average settle
#   bench/load.sh 8 ./test.sh --quick
#
# (or both in one: bench/load.sh 8 sh -c 'sleep 60; ./test.sh --quick').
set -euo pipefail
case "${1:-}" in
  '' | *[!0-9]*) echo "usage: bench/load.sh N [COMMAND...]" >&2; exit 64 ;;
esac
n=$1
shift
pids=()
stop() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true; }
trap stop EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < n; i++)); do
  bash -c 'while :; do :; done' &
  pids+=($!)
done
echo "load.sh: $n busy processes (pids ${pids[*]})" >&2
if [ $# -eq 0 ]; then
  wait
  exit 0
fi
before=$(cut -d' ' -f1-3 /proc/loadavg)
start=${EPOCHREALTIME/./}
status=0
"$@" || status=$?
end=${EPOCHREALTIME/./}
after=$(cut -d' ' -f1-3 /proc/loadavg)
us=$((end - start))
printf 'load.sh: %s took %d.%d s under %d busy processes; load average before %s, after %s; exit %d\n' \
  "$*" $((us / 1000000)) $((us / 100000 % 10)) "$n" "$before" "$after" "$status" >&2
exit "$status"
