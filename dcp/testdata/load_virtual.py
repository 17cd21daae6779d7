#!/usr/bin/env python3
"""Load a virtual model.safetensors (fsmount's, of a Distributed Checkpoint)
with torch, and compare each tensor with the checkpoint as torch's own DCP
loader reads it.

    python3 load_virtual.py MODEL.safetensors WEIGHTS.json DCP_DIR [MODEL2 WEIGHTS2 DIR2 ...]

WEIGHTS.json maps each weight's name in the safetensors file to
{"key": its key in the checkpoint, "sha256": of its bytes}. Every weight
must be in the file with that SHA-256; with DCP_DIR and a torch that has
torch.distributed.checkpoint (2.x), each must also equal, bit for bit,
what dcp.load reads. The file is read with safetensors.torch where
installed, else parsed with numpy (header JSON, then the bytes).
Prints "ok N weights (dcp.load: yes|no)" for each; exits 1 on a difference.
"""
import hashlib, json, struct, sys

import numpy as np
import torch

def check(path, wpath, ckpt):
    weights = json.load(open(wpath))
    try:
        from safetensors.torch import load_file
        st = load_file(path)
    except ImportError:
        dt = {"BF16": (np.int16, torch.bfloat16), "F16": (np.float16, None), "F32": (np.float32, None),
              "F64": (np.float64, None), "I64": (np.int64, None), "I32": (np.int32, None), "U8": (np.uint8, None)}
        raw = open(path, "rb").read()
        n = struct.unpack("<Q", raw[:8])[0]
        hdr = json.loads(raw[8:8 + n])
        hdr.pop("__metadata__", None)
        st = {}
        for name, e in hdr.items():
            npt, view = dt[e["dtype"]]
            a, b = e["data_offsets"]
            arr = np.frombuffer(raw[8 + n + a:8 + n + b], dtype=npt).reshape(e["shape"])
            t = torch.from_numpy(arr.copy())
            st[name] = t.view(view) if view is not None else t
    
    bad = 0
    if set(st) != set(weights):
        print("names differ:", sorted(set(st) ^ set(weights)))
        bad += 1
    for name, w in weights.items():
        t = st.get(name)
        if t is None:
            continue
        got = hashlib.sha256(t.contiguous().view(-1).view(torch.uint8).numpy().tobytes()).hexdigest()
        if got != w["sha256"]:
            print("sha256 differs:", name)
            bad += 1
    
    used = "no"
    if ckpt:
        try:
            import torch.distributed.checkpoint as dcp
            from torch.distributed.checkpoint import FileSystemReader
        except ImportError:
            dcp = None
        if dcp is not None:
            used = "yes"
            md = FileSystemReader(ckpt).read_metadata()
            sd = {}
            for name, w in weights.items():
                tm = md.state_dict_metadata[w["key"]]
                sd[w["key"]] = torch.empty(tm.size, dtype=tm.properties.dtype)
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                dcp.load(sd, checkpoint_id=ckpt)
            for name, w in weights.items():
                a, b = st.get(name), sd[w["key"]]
                if a is None or a.dtype != b.dtype or a.shape != b.shape or not torch.equal(a.view(-1).view(torch.uint8), b.contiguous().view(-1).view(torch.uint8)):
                    print("differs from dcp.load:", name)
                    bad += 1
    print(f"{'FAIL' if bad else 'ok'} {len(weights)} weights (dcp.load: {used}): {path}")
    return bad


args = sys.argv[1:]
bad = sum(check(*args[i:i + 3]) for i in range(0, len(args), 3))
sys.exit(1 if bad else 0)
