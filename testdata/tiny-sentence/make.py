"""Writes tiny-sentence's sentence-transformers files around tiny-qwen3's
transformer (config.json and model.safetensors copied beside them): mean
pooling of the 32-wide hidden states, a Dense 32 -> 16 with bias and
tanh, then Normalize, as SentenceTransformer.save lays them out.
Plain Python: the safetensors header is written by hand."""
import json, os, random, struct

def save(path, tensors):
    header, blobs, off = {}, [], 0
    for name, (shape, vals) in sorted(tensors.items()):
        b = struct.pack("<%df" % len(vals), *vals)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))

def dump(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")

rnd = random.Random(31)
H, OUT = 32, 16
dump("modules.json", [
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
    {"idx": 3, "name": "3", "path": "3_Normalize", "type": "sentence_transformers.models.Normalize"},
])
dump("config_sentence_transformers.json", {"__version__": {"sentence_transformers": "3.4.1", "transformers": "4.51.0", "pytorch": "2.6.0"},
                                           "prompts": {}, "default_prompt_name": None, "similarity_fn_name": "cosine"})
dump("sentence_bert_config.json", {"max_seq_length": 512, "do_lower_case": False})
os.makedirs("1_Pooling", exist_ok=True)
dump("1_Pooling/config.json", {"word_embedding_dimension": H, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True,
                               "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False,
                               "pooling_mode_weightedmean_tokens": False, "pooling_mode_lasttoken": False, "include_prompt": True})
os.makedirs("2_Dense", exist_ok=True)
dump("2_Dense/config.json", {"in_features": H, "out_features": OUT, "bias": True, "activation_function": "torch.nn.modules.activation.Tanh"})
save("2_Dense/model.safetensors", {
    "linear.weight": ([OUT, H], [rnd.uniform(-0.2, 0.2) for _ in range(OUT * H)]),
    "linear.bias": ([OUT], [rnd.uniform(-0.1, 0.1) for _ in range(OUT)]),
})
os.makedirs("3_Normalize", exist_ok=True)
