#!/usr/bin/env python3
"""The figures of compare.Models, computed with numpy: the benchmark's
reference, and a cross-check of the arithmetic.

usage: compare_numpy.py MODEL.safetensors OTHER.safetensors [CHUNK]

For every tensor name in both files (BF16, F16 or F32, same shape), both
are memory-mapped and read in chunks of CHUNK elements (default 1M); BF16
is widened to float32 by a 16-bit shift of its uint32 view, and the
reductions are done in float64: max |d|, sum |d|, sum d^2, sum a^2,
sum b^2, sum a*b and the count of a != b, with d = MODEL - OTHER. NaN
and infinities are not handled (the benchmark's files have none). Prints
one JSON object: seconds, bytes (both files' tensor bytes) and, per
tensor, rel_l2, cosine, max_abs, mean_abs and differ.
"""
import json
import math
import struct
import sys
import time

import numpy as np

NP = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}


def header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        h = json.loads(f.read(n))
    h.pop("__metadata__", None)
    return 8 + n, h


def widen(raw, dtype):
    if dtype == "BF16":
        return (raw.astype(np.uint32) << 16).view(np.float32)
    return raw


def main():
    mpath, opath = sys.argv[1], sys.argv[2]
    chunk = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 20
    t0 = time.perf_counter()
    mbase, mh = header(mpath)
    obase, oh = header(opath)
    out, total = {}, 0
    for name in sorted(set(mh) & set(oh)):
        me, oe = mh[name], oh[name]
        mdt, odt = np.dtype(NP[me["dtype"]]), np.dtype(NP[oe["dtype"]])
        n = (me["data_offsets"][1] - me["data_offsets"][0]) // mdt.itemsize
        a = np.memmap(mpath, dtype=mdt, mode="r", offset=mbase + me["data_offsets"][0], shape=(n,))
        b = np.memmap(opath, dtype=odt, mode="r", offset=obase + oe["data_offsets"][0], shape=(n,))
        total += n * (mdt.itemsize + odt.itemsize)
        mx = sabs = sdd = saa = sbb = sab = 0.0
        differ = 0
        for s in range(0, n, chunk):
            x = widen(a[s:s + chunk], me["dtype"]).astype(np.float64)
            y = widen(b[s:s + chunk], oe["dtype"]).astype(np.float64)
            d = x - y
            ad = np.abs(d)
            mx = max(mx, float(ad.max()))
            sabs += float(ad.sum())
            sdd += float(np.dot(d, d))
            saa += float(np.dot(x, x))
            sbb += float(np.dot(y, y))
            sab += float(np.dot(x, y))
            differ += int(np.count_nonzero(x != y))
        rel = math.sqrt(sdd) / math.sqrt(sbb) if sbb > 0 else (0.0 if sdd == 0 else math.inf)
        cos = sab / math.sqrt(saa * sbb) if saa > 0 and sbb > 0 else 1.0
        out[name] = {"rel_l2": rel, "cosine": cos, "max_abs": mx, "mean_abs": sabs / n, "differ": differ}
    secs = time.perf_counter() - t0
    print(json.dumps({"seconds": secs, "bytes": total, "tensors": out}))


main()
