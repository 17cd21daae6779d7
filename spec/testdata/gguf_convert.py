#!/usr/bin/env python3
"""What llama.cpp's converter writes for each reference layout: the oracle of
TestGGUFConverted (gguf_test.go).

usage (from the repository's root, as root):
    LLAMA_CPP=/path/to/llama.cpp python3 spec/testdata/gguf_convert.py \
        spec/testdata/layouts.tar.gz spec/testdata/layouts-more.tar.gz > spec/testdata/gguf-converted.txt

LLAMA_CPP is a llama.cpp checkout (its convert_hf_to_gguf.py, conversion/
and gguf-py/ are all that is read). The converter runs as its users run it:
with transformers installed, which it asks for the full config
(AutoConfig.from_pretrained(dir).to_dict(), every default filled in). So
this script runs itself inside the transformers oracle's chroot
(/work/shared/oracle, ORACLE_ROOT, default $HOME/fsmount-oracle): once with
transformers 4.57.6 for the layouts 4.57.6 wrote, once with 5.15.0 for the
ones 5.15.0 wrote (their config.json's transformers_version), and prints
the cases in the order of the tarballs. --inside is that run.

The cases: every layout of the tarballs (layouts.tar.gz: ARCH/{a,b,a-v5};
layouts-more.tar.gz: MODEL_TYPE/CLASS/{a,b}) whose architectures[0] the
converter registers as a text model. Each goes through the converter's own
class for it: the config through load_hparams, every tensor of the layout
(the names and shapes transformers' save_pretrained wrote) as a torch tensor
on the meta device through the class's filter_tensors and modify_tensors
(its renames by gguf-py's TensorNameMap, its merges, splits, transposes,
stacked experts and dropped tensors), generate_extra_tensors, then
set_gguf_parameters into a GGUFWriter whose key/values are read back.
Nothing here knows fsmount's name table: the output is llama.cpp's.

The output, one block per case:
    case <case> <general.architecture>
    vocab <n>                   (the tokenizer's size: the config's vocab_size)
    kv <key> <value>            (integer and boolean values, and arrays of them as v1,v2,...)
    tensor <name> <ne0,ne1,...>  (ggml order, innermost first)
    end
and "# <case>: ..." for a layout the converter refuses. GGUF_CONVERT_ONLY, a
regular expression, keeps the cases it matches.
"""
import io
import json
import re
import os
import subprocess
import sys
import tarfile
import tempfile


def layouts(tgzs):
    """[(case, config dict, [(name, dtype, shape)])] of the tarballs, in order."""
    out = []
    for tgz in tgzs:
        with tarfile.open(tgz) as t:
            files = {m.name: m for m in t.getmembers() if m.isfile()}
            for name in sorted(files):
                if not name.endswith("/config.json"):
                    continue
                case = name[: -len("/config.json")]
                cfg = json.load(t.extractfile(files[name]))
                ts = []
                for line in io.TextIOWrapper(t.extractfile(files[case + "/tensors.tsv"]), encoding="utf-8"):
                    n, dt, shape = line.rstrip("\n").split("\t")
                    ts.append((n, dt, [int(d) for d in shape.strip("[]").split(",") if d.strip()]))
                out.append((case, cfg, ts))
    return out


def outside():
    """Run --inside in the oracle's chroot with each transformers, merge."""
    root = os.environ.get("ORACLE_ROOT", os.path.expanduser("~/fsmount-oracle"))
    llama = os.environ.get("LLAMA_CPP")
    if not llama:
        sys.exit("set LLAMA_CPP to a llama.cpp checkout")
    tgzs = sys.argv[1:]
    work = tempfile.mkdtemp(prefix="gguf-convert.", dir=os.path.join(root, "tmp"))
    inner = work[len(root):]
    subprocess.run(["cp", "-r", llama, os.path.join(work, "llama.cpp")], check=True)
    subprocess.run(["cp", os.path.abspath(__file__)] + tgzs + [work], check=True)
    blocks = {}
    try:
        run(root, inner, tgzs, blocks)
    finally:
        subprocess.run(["rm", "-r", work], check=True)
    for case, _, _ in layouts(tgzs):
        sys.stdout.write(blocks.get(case, ""))


def run(root, inner, tgzs, blocks):
    for site in ("/opt/oracle/site", "/opt/oracle/site5"):
        cmd = ["chroot", root, "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=/root", "LANG=C.UTF-8",
               "HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "TRANSFORMERS_VERBOSITY=error", "OMP_NUM_THREADS=1",
               "PYTHONWARNINGS=ignore", "PYTHONPATH=" + site,
               "GGUF_CONVERT_ONLY=" + os.environ.get("GGUF_CONVERT_ONLY", ""), "LLAMA_CPP=" + inner + "/llama.cpp",
               "python3", inner + "/" + os.path.basename(__file__), "--inside"] + [inner + "/" + os.path.basename(t) for t in tgzs]
        res = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True)
        case = None
        for line in res.stdout.splitlines(keepends=True):
            if line.startswith("@ "):
                case = line[2:].strip()
                continue
            blocks[case] = blocks.get(case, "") + line


# llama.cpp registers a few architectures under the class name of their
# original remote code, whose checkpoints name the tensors as transformers'
# port does.
ALIASES = {"MptForCausalLM": "MPTForCausalLM", "PhimoeForCausalLM": "PhiMoEForCausalLM"}


