"""The numpy peer of BenchmarkNPYFromW4A16 (internal/views): the same
4096×4096 compressed-tensors W4A16 weight (int4 codes packed eight to an
int32 along the row, symmetric, a BF16 scale per group of 128) unpacked
and scaled with numpy, and written as a .npy of float32 values, as
fsmount's values.npy serves it. Prints the MB/s of .npy bytes made.

    /usr/bin/python3 bench/quant_numpy.py [ROUNDS]
"""
import io
import sys
import time

import numpy as np

n, group = 4096, 128
rng = np.random.default_rng(1)
packed = rng.integers(0, 2**32, size=(n, n // 8), dtype=np.uint64).astype(np.uint32)
scales = (rng.random((n, n // group), dtype=np.float32) / 64)
scales_bf16 = (scales.view(np.uint32) >> 16).astype(np.uint16)


def dequantize():
    shifts = np.arange(0, 32, 4, dtype=np.uint32)
    codes = (packed[:, :, None] >> shifts) & 0xF            # [n, n/8, 8]
    q = codes.reshape(n, n).astype(np.int8) - 8             # symmetric int4
    s = (scales_bf16.astype(np.uint32) << 16).view(np.float32)
    w = q.astype(np.float32).reshape(n, n // group, group) * s[:, :, None]
    buf = io.BytesIO()
    np.save(buf, w.reshape(n, n))
    return buf.getbuffer().nbytes


rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
best = None
for _ in range(rounds):
    t = time.perf_counter()
    size = dequantize()
    d = time.perf_counter() - t
    best = d if best is None or d < best else best
print(f"numpy: {size / best / 1e6:.1f} MB/s ({size:,} bytes of .npy, best of {rounds})")
