#!/usr/bin/env python3
"""Check a delta.npy against numpy's own MODEL - OTHER.

usage: delta_check.py DELTA.npy MODEL.safetensors OTHER.safetensors NAME

Loads DELTA.npy with np.load, reads tensor NAME of both safetensors files
with np.memmap (BF16 widened to float32 by a 16-bit shift of its uint32
view), computes MODEL - OTHER in float64, rounds it to float32 and
requires the two arrays, shape included, to be equal bit for bit. Prints
"ok" on success.
"""
import json
import struct
import sys

import numpy as np

NP = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "BF16": np.uint16}


def tensor(path, name):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        hdr = json.loads(f.read(n))
    e = hdr[name]
    lo, hi = e["data_offsets"]
    dt = np.dtype(NP[e["dtype"]])
    raw = np.memmap(path, dtype=dt, mode="r", offset=8 + n + lo, shape=((hi - lo) // dt.itemsize,))
    if e["dtype"] == "BF16":
        raw = (raw.astype(np.uint32) << 16).view(np.float32)
    return raw.astype(np.float64).reshape(e["shape"])


def main():
    delta_path, model, other, name = sys.argv[1:5]
    got = np.load(delta_path)
    want = (tensor(model, name) - tensor(other, name)).astype(np.float32)
    if got.dtype != np.float32 or got.shape != want.shape:
        sys.exit(f"dtype {got.dtype} shape {got.shape}, want float32 {want.shape}")
    if not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
        bad = np.flatnonzero(got.view(np.uint32).ravel() != want.view(np.uint32).ravel())
        sys.exit(f"{bad.size} elements differ, first at {bad[0]}: {got.ravel()[bad[0]]} != {want.ravel()[bad[0]]}")
    print("ok", got.shape)


main()
