#!/bin/bash
# Usage: bench/virtual_read.sh ROUNDS MODEL BINMODEL BINDIR [data]
#
# The first cat of files/model.safetensors on fresh mounts (or, with
# "data", of every tensor's data file, found by find): MODEL (a
# safetensors model) and BINMODEL (the same model as pytorch_model.bin,
# whose files/model.safetensors is virtual), in turn, ROUNDS times, with
# BINDIR/fsmount. Per round: each one's wall time and CPU time (cat's and
# the daemon's), the daemon's alone, and the ratios real/virtual (1 = as
# fast; the daemon's CPU is the part the two paths differ in). Run as root
# with both model files in the page cache; issue #24 wants ≥ 0.9.
set -euo pipefail
rounds=$1 real=$2 virt=$3 bin=$4 what=${5:-files}
cat "$real/model.safetensors" "$virt/pytorch_model.bin" >/dev/null
tick=$(getconf CLK_TCK)
first_cat() { # MODEL: prints "WALL CPU DAEMONCPU"
  local mnt pid c0 c1 s e ct
  mnt=$(mktemp -d)
  "$bin/fsmount" "$1" "$mnt" >/dev/null
  pid=$(pgrep -f "fsmount $1 $mnt" | head -1)
  c0=$(awk '{print $14+$15}' "/proc/$pid/stat")
  s=$(date +%s.%N)
  if [ "$what" = data ]; then
    ct=$({ /usr/bin/time -f "%U %S" bash -c 'find "$1" -path "$1/files" -prune -o -name data -type f -print0 | xargs -0 cat >/dev/null' _ "$mnt"; } 2>&1)
  else
    ct=$({ /usr/bin/time -f "%U %S" cat "$mnt/files/model.safetensors" >/dev/null; } 2>&1)
  fi
  e=$(date +%s.%N)
  c1=$(awk '{print $14+$15}' "/proc/$pid/stat")
  "$bin/fsmount" -u "$mnt"
  rmdir "$mnt"
  echo "$ct" | awk -v s="$s" -v e="$e" -v d=$((c1 - c0)) -v tk="$tick" '{printf "%.3f %.2f %.2f\n", e-s, $1+$2+d/tk, d/tk}'
}
for _ in $(seq "$rounds"); do
  read -r rw rc rd < <(first_cat "$real")
  read -r vw vc vd < <(first_cat "$virt")
  awk -v rw="$rw" -v rc="$rc" -v rd="$rd" -v vw="$vw" -v vc="$vc" -v vd="$vd" 'BEGIN{printf "real %ss %scpu %sd  virtual %ss %scpu %sd  wall %.2f cpu %.2f daemon %.2f\n", rw, rc, rd, vw, vc, vd, rw/vw, rc/vc, rd/(vd>0?vd:0.01)}'
done
