#!/usr/bin/env python3
"""What llama.cpp's converter writes for each reference layout: the oracle of
TestGGUFConverted (gguf_converted_test.go).

usage: LLAMA_CPP=/path/to/llama.cpp gguf_convert.py layouts.tar.gz > gguf-converted.tsv

LLAMA_CPP is a llama.cpp checkout (or any directory holding its gguf-py
package as gguf/ and convert_hf_to_gguf.py; /usr/bin/python3 with numpy and
torch runs it, nothing else is needed). For each case below, the reference
layout (the config.json and tensor list transformers' own save_pretrained
wrote) goes through llama.cpp's own converter class for its architecture:
every tensor, as a torch tensor on the meta device (shapes, no data), through
the class's modify_tensors (its renames by gguf-py's TensorNameMap, its
merges, splits, transposes, stacked experts and dropped tensors), then its
set_gguf_parameters into a GGUFWriter whose key/values are read back. Nothing
here knows fsmount's name table: the output is llama.cpp's.

The output, one block per case:
    case <model_type>/<layout> <general.architecture>
    vocab <n>                   (the tokenizer's size: config.json's vocab_size)
    kv <key> <value>            (integer and boolean values only)
    tensor <name> <ne0,ne1,...>  (ggml order, innermost first)
    end

Stubs: transformers (only its AutoConfig and tokenizers are imported, and
neither is used here) and sentencepiece are not needed and replaced by empty
modules. The converter reads the full config that transformers' AutoConfig
gives it, defaults included, and config.json holds only the fields that
differ from them: DEFAULTS are the defaults of the config classes
(transformers' configuration_<model>.py) for the fields a converter reads.
"""
import io
import json
import os
import re
import sys
import tarfile
import types

sys.modules["sentencepiece"] = types.SimpleNamespace(SentencePieceProcessor=None)
tf = types.ModuleType("transformers")
tf.AutoConfig = None
tf.AutoTokenizer = None
sys.modules["transformers"] = tf

root = os.environ.get("LLAMA_CPP")
if not root:
    sys.exit("set LLAMA_CPP to a llama.cpp checkout")
for sub in ("gguf-py", "."):
    sys.path.insert(0, os.path.join(root, sub))

import torch  # noqa: E402

for _dt in ("float8_e4m3fn", "float8_e5m2"):  # torch < 2.1: only named, never used here
    if not hasattr(torch, _dt):
        setattr(torch, _dt, torch.uint8)

import gguf  # noqa: E402
import convert_hf_to_gguf as conv  # noqa: E402


def overwrite(self, key, val, vtype):
    """gguf-py's newer GGUFWriter: a key written twice keeps its last value
    (older ones raised, which some converters trip over)."""
    self.kv_data[0][key] = gguf.GGUFValue(value=val, type=vtype)


gguf.GGUFWriter.add_key_value = overwrite

# The cases: reference layouts whose architecture llama.cpp converts, and
# which of their layouts (a: the class defaults; b: every dimension distinct).
CASES = {
    "llama": "ab", "mistral": "ab", "mixtral": "ab", "qwen2": "ab", "qwen3": "ab",
    "qwen2_moe": "ab", "qwen3_moe": "ab", "gemma": "ab", "gemma2": "ab", "gemma3_text": "ab",
    "phi3": "ab", "granite": "ab", "olmo2": "ab", "starcoder2": "ab", "stablelm": "ab", "cohere": "ab",
    "deepseek_v2": "ab", "deepseek_v3": "ab", "gpt-sw3": "ab", "falcon": "ab", "bloom": "ab",
    "gpt_neox": "ab", "gpt_bigcode": "ab", "phi": "ab", "mpt": "ab", "olmo": "ab", "olmoe": "ab",
    "granitemoe": "ab", "granitemoeshared": "ab", "nemotron": "ab", "glm4": "ab", "glm": "ab", "mamba": "a", "cohere2": "ab", "phimoe": "ab",
    "falcon_mamba": "a",
}

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
    if cfg.get("model_type") == "falcon" and not cfg.get("new_decoder_architecture"):
        cfg.pop("num_kv_heads", None)
    # Fields a converter requires that set only rope metadata, no tensor:
    # Cohere2's rotary_pct (not a field of transformers' Cohere2Config),
    # PhiMoE's original_max_position_embeddings.
    if cfg.get("model_type") == "cohere2":
        cfg.setdefault("rotary_pct", 1.0)
    if cfg.get("model_type") == "phimoe":
        cfg.setdefault("original_max_position_embeddings", 4096)
    if cfg.get("model_type") == "gpt2":  # GPT-2's configs still carry n_ctx
        cfg.setdefault("n_ctx", cfg.get("n_positions", 1024))
    if cfg.get("model_type") in ("deepseek_v2", "deepseek_v3"):
        cfg["num_key_value_heads"] = cfg.get("num_attention_heads", 128)
    return cfg

