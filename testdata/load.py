"""Reads one tensor of a safetensors file with numpy alone (no safetensors,
no torch): README runs it on the model.safetensors a mount of a PyTorch
checkpoint serves in files/.

    python3 testdata/load.py MNT/files/model.safetensors
"""
import json
import sys

import numpy as np

raw = open(sys.argv[1], "rb").read()
n = int.from_bytes(raw[:8], "little")
header = json.loads(raw[8:8 + n])
e = header["model.layers.0.mlp.up_proj.weight"]
a, b = e["data_offsets"]
w = np.frombuffer(raw[8 + n + a:8 + n + b], dtype=np.uint16).reshape(e["shape"])
f32 = (w.astype(np.uint32) << 16).view(np.float32)  # BF16 -> F32
print(len(header) - 1, "tensors;", e["dtype"], e["shape"], "first row:", f32[0, :4])
