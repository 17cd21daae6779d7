#!/usr/bin/env python3
"""The numpy peer of `fsinspect --base BASE --compare MERGED ADAPTER`:
check that MERGED is BASE plus the LoRA adapter, as one would in numpy.

  merge_numpy.py BASE ADAPTER MERGED

Files are memory-mapped; for every adapted weight (lora_A/lora_B pair)
it computes W + scale * B @ A in float64 (BLAS; in float32 the
product's own rounding, up to r units of Σ|terms|, exceeds the bf16
tolerance where the terms cancel, and the check gives false alarms) and
checks the merged tensor within 2 units of the merged dtype's rounding;
every other tensor must be byte-identical. Prints the tensors that are not, and exits 1 if
any. A Linear only (no Conv1D, embedding or DoRA): the bench's adapter."""
import json, os, re, struct, sys
import numpy as np


def open_st(path):
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    n = struct.unpack("<Q", bytes(mm[:8]))[0]
    hdr = json.loads(bytes(mm[8:8 + n]))
    hdr.pop("__metadata__", None)
    base = 8 + n
    return {k: (v["dtype"], v["shape"], mm[base + v["data_offsets"][0]: base + v["data_offsets"][1]]) for k, v in hdr.items()}


def f32(dtype, shape, raw):
    if dtype == "BF16":
        return (raw.view("<u2").astype(np.uint32) << 16).view(np.float32).reshape(shape)
    return raw.view({"F32": "<f4", "F16": "<f2"}[dtype]).astype(np.float32).reshape(shape)


def main():
    base_dir, adapter_dir, merged_dir = sys.argv[1:4]
    cfg = json.load(open(os.path.join(adapter_dir, "adapter_config.json")))
    ad = open_st(os.path.join(adapter_dir, "adapter_model.safetensors"))
    base = open_st(os.path.join(base_dir, "model.safetensors"))
    merged = open_st(os.path.join(merged_dir, "model.safetensors"))
    scale = cfg["lora_alpha"] / cfg["r"]
    adapted = {}
    for k in ad:
        m = re.match(r"^base_model\.model\.(.*)\.lora_A\.weight$", k)
        if m:
            adapted[m.group(1) + ".weight"] = (k, k.replace(".lora_A.", ".lora_B."))
    bad = []
    for name, (dt, shape, raw) in base.items():
        mdt, mshape, mraw = merged[name]
        if name in adapted:
            ka, kb = adapted[name]
            a, b = f32(*ad[ka]).astype(np.float64), f32(*ad[kb]).astype(np.float64)
            w = f32(dt, shape, raw).astype(np.float64)
            d = scale * (b @ a)
            want = w + d
            got = f32(mdt, mshape, mraw).astype(np.float64)
            u = 2.0 ** -8 if mdt == "BF16" else 2.0 ** -24
            tol = 2 * u * (np.abs(w) + np.abs(d)) + 2.0 ** -126
            ok = (np.abs(got - want) <= tol) | (got == want) | (np.isnan(got) & np.isnan(want))
            if not ok.all():
                bad.append(name)
        elif not np.array_equal(raw, mraw):
            bad.append(name)
    for n in bad:
        print("not merged:", n)
    print("%d tensors, %d adapted, %d off" % (len(base), len(adapted), len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
