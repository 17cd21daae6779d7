package testmodel

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// TinyQwen3Config is a Qwen3 config.json in the shape of the real
// Qwen3-0.6B one, scaled down: head_dim (16) differs from H/heads (8) as it
// does in the real model, GQA group 2, tied embeddings.
const TinyQwen3Config = `{
  "architectures": [
    "Qwen3ForCausalLM"
  ],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 1,
  "eos_token_id": 2,
  "head_dim": 16,
  "hidden_act": "silu",
  "hidden_size": 32,
  "initializer_range": 0.02,
  "intermediate_size": 64,
  "max_position_embeddings": 512,
  "max_window_layers": 2,
  "model_type": "qwen3",
  "num_attention_heads": 4,
  "num_hidden_layers": 2,
  "num_key_value_heads": 2,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 128
}
`

// Qwen3Tensors returns the Qwen3 tensor set for the given sizes, with
// lm_head last when withHead is set; all BF16, no data.
func Qwen3Tensors(V, H, L, nh, nkv, hd, I uint64, withHead bool) []Tensor {
	ts := []Tensor{{Name: "model.embed_tokens.weight", DType: "BF16", Shape: []uint64{V, H}}}
	for l := uint64(0); l < L; l++ {
		p := fmt.Sprintf("model.layers.%d.", l)
		add := func(name string, shape ...uint64) {
			ts = append(ts, Tensor{Name: p + name, DType: "BF16", Shape: shape})
		}
		add("input_layernorm.weight", H)
		add("self_attn.q_proj.weight", nh*hd, H)
		add("self_attn.k_proj.weight", nkv*hd, H)
		add("self_attn.v_proj.weight", nkv*hd, H)
		add("self_attn.q_norm.weight", hd)
		add("self_attn.k_norm.weight", hd)
		add("self_attn.o_proj.weight", H, nh*hd)
		add("post_attention_layernorm.weight", H)
		add("mlp.gate_proj.weight", I, H)
		add("mlp.up_proj.weight", I, H)
		add("mlp.down_proj.weight", H, I)
	}
	ts = append(ts, Tensor{Name: "model.norm.weight", DType: "BF16", Shape: []uint64{H}})
	if withHead {
		ts = append(ts, Tensor{Name: "lm_head.weight", DType: "BF16", Shape: []uint64{V, H}})
	}
	return ts
}

// TinyQwen3Tensors returns the tensors of the tiny model, filled with
// finite bf16 values; lm_head is a byte copy of embed_tokens, as in the
// real Qwen3-0.6B.
func TinyQwen3Tensors() []Tensor {
	ts := Qwen3Tensors(128, 32, 2, 4, 2, 16, 64, true)
	for i := range ts {
		ts[i].Data = FillBF16(1, ts[i].Name, NBytes(ts[i].DType, ts[i].Shape))
	}
	ts[len(ts)-1].Data = ts[0].Data
	return ts
}

// WriteModelDir writes config.json and model.safetensors into dir.
func WriteModelDir(dir, config string, tensors []Tensor) error {
	return writeDir(dir, "config.json", config, "model.safetensors", tensors)
}

// writeDir writes a config and one safetensors file of tensors into dir,
// made if need be.
func writeDir(dir, configName, config, weightsName string, tensors []Tensor) error {
	if err := writeInto(dir, configName, []byte(config)); err != nil {
		return err
	}
	return WriteFile(filepath.Join(dir, weightsName), tensors, map[string]string{"format": "pt"}, 0)
}

// writeInto writes b as dir/name, making dir first.
func writeInto(dir, name string, b []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), b, 0o644)
}

