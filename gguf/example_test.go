package gguf_test

import (
	"fmt"

	"github.com/fsmount/fsmount/gguf"
	"github.com/fsmount/fsmount/tensor"
)

func Example() {
	f, err := gguf.Open("testdata/llama-2-tiny-random.gguf")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	fmt.Println(f.Architecture(), len(f.Tensors()), "tensors,", f.ParameterCount(), "parameters")
	ctx, _ := f.Lookup("llama.context_length")
	fmt.Println("context", ctx)
	emb := f.Tensor("token_embd.weight")
	fmt.Println(emb.Name, emb.DType, tensor.FormatShape(emb.Shape))
	hf, _ := gguf.HFName(f.Architecture(), emb.Name)
	fmt.Println("from", hf)
	// Output:
	// llama 12 tensors, 513048 parameters
	// context 4096
	// token_embd.weight F16 [32000, 8]
	// from model.embed_tokens.weight
}
