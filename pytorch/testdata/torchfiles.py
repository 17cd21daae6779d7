#!/usr/bin/python3
"""Checkpoints written by PyTorch itself, and their values as torch loads them.

  torchfiles.py write OUT TINY   write the tiny model (TINY/model.safetensors,
                                 read here with numpy) as torch.save checkpoints
                                 under OUT: bf16/ f16/ f32/ (tied head sharing
                                 embed_tokens' storage), transposed/ (a
                                 non-contiguous weight), sharded/ (two shards and
                                 pytorch_model.bin.index.json), legacy/ (the
                                 pre-1.6 format); each with TINY's config.json.
  torchfiles.py verify MODELDIR MOUNT
                                 torch.load every .bin of MODELDIR and compare each
                                 tensor with MOUNT/by-name/NAME/data and with the
                                 virtual safetensors in MOUNT/files/, read with
                                 numpy only. Prints "ok N" or the first difference.
  torchfiles.py sums FILE...     torch.load each FILE and print "FILE NAME SHA256 DTYPE SHAPE"
                                 per tensor, the bytes row-major.
  torchfiles.py hostile OUT MARKER
                                 write checkpoints whose pickles must not run:
                                 reduce.pt would create MARKER, global.pt names
                                 a class a state dict never holds.
  torchfiles.py to-bin SRC DST   torch.save the tensors of the safetensors file SRC
                                 (read with numpy) as DST: an adapter_model.bin
                                 as older PEFT versions saved one.

Commands separated by "--" run in turn in one process (torch's import
costs seconds): torchfiles.py write OUT TINY -- sums FILE...
"""
import json, os, shutil, sys, zipfile, io, pickle
import numpy as np
import torch

NP = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16, "F64": np.float64,
      "I64": np.int64, "I32": np.int32, "I16": np.int16, "I8": np.int8, "U8": np.uint8, "BOOL": np.bool_}


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    hdr = json.loads(raw[8:8 + n])
    out = {}
    for name, e in hdr.items():
        if name == "__metadata__":
            continue
        a, b = e["data_offsets"]
        arr = np.frombuffer(raw[8 + n + a:8 + n + b], dtype=NP[e["dtype"]]).reshape(e["shape"])
        out[name] = (e["dtype"], arr)
    return out


def to_torch(dtype, arr):
    if dtype == "BF16":
        return torch.from_numpy(arr.astype(np.int16)).view(torch.bfloat16).clone()
    return torch.from_numpy(arr.copy())


def bits(t):
    """A tensor's bytes, row-major, as torch holds them."""
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def config(tiny, d, dtype="bfloat16"):
    with open(os.path.join(tiny, "config.json")) as f:
        c = json.load(f)
    c["torch_dtype"] = dtype
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(c, f, indent=2)


def write(out, tiny):
    src = read_safetensors(os.path.join(tiny, "model.safetensors"))
    base = {n: to_torch(d, a) for n, (d, a) in sorted(src.items())}
    for name, dt, cdt in [("bf16", torch.bfloat16, "bfloat16"), ("f16", torch.float16, "float16"), ("f32", torch.float32, "float32")]:
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        sd = {n: t.to(dt) for n, t in base.items()}
        sd["lm_head.weight"] = sd["model.embed_tokens.weight"]  # tied: one storage
        torch.save(sd, os.path.join(d, "pytorch_model.bin"))
        config(tiny, d, cdt)
    # A transposed weight: the same values, stored column-major.
    d = os.path.join(out, "transposed")
    os.makedirs(d, exist_ok=True)
    sd = {n: t.float() for n, t in base.items()}
    q = "model.layers.0.self_attn.q_proj.weight"
    sd[q] = sd[q].t().contiguous().t()
    assert not sd[q].is_contiguous()
    torch.save(sd, os.path.join(d, "pytorch_model.bin"))
    config(tiny, d, "float32")
    # Two shards and their index, as transformers writes them.
    d = os.path.join(out, "sharded")
    os.makedirs(d, exist_ok=True)
    names = sorted(base)
    half = len(names) // 2
    wm, total = {}, 0
    for i, part in enumerate([names[:half], names[half:]]):
        shard = "pytorch_model-%05d-of-00002.bin" % (i + 1)
        torch.save({n: base[n] for n in part}, os.path.join(d, shard))
        for n in part:
            wm[n] = shard
            total += base[n].numel() * base[n].element_size()
    with open(os.path.join(d, "pytorch_model.bin.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": wm}, f, indent=2)
    shutil.copy(os.path.join(tiny, "config.json"), d)
    # The legacy format of PyTorch before 1.6.
    d = os.path.join(out, "legacy")
    os.makedirs(d, exist_ok=True)
    sd = dict(base)
    sd["lm_head.weight"] = sd["model.embed_tokens.weight"]
    torch.save(sd, os.path.join(d, "pytorch_model.bin"), _use_new_zipfile_serialization=False)
    shutil.copy(os.path.join(tiny, "config.json"), d)


def verify(model, mnt):
    sd = {}
    for f in sorted(os.listdir(model)):
        if f.endswith(".bin") or f.endswith(".pt") or f.endswith(".pth"):
            sd.update(torch.load(os.path.join(model, f), map_location="cpu"))
    files = os.path.join(mnt, "files")
    virt = {}
    for f in sorted(os.listdir(files)):
        if f.endswith(".safetensors") and not os.path.exists(os.path.join(model, f)):
            virt.update(read_safetensors(os.path.join(files, f)))
    if len(virt) != len(sd):
        return "virtual safetensors hold %d tensors, torch loads %d" % (len(virt), len(sd))
    for name, t in sorted(sd.items()):
        want = bits(t)
        with open(os.path.join(mnt, "by-name", name, "data"), "rb") as f:
            got = f.read()
        if got != want:
            return "%s: data differs from torch (%d vs %d bytes)" % (name, len(got), len(want))
        dt, arr = virt[name]
        if list(arr.shape) != list(t.shape) or arr.tobytes() != want:
            return "%s: virtual safetensors %s %s differs from torch %s" % (name, dt, list(arr.shape), list(t.shape))
        if t.dtype != torch.bfloat16 and not np.array_equal(arr, t.contiguous().numpy()):
            return "%s: values differ" % name
    return "ok %d" % len(sd)


class Run:
    """A pickle whose loading would run a command (creating MARKER)."""
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, ("touch " + self.marker,))


def hostile(out, marker):
    os.makedirs(out, exist_ok=True)
    # A state dict with a value that runs a command when unpickled.
    torch.save({"w": torch.zeros(2), "x": Run(marker)}, os.path.join(out, "reduce.pt"))
    # A global a state dict never uses.
    torch.save({"w": torch.zeros(2), "x": io.BytesIO}, os.path.join(out, "global.pt"))


def run(cmd, args):
    if cmd == "write":
        write(args[0], args[1])
    elif cmd == "verify":
        print(verify(args[0], args[1]))
    elif cmd == "sums":
        import hashlib
        for path in args:
            for name, t in sorted(torch.load(path, map_location="cpu").items()):
                print(path, name, hashlib.sha256(bits(t)).hexdigest(), str(t.dtype), list(t.shape))
    elif cmd == "hostile":
        hostile(args[0], args[1])
    elif cmd == "to-bin":
        torch.save({k: to_torch(*v) for k, v in read_safetensors(args[0]).items()}, args[1])
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    argv = sys.argv[1:]
    while argv:
        n = argv.index("--") if "--" in argv else len(argv)
        run(argv[0], argv[1:n])
        argv = argv[n + 1:]
