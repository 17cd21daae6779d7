#!/usr/bin/env python3
"""An independent reference for the adapter tests, in numpy: it reads
safetensors files and adapter_config.json itself (no fsmount code) and

  lora.py delta ADAPTER MODULE OUT.npy [--conv1d]
      writes scale * B @ A of MODULE in float64 (transposed for a
      Conv1D, --conv1d, or an embedding), scale = alpha/r or alpha/sqrt(r)
      with rank_pattern/alpha_pattern matched as PEFT's get_pattern_key,
      and beside it OUT.abs.npy, |scale| * |B| @ |A|, which bounds the
      rounding error of a float32 product;
  lora.py merge BASE ADAPTER OUT [--off TENSOR]
      writes OUT/config.json and OUT/model.safetensors: BASE's tensors,
      each adapted weight replaced by W + scale * B @ A computed in
      float64 and rounded once to W's dtype (DoRA: magnitude * (W + dW) /
      row norm), every other tensor byte for byte; --off adds 8 ulps to
      element [0, 0] of TENSOR after merging. A full copy the adapter
      saves (modules_to_save) replaces the base's tensor, in its dtype.
"""
import json, math, os, re, shutil, struct, sys
import numpy as np

PREFIX = "base_model.model."


def read_st(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        hdr = json.loads(f.read(n))
        data = f.read()
    meta = hdr.pop("__metadata__", None)
    out = {}
    for k, v in hdr.items():
        a, b = v["data_offsets"]
        out[k] = (v["dtype"], v["shape"], data[a:b])
    return out, meta


def to_f64(dtype, shape, raw):
    if dtype == "BF16":
        u = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        return u.view(np.float32).astype(np.float64).reshape(shape)
    return np.frombuffer(raw, dtype={"F32": "<f4", "F16": "<f2", "F64": "<f8"}[dtype]).astype(np.float64).reshape(shape)


def from_f64(dtype, x):
    if dtype == "BF16":
        # float64 -> bfloat16, round to nearest even, in one rounding:
        # via float32 only when that is exact enough is not guaranteed, so
        # round the float64 mantissa directly.
        f = x.astype(np.float64)
        m, e = np.frexp(f)  # f = m * 2**e, 0.5 <= |m| < 1
        q = np.round(m * 256.0) / 256.0  # 8 significant bits, half to even
        r = np.ldexp(q, e).astype(np.float32)
        return (r.view(np.uint32) >> 16).astype("<u2").tobytes()
    return x.astype({"F32": "<f4", "F16": "<f2", "F64": "<f8"}[dtype]).tobytes()


def write_st(path, tensors, meta):
    hdr, off, blobs = {}, 0, []
    if meta:
        hdr["__metadata__"] = meta
    for k in sorted(tensors):
        dt, shape, raw = tensors[k]
        hdr[k] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(raw)]}
        off += len(raw)
        blobs.append(raw)
    h = json.dumps(hdr).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def pattern(pats, key, default):
    for k, v in pats.items():
        if re.match(r"(.*\.)?(%s)$" % k, key):
            return v
    return default


def modules(adapter_dir):
    cfg = json.load(open(os.path.join(adapter_dir, "adapter_config.json")))
    st, _ = read_st(os.path.join(adapter_dir, "adapter_model.safetensors"))
    mods = {}
    for k, (dt, shape, raw) in st.items():
        m = re.match(r"^%s(.*)\.(lora_A|lora_B)\.weight$" % re.escape(PREFIX), k) or re.match(r"^%s(.*)\.(lora_embedding_A|lora_embedding_B|lora_magnitude_vector)$" % re.escape(PREFIX), k)
        if not m:
            continue
        mods.setdefault(m.group(1), {})[m.group(2)] = to_f64(dt, shape, raw)
    out = {}
    for key, p in mods.items():
        r = pattern(cfg.get("rank_pattern") or {}, key, cfg.get("r", 8))
        alpha = pattern(cfg.get("alpha_pattern") or {}, key, cfg.get("lora_alpha", 8))
        scale = alpha / math.sqrt(r) if cfg.get("use_rslora") else alpha / r
        emb = "lora_embedding_A" in p
        a = p["lora_embedding_A" if emb else "lora_A"]
        b = p["lora_embedding_B" if emb else "lora_B"]
        out[key] = dict(scale=scale, delta=scale * (b @ a), abs=abs(scale) * (np.abs(b) @ np.abs(a)), emb=emb, mag=p.get("lora_magnitude_vector"))
    return cfg, out


def main():
    cmd = sys.argv[1]
    if cmd == "delta":
        _, mods = modules(sys.argv[2])
        m = mods[sys.argv[3]]
        d, a = m["delta"], m["abs"]
        if m["emb"] or "--conv1d" in sys.argv:
            d, a = d.T, a.T
        np.save(sys.argv[4], np.ascontiguousarray(d))
        np.save(sys.argv[4][:-4] + ".abs.npy", np.ascontiguousarray(a))
        return
    base, adapter_dir, out = sys.argv[2], sys.argv[3], sys.argv[4]
    off = sys.argv[sys.argv.index("--off") + 1] if "--off" in sys.argv else None
    _, mods = modules(adapter_dir)
    st, meta = read_st(os.path.join(base, "model.safetensors"))
    for key, m in mods.items():
        name = key + ".weight"
        dt, shape, raw = st[name]
        w = to_f64(dt, shape, raw)
        d = m["delta"].T if m["emb"] else m["delta"]
        merged = w + d
        if m["mag"] is not None:
            merged = m["mag"][:, None] * merged / np.linalg.norm(merged, axis=1, keepdims=True)
        st[name] = (dt, shape, from_f64(dt, merged))
    # Full copies the adapter saves (modules to save): they replace the
    # base's tensor, in its dtype.
    ad, _ = read_st(os.path.join(adapter_dir, "adapter_model.safetensors"))
    for k, (adt, ashape, araw) in ad.items():
        name = k[len(PREFIX):] if k.startswith(PREFIX) else None
        if name is None or ".lora_" in name or name not in st:
            continue
        dt, shape, _ = st[name]
        st[name] = (dt, shape, from_f64(dt, to_f64(adt, ashape, araw)))
    if off:
        dt, shape, raw = st[off]
        x = to_f64(dt, shape, raw)
        x.flat[0] += 8 * abs(x.flat[0]) * (2.0 ** -8 if dt == "BF16" else 2.0 ** -23)
        st[off] = (dt, shape, from_f64(dt, x))
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.join(base, "config.json"), os.path.join(out, "config.json"))
    write_st(os.path.join(out, "model.safetensors"), st, meta)


if __name__ == "__main__":
    main()
