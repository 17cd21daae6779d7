#!/bin/bash
# usage: bench/quant_layouts.sh BIN_DIR (go build -o bin/ ./cmd/... ./internal/testmodel/mkmodel) — builds every reference/quantized layout and counts fsinspect's verdicts
B=${1:-bin}
R=/work/shared/reference/quantized
O=/tmp/quantlayouts
declare -A n
for d in $R/*/*/; do
  s=$(basename $(dirname $d)); a=$(basename $d)
  out=$O/$s/$a
  [ -f $out/model.safetensors ] || { rm -rf $out; $B/mkmodel layout:$d $out >/dev/null || { echo "mk fail $s/$a"; continue; }; }
  $B/fsinspect $out > $out.report 2>&1; rc=$?
  n[$rc]=$(( ${n[$rc]:-0} + 1 ))
  echo "$rc $s/$a"
done > /tmp/quant-layouts.txt
for k in "${!n[@]}"; do echo "exit $k: ${n[$k]}"; done
