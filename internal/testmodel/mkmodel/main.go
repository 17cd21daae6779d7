// Command mkmodel writes the models the tests and benchmarks use.
//
//	mkmodel tiny DIR            the tiny Qwen3 of testdata/tiny-qwen3
//	mkmodel fancynet DIR        testdata/fancynet: the tiny model with 5 layers
//	                            as an architecture without a spec, layer 2's
//	                            mlp.up_proj missing (README's structural check)
//	mkmodel qwen3-0.6b DIR      the real Qwen3-0.6B header over a sparse file
//	mkmodel qwen3-0.6b-dense DIR  the same layout filled with random bytes
//	                             (1.5 GB; lm_head identical to embed_tokens)
//	mkmodel real:NAME DIR       testdata/realworld/NAME rebuilt as sparse shards
//	mkmodel adapter:tiny DIR    a LoRA adapter on the tiny model (q_proj, v_proj, r 4)
//	mkmodel adapter:0.6b DIR    a LoRA adapter on Qwen3-0.6B (every linear layer, r 16)
//	mkmodel base:NAME DIR       a header-only base of the real adapters in
//	                            testdata/adapters: llama-3.2-1b, gpt2, distilgpt2,
//	                            bloom-560m, distilbert, bert (shapes only, data a hole)
//	mkmodel dcp:tiny DIR        the tiny model as a 2-rank PyTorch Distributed
//	                            Checkpoint (FSDP rows, tensor-parallel columns,
//	                            Adam moments, a step), with its config.json
//	mkmodel layout:SRC DIR      a header-only model of a reference layout directory
//	                            (config.json, tensors.tsv, and any other .json copied)
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmount/fsmount/internal/testmodel"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mkmodel tiny|fancynet|qwen3-0.6b|qwen3-0.6b-dense|dcp:tiny|adapter:NAME|base:NAME|real:NAME|layout:SRC DIR")
		os.Exit(64)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "mkmodel:", err)
		os.Exit(1)
	}
}

func run(kind, dir string) error {
	root, err := testmodel.RepoRoot()
	if err != nil {
		return err
	}
	layout := filepath.Join(root, "testdata", "qwen3-0.6b-layout")
	switch kind {
	case "tiny":
		return testmodel.WriteTiny(dir, nil)
	case "fancynet":
		return testmodel.WriteFancyNet(dir)
	case "qwen3-0.6b":
		return testmodel.WriteSparse06B(dir)
	case "dcp:tiny":
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return testmodel.WriteTinyDCP(dir, nil)
	case "adapter:tiny":
		return testmodel.WriteAdapter(dir, testmodel.TinyAdapterConfig, testmodel.TinyAdapterTensors())
	case "adapter:0.6b":
		return testmodel.WriteAdapter(dir, testmodel.Qwen06BAdapterConfig, testmodel.Qwen06BAdapterTensors())
	case "qwen3-0.6b-dense":
		return testmodel.WriteDenseModel(dir, filepath.Join(layout, "model.safetensors.tensor-listing.tsv"), filepath.Join(layout, "config.json"))
	}
	if name, ok := strings.CutPrefix(kind, "base:"); ok {
		switch name {
		case "llama-3.2-1b":
			return testmodel.WriteLlamaBase(dir, filepath.Join(root, "testdata", "adapters", "bases", "Llama-3.2-1B", "config.json"))
		case "gpt2":
			return testmodel.WriteHeaderOnly(dir, testmodel.GPT2Config(12), testmodel.GPT2Tensors(12))
		case "distilgpt2":
			return testmodel.WriteHeaderOnly(dir, testmodel.GPT2Config(6), testmodel.GPT2Tensors(6))
		case "bloom-560m":
			return testmodel.WriteHeaderOnly(dir, testmodel.BloomConfig, testmodel.BloomTensors())
		case "distilbert":
			return testmodel.WriteHeaderOnly(dir, testmodel.DistilBERTConfig, testmodel.DistilBERTTensors())
		case "bert":
			return testmodel.WriteHeaderOnly(dir, testmodel.BERTConfig, testmodel.BERTTensors())
		}
		return fmt.Errorf("unknown base %q", name)
	}
	if src, ok := strings.CutPrefix(kind, "layout:"); ok {
		return testmodel.WriteLayoutDir(src, dir)
	}
	if name, ok := strings.CutPrefix(kind, "real:"); ok {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		_, err := testmodel.WriteRealSharded(dir, filepath.Join(root, "testdata", "realworld", name))
		return err
	}
	return fmt.Errorf("unknown kind %q", kind)
}
