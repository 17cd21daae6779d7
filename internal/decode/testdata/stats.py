#!/usr/bin/env python3
"""Statistics of a raw tensor with numpy, the reference for decode.Scan.

usage: stats.py PATH DTYPE [OFFSET [COUNT]]

Reads COUNT elements (default: the rest of the file) of DTYPE at byte
OFFSET of PATH with numpy.memmap, in chunks of 16M elements. BF16 is
widened to float32 by a 16-bit shift of its uint32 view; every chunk's
finite values contribute count, mean and centred sum of squares in
float64, merged with Chan's formula (as decode does, so the comparison
is of the arithmetic, not of the method). Prints one JSON object.
"""
import json
import math
import sys
import time

import numpy as np

DTYPES = {
    "BF16": np.uint16, "F16": np.float16, "F32": np.float32, "F64": np.float64,
    "I8": np.int8, "U8": np.uint8, "I16": np.int16, "U16": np.uint16,
    "I32": np.int32, "U32": np.uint32, "I64": np.int64, "U64": np.uint64,
    "BOOL": np.uint8,
}
SUB = {"BF16": (np.uint16, 0x7F80, 0x007F), "F16": (np.uint16, 0x7C00, 0x03FF),
       "F32": (np.uint32, 0x7F800000, 0x007FFFFF),
       "F64": (np.uint64, 0x7FF0000000000000, 0x000FFFFFFFFFFFFF)}
CHUNK = 16 << 20


def main():
    path, dt = sys.argv[1], sys.argv[2]
    offset = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    np_dt = np.dtype(DTYPES[dt])
    if len(sys.argv) > 4:
        count = int(sys.argv[4])
    else:
        import os
        count = (os.path.getsize(path) - offset) // np_dt.itemsize
    t0 = time.perf_counter()
    raw = np.memmap(path, dtype=np_dt, mode="r", offset=offset, shape=(count,))
    n = nan = pinf = ninf = zeros = sub = 0
    lo, hi = math.inf, -math.inf
    fn, fmean, fm2 = 0, 0.0, 0.0
    for start in range(0, count, CHUNK):
        r = raw[start:start + CHUNK]
        if dt == "BF16":
            x = (r.astype(np.uint32) << 16).view(np.float32)
        elif dt == "BOOL":
            x = (r != 0).astype(np.float64)
        else:
            x = r
        x = x.astype(np.float64)
        n += x.size
        isnan = np.isnan(x)
        nan += int(isnan.sum())
        pinf += int((x == np.inf).sum())
        ninf += int((x == -np.inf).sum())
        zeros += int((x == 0).sum())
        if dt in SUB:
            ut, em, mm = SUB[dt]
            u = r.view(ut)
            sub += int((((u & ut(em)) == 0) & ((u & ut(mm)) != 0)).sum())
        f = x[np.isfinite(x)]
        if f.size == 0:
            continue
        lo, hi = min(lo, float(f.min())), max(hi, float(f.max()))
        m = float(f.mean())
        m2 = float(((f - m) ** 2).sum())
        nb = f.size
        if fn == 0:
            fn, fmean, fm2 = nb, m, m2
        else:
            tot = fn + nb
            d = m - fmean
            fmean += d * nb / tot
            fm2 += m2 + d * d * fn * nb / tot
            fn = tot
    secs = time.perf_counter() - t0
    out = {"count": n, "nan": nan, "posinf": pinf, "neginf": ninf, "zeros": zeros,
           "subnormals": sub, "seconds": secs,
           "gbps": count * np_dt.itemsize / secs / 1e9 if secs > 0 else 0}
    if fn:
        var = fm2 / fn
        out.update(min=lo, max=hi, mean=fmean, std=math.sqrt(var),
                   absmax=max(-lo, hi), rms=math.sqrt(var + fmean * fmean))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
