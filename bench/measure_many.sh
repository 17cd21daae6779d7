#!/bin/bash
# Usage: bench/measure_many.sh BINDIR [MODEL]  (root; BINDIR holds fsmount;
# MODEL defaults to /tmp/many/many-tensors, as go run ./bench -many -cache
# /tmp/many writes it)
# Mount-ready wall time, daemon CPU at ready, idle RssAnon after 3 s,
# first MiB of index.html (wall, daemon CPU). Always unmounts.
bin=$1; model=${2:-/tmp/many/many-tensors}
mnt=$(mktemp -d /tmp/mm.XXXX)
cleanup() { fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null; rmdir "$mnt" 2>/dev/null; }
trap cleanup EXIT
t0=$(date +%s.%N)
"$bin/fsmount" "$model" "$mnt" || exit 1
t1=$(date +%s.%N)
pid=""
for p in /proc/[0-9]*; do  # the daemon: its command line names the mount
  if { tr "\0" " " < "$p/cmdline"; } 2>/dev/null | grep -q -- "$mnt"; then pid=${p#/proc/}; fi
done
tck=$(getconf CLK_TCK)
cpu() { awk -v t=$tck '{printf "%.2f", ($14+$15)/t}' /proc/$pid/stat; }
c1=$(cpu)
sleep 3
idle=$(awk '/RssAnon/{printf "%.0f", $2/1024}' /proc/$pid/status)
t2=$(date +%s.%N)
head -c 1048576 "$mnt/index.html" > /dev/null
t3=$(date +%s.%N)
c3=$(cpu)
printf 'ready %.2f s  cpu %s s  idle %s MB  firstMiB %.2f s (cpu %.2f s)\n' \
  "$(echo "$t1 - $t0" | bc)" "$c1" "$idle" "$(echo "$t3 - $t2" | bc)" "$(echo "$c3 - $c1" | bc)"
