#!/usr/bin/env bash
# values.npy of a 4-bit 4096×4096 weight against numpy unpacking the same
# layout: compressed-tensors W4A16 (pack-quantized, symmetric, group 128).
# fsmount's side is BenchmarkNPYFromW4A16 (internal/views: the view that
# serves values.npy, read in 128 KiB reads); the peer is
# bench/quant_numpy.py, which unpacks, scales and writes the same .npy with
# numpy. Both run here, one after the other, and the ratio is printed.
#
# Usage: bash bench/quant_numpy.sh   (needs Debian's python3-numpy)
set -euo pipefail
cd "$(dirname "$0")/.."
go_mbs=$(go test -run '^$' -bench '^BenchmarkNPYFromW4A16$' -benchtime 5x ./internal/views |
  awk '/BenchmarkNPYFromW4A16/ { for (i = 1; i <= NF; i++) if ($i == "MB/s") print $(i-1) }')
np_line=$(/usr/bin/python3 bench/quant_numpy.py 5)
np_mbs=$(echo "$np_line" | awk '{ print $2 }')
echo "fsmount values.npy: $go_mbs MB/s"
echo "$np_line"
awk -v a="$go_mbs" -v b="$np_mbs" 'BEGIN { printf "values.npy / numpy: %.2f×\n", a / b }'