// ReadListing reads a tensor listing in the format of
// realworld/Qwen3-0.6B/model.safetensors.tensor-listing.tsv: a header
// line, then name, dtype, shape ("[a,b]"), begin, end, nbytes.
func ReadListing(path string) ([]Entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Entry
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for line, text := range lines {
		if line == 0 {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) < 5 {
			return nil, fmt.Errorf("%s:%d: %d columns", path, line+1, len(cols))
		}
		e := Entry{Name: cols[0], DType: cols[1]}
		for _, d := range strings.Split(strings.Trim(cols[2], "[]"), ",") {
			if d == "" {
				continue
			}
			v, err := strconv.ParseUint(strings.TrimSpace(d), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: shape: %v", path, line+1, err)
			}
			e.Shape = append(e.Shape, v)
		}
		for i, c := range cols[3:5] {
			if e.Offsets[i], err = strconv.ParseUint(c, 10, 64); err != nil {
				return nil, fmt.Errorf("%s:%d: offset: %v", path, line+1, err)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// WriteSparseModel writes config.json (copied from configPath) and a
// sparse model.safetensors with the listing's header into dir.
func WriteSparseModel(dir, listingPath, configPath string) error {
	entries, err := ReadListing(listingPath)
	if err != nil {
		return err
	}
	cfg, err := os.ReadFile(configPath)
	if err != nil {
		return err
	}
	if err := writeInto(dir, "config.json", cfg); err != nil {
		return err
	}
	return WriteSparse(filepath.Join(dir, "model.safetensors"), entries, map[string]string{"format": "pt"})
}

// WriteDenseModel is WriteSparseModel with every byte of the data section
// written: random bytes, except that lm_head.weight repeats the bytes of
// model.embed_tokens.weight, as in the real tied model. The data is
// streamed; memory use does not grow with the model.
func WriteDenseModel(dir, listingPath, configPath string) error {
	if err := WriteSparseModel(dir, listingPath, configPath); err != nil {
		return err
	}
	path := filepath.Join(dir, "model.safetensors")
	entries, err := ReadListing(listingPath)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var prefix [8]byte
	if _, err := f.ReadAt(prefix[:], 0); err != nil {
		return err
	}
	start := int64(8 + binary.LittleEndian.Uint64(prefix[:]))
	var emb, head *Entry
	for i := range entries {
		switch entries[i].Name {
		case "model.embed_tokens.weight":
			emb = &entries[i]
		case "lm_head.weight":
			head = &entries[i]
		}
	}
	const chunk = 4 << 20
	for _, e := range entries {
		if head != nil && emb != nil && e.Name == head.Name {
			continue
		}
		for off := e.Offsets[0]; off < e.Offsets[1]; off += chunk {
			n := min(chunk, e.Offsets[1]-off)
			buf := Fill(off, e.Name, n)
			if _, err := f.WriteAt(buf, start+int64(off)); err != nil {
				return err
			}
			if emb != nil && head != nil && e.Name == emb.Name {
				if _, err := f.WriteAt(buf, start+int64(head.Offsets[0]+off-emb.Offsets[0])); err != nil {
					return err
				}
			}
		}
	}
	return f.Close()
}

// WriteSparseShards writes, into dir, one sparse shard per file named in
// weightMap, each holding the tensors mapped to it with the dtype and
// shape that entry gives, over a hole. It returns the tensor bytes in all.
func WriteSparseShards(dir string, weightMap map[string]string, entry func(name string) (dtype string, shape []uint64)) (uint64, error) {
	byShard := map[string][]string{}
	for name, shard := range weightMap {
		byShard[shard] = append(byShard[shard], name)
	}
	var total uint64
	for shard, names := range byShard {
		sort.Strings(names)
		entries := make([]Entry, len(names))
		var off uint64
		for i, n := range names {
			dt, shape := entry(n)
			nb := NBytes(dt, shape)
			entries[i] = Entry{Name: n, DType: dt, Shape: shape, Offsets: [2]uint64{off, off + nb}}
			off += nb
		}
		total += off
		if err := WriteSparse(filepath.Join(dir, shard), entries, map[string]string{"format": "pt"}); err != nil {
			return 0, err
		}
	}
	return total, nil
}