def as_published(cfg):
    """The config as real checkpoints of the type publish it, where the
    layouts' transformers-written one differs in a field the converter reads:
    Falcon-7B style (no new decoder) omits num_kv_heads (transformers writes
    its default, the head count, which the converter would take for the KV
    group count); DeepSeek's checkpoints have as many KV heads as heads (MLA
    ignores the field; the converter's kv_b split asserts it)."""
    cfg = dict(cfg)
    mt = cfg.get("model_type")
    archs = cfg.get("architectures") or []
    if archs and archs[0] in ALIASES:
        cfg["architectures"] = [ALIASES[archs[0]]] + archs[1:]
    if mt == "gpt2":  # GPT-2's configs still carry n_ctx
        cfg.setdefault("n_ctx", cfg.get("n_positions", 1024))
    if mt == "falcon" and not cfg.get("new_decoder_architecture"):
        cfg.pop("num_kv_heads", None)
    # Fields a converter requires that set only rope metadata, no tensor:
    # Cohere2's rotary_pct (not a field of transformers' Cohere2Config),
    # PhiMoE's original_max_position_embeddings.
    if mt == "cohere2":
        cfg.setdefault("rotary_pct", 1.0)
    if mt == "phimoe":
        cfg.setdefault("original_max_position_embeddings", 4096)
    if "kv_lora_rank" in cfg or mt in ("deepseek_v2", "deepseek_v3"):
        cfg["num_key_value_heads"] = cfg.get("num_attention_heads", 128)
    return cfg


def as_loaded(hparams):
    """What AutoConfig gives the converter, where a published checkpoint's
    config.json gives it less: Falcon-7B's config has no num_kv_heads,
    which FalconConfig fills with the head count."""
    if hparams.get("model_type") == "falcon" and not hparams.get("new_decoder_architecture"):
        hparams.pop("num_kv_heads", None)
    return hparams


def inside():
    root = os.environ["LLAMA_CPP"]
    for sub in ("gguf-py", "."):
        sys.path.insert(0, os.path.join(root, sub))
    import logging
    import pathlib
    import torch
    import transformers
    import gguf
    import conversion as conv
    logging.disable(logging.WARNING)
    major = transformers.__version__.split(".")[0]

    def convert(cfg, tensors, tmp):
        cfg = as_published(cfg)
        for f in os.listdir(tmp):
            os.unlink(tmp / f)
        with open(tmp / "config.json", "w") as f:
            json.dump(cfg, f)
        hparams = as_loaded(conv.ModelBase.load_hparams(tmp, False))
        arch = conv.get_model_architecture(hparams, conv.ModelType.TEXT)
        vocab = hparams.get("text_config", {}).get("vocab_size") or hparams.get("vocab_size")
        # the tokenizer, where a converter reads one (Gemma 3 trims the embedding to it)
        with open(tmp / "tokenizer.json", "w") as f:
            json.dump({"model": {"vocab": {f"t{i}": i for i in range(vocab or 0)}}, "added_tokens": []}, f)
        try:
            cls = conv.get_model_class(arch)
        except NotImplementedError:
            return None
        model = cls(tmp, gguf.LlamaFileType.MOSTLY_F16, tmp / "out.gguf", hparams=hparams, eager=True)
        # A class that hands the work to another (Mistral 3: Ministral 3 or
        # Mistral 4) writes through that one's writer.
        model = getattr(model, "impl", model)
        for name, _, shape in tensors:
            gen = (lambda s=shape: torch.empty(s, dtype=torch.float32, device="meta"))
            if item := model.filter_tensors((name, gen)):
                model.model_tensors[item[0]] = item[1]
        # What prepare_tensors does before writing, without the data.
        written = []
        for name, t in list(model.generate_extra_tensors()) + list(model.get_tensors()):
            if name.endswith((".attention.masked_bias", ".attention.bias", ".rotary_emb.inv_freq")):
                continue
            bid = next((int(p) for p in name.split(".") if p.isdecimal()), None)
            for new_name, out in model.modify_tensors(t, name, bid):
                if any(new_name == w[0] for w in written):  # as GGUFWriter.add_tensor_info refuses it
                    raise ValueError(f"Duplicated tensor name {new_name!r}")
                written.append((new_name, list(reversed(out.shape))))
        model.set_gguf_parameters()
        kvs = []
        for key, v in model.gguf_writer.kv_data[0].items():
            val = v.value
            if isinstance(val, (bool, int)):
                kvs.append((key, str(int(val))))
            elif isinstance(val, (list, tuple)) and val and all(isinstance(x, (bool, int)) for x in val):
                kvs.append((key, ",".join(str(int(x)) for x in val)))
        return gguf.MODEL_ARCH_NAMES[model.model_arch], kvs, written, vocab

    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        only = re.compile(os.environ.get("GGUF_CONVERT_ONLY", ""))
        for case, cfg, ts in layouts(sys.argv[2:]):
            if str(cfg.get("transformers_version", "4")).split(".")[0] != major or not only.search(case):
                continue
            arch = (as_published(cfg).get("architectures") or [None])[0]
            if arch not in conv.TEXT_MODEL_MAP:
                continue
            print(f"@ {case}")
            try:
                got = convert(cfg, ts, tmp)
            except Exception as e:  # the converter refuses this config
                print(f"# {case}: llama.cpp's converter fails: {type(e).__name__}: {e}".replace("\n", " ")[:300])
                continue
            if got is None:
                continue
            name, kvs, written, vocab = got
            print(f"case {case} {name}")
            print(f"vocab {vocab}")
            for k, v in kvs:
                print(f"kv {k} {v}")
            for n, ne in written:
                print(f"tensor {n} {','.join(str(x) for x in ne)}")
            print("end")
            sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--inside"]:
        inside()
    else:
        outside()