# Config-class defaults the converters read (transformers' configuration_*.py).
DEFAULTS = {
    "deepseek_v2": {"first_k_dense_replace": 0, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                    "qk_nope_head_dim": 128, "v_head_dim": 128, "moe_intermediate_size": 1407, "n_routed_experts": 64,
                    "n_shared_experts": 2, "routed_scaling_factor": 1.0, "norm_topk_prob": False, "scoring_func": "softmax",
                    "num_experts_per_tok": 6, "vocab_size": 102400},
    "deepseek_v3": {"first_k_dense_replace": 3, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                    "qk_nope_head_dim": 128, "v_head_dim": 128, "moe_intermediate_size": 2048, "n_routed_experts": 256,
                    "n_shared_experts": 1, "routed_scaling_factor": 2.5, "norm_topk_prob": True, "scoring_func": "sigmoid",
                    "num_experts_per_tok": 8, "vocab_size": 129280},
    "gpt2": {"n_positions": 1024, "layer_norm_epsilon": 1e-5},
    "bloom": {"layer_norm_epsilon": 1e-5},
    "gpt_neox": {"rotary_pct": 0.25, "layer_norm_eps": 1e-5, "max_position_embeddings": 2048},
    "gpt_bigcode": {"n_positions": 1024, "layer_norm_epsilon": 1e-5},
    "phi": {"partial_rotary_factor": 0.5, "layer_norm_eps": 1e-5, "max_position_embeddings": 2048},
    "mpt": {"max_seq_len": 2048, "n_layers": 24, "d_model": 2048, "n_heads": 16},
    "falcon": {"layer_norm_epsilon": 1e-5},
}


def layouts(tgz):
    """{(arch, layout): (config dict, [(name, dtype, shape)])} of the tarball."""
    out = {}
    with tarfile.open(tgz) as t:
        files = {m.name: m for m in t.getmembers() if m.isfile()}
        for name, m in files.items():
            parts = name.split("/")
            if len(parts) < 3 or parts[-1] != "config.json":
                continue
            arch, lay = parts[-3], parts[-2]
            cfg = json.load(t.extractfile(m))
            tsv = files[name[: -len("config.json")] + "tensors.tsv"]
            ts = []
            for line in io.TextIOWrapper(t.extractfile(tsv), encoding="utf-8"):
                n, dt, shape = line.rstrip("\n").split("\t")
                ts.append((n, dt, [int(d) for d in shape.strip("[]").split(",") if d.strip()]))
            out[(arch, lay)] = (cfg, ts)
    return out


def convert(cfg, tensors, tmp):
    hparams = dict(DEFAULTS.get(cfg.get("model_type"), {}))
    hparams.update(as_published(cfg))
    arch = hparams["architectures"][0]
    cls = conv.ModelBase.from_model_architecture(ALIASES.get(arch, arch), conv.ModelType.TEXT)
    model = cls(tmp, gguf.LlamaFileType.MOSTLY_F16, tmp / "out.gguf", hparams=hparams, eager=True)
    # A vocabulary of vocab_size tokens, where a converter reads the
    # tokenizer (Gemma 3 trims the embedding to it).
    model._create_vocab_sentencepiece = lambda: ([b"t"] * hparams["vocab_size"], [], [])
    # What prepare_tensors does before writing, without the data.
    written = []
    for name, _, shape in tensors:
        if name.endswith((".attention.masked_bias", ".attention.bias", ".rotary_emb.inv_freq")):
            continue
        t = torch.empty(shape, dtype=torch.float32, device="meta")
        bid = next((int(p) for p in name.split(".") if p.isdecimal()), None)
        for new_name, out in model.modify_tensors(t, name, bid):
            written.append((new_name, list(reversed(out.shape))))
    for new_name, out in model.generate_extra_tensors():
        written.append((new_name, list(reversed(out.shape))))
    model.set_gguf_parameters()
    kvs = []
    for key, v in model.gguf_writer.kv_data[0].items():
        if isinstance(v.value, bool):
            kvs.append((key, int(v.value)))
        elif isinstance(v.value, int):
            kvs.append((key, v.value))
    return gguf.MODEL_ARCH_NAMES[model.model_arch], kvs, written, hparams["vocab_size"]


def main():
    import pathlib
    import tempfile
    lays = layouts(sys.argv[1])
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        for arch, which in CASES.items():
            for lay in which:
                cfg, ts = lays[(arch, lay)]
                try:
                    name, kvs, written, vocab = convert(cfg, ts, tmp)
                except Exception as e:  # the converter refuses this config
                    print(f"# {arch}/{lay}: llama.cpp's converter fails: {type(e).__name__}: {e}".replace("\n", " "))
                    continue
                print(f"case {arch}/{lay} {name}")
                print(f"vocab {vocab}")
                for k, v in kvs:
                    print(f"kv {k} {v}")
                for n, ne in written:
                    print(f"tensor {n} {','.join(str(d) for d in ne)}")
                print("end")


if __name__ == "__main__":
    main()
