#!/usr/bin/env python3
"""The scan's peer: the statistics fsinspect --scan computes, computed the
way a careful numpy user would, over every tensor of a safetensors file.

usage: scan_numpy.py MODEL.safetensors

numpy.memmap of the file; per tensor, 16M-element chunks; BF16 widened to
float32 by a 16-bit shift of its uint32 view; NaN, +Inf, -Inf and zero
counts, finite min and max, and float64 sums of the finite values and of
their squares. Prints the bytes scanned and the seconds taken.
"""
import json
import struct
import sys
import time

import numpy as np

CHUNK = 16 << 20
DT = {"BF16": np.uint16, "F16": np.float16, "F32": np.float32, "F64": np.float64}


def stats(a, bf16):
    if bf16:
        a = (a.astype(np.uint32) << 16).view(np.float32)
    nan = int(np.isnan(a).sum())
    pinf = int(np.isposinf(a).sum())
    ninf = int(np.isneginf(a).sum())
    zeros = int((a == 0).sum())
    fin = a[np.isfinite(a)].astype(np.float64)
    if fin.size:
        return nan, pinf, ninf, zeros, fin.min(), fin.max(), fin.sum(), (fin * fin).sum(), fin.size
    return nan, pinf, ninf, zeros, 0.0, 0.0, 0.0, 0.0, 0


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    header.pop("__metadata__", None)
    m = np.memmap(path, dtype=np.uint8, mode="r")
    start, total = time.perf_counter(), 0
    for name, e in header.items():
        dt = DT[e["dtype"]]
        a, b = e["data_offsets"]
        v = m[8 + n + a:8 + n + b].view(dt)
        for i in range(0, v.size, CHUNK):
            stats(v[i:i + CHUNK], e["dtype"] == "BF16")
        total += b - a
    print(total, time.perf_counter() - start)


main()
