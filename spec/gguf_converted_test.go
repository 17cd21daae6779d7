package spec_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
)

// convertedCase is one GGUF as llama.cpp's converter writes it from a
// reference layout: testdata/gguf-converted.txt, the output of
// testdata/gguf_convert.py, which runs llama.cpp's own converter classes
// (their renames by gguf-py's TensorNameMap, merges, splits, transposes,
// stacked experts, dropped tensors and metadata keys) on the tensors
// transformers' save_pretrained wrote. Nothing in it comes from fsmount.
type convertedCase struct {
	name, arch string
	vocab      int
	kvs        []testmodel.GGUFKV
	tensors    []testmodel.GGUFTensor
}

func readConverted(t *testing.T) []convertedCase {
	t.Helper()
	f, err := os.Open("testdata/gguf-converted.txt")
	require.NoError(t, err)
	defer f.Close()
	var out []convertedCase
	var c *convertedCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		switch fs[0] {
		case "case":
			require.Len(t, fs, 3, sc.Text())
			c = &convertedCase{name: fs[1], arch: fs[2]}
		case "vocab":
			c.vocab, err = strconv.Atoi(fs[1])
			require.NoError(t, err)
		case "kv":
			v, err := strconv.ParseUint(fs[2], 10, 32)
			require.NoError(t, err, sc.Text())
			c.kvs = append(c.kvs, testmodel.GGUFKV{Key: fs[1], Value: uint32(v)})
		case "tensor":
			g := testmodel.GGUFTensor{Name: fs[1], Type: 1} // F16
			n := uint64(2)
			for _, d := range strings.Split(fs[2], ",") {
				v, err := strconv.ParseUint(d, 10, 64)
				require.NoError(t, err, sc.Text())
				g.Dims = append(g.Dims, v)
				n *= v
			}
			g.Zeros = n
			c.tensors = append(c.tensors, g)
		case "end":
			out = append(out, *c)
		default:
			t.Fatalf("testdata/gguf-converted.txt: %q", sc.Text())
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// write writes the case's GGUF (the tensors sparse), its tensors edited.
func (c convertedCase) write(t *testing.T, edit func([]testmodel.GGUFTensor) []testmodel.GGUFTensor) string {
	t.Helper()
	toks := make([]string, c.vocab)
	for i := range toks {
		toks[i] = strconv.Itoa(i)
	}
	kvs := append([]testmodel.GGUFKV{{Key: "general.architecture", Value: c.arch}}, c.kvs...)
	kvs = append(kvs, testmodel.GGUFKV{Key: "tokenizer.ggml.tokens", Value: toks})
	ts := slices.Clone(c.tensors)
	if edit != nil {
		ts = edit(ts)
	}
	path := filepath.Join(t.TempDir(), "model.gguf")
	require.NoError(t, testmodel.WriteGGUF(path, kvs, ts))
	return path
}

// refusedByLlamaCpp are the reference layouts whose GGUF llama.cpp's own
// loader would refuse: the converter writes metadata its tensors disagree
// with. The check must find exactly those tensors mis-shaped.
var refusedByLlamaCpp = map[string]struct {
	why     string
	tensors []string // GGUF base names
}{
	"deepseek_v3/b": {"its config's qk_head_dim (192, which transformers sized q_b_proj by) is not qk_nope_head_dim + qk_rope_head_dim (40), which the converter writes", []string{"attn_q_b"}},
	"falcon/b":      {"ffn_hidden_size is 736; the converter writes feed_forward_length 4·hidden_size", []string{"ffn_up", "ffn_down"}},
	"glm/b":         {"head_dim is 48, not hidden_size / heads (32); the converter writes no key_length, so llama.cpp takes 32", []string{"attn_q", "attn_k", "attn_v", "attn_output"}},
	"phi/b":         {"5 KV heads of 10 and intermediate_size 736; the converter writes head_count_kv = head_count and feed_forward_length 4·hidden_size", []string{"attn_k", "attn_v", "ffn_up", "ffn_down"}},
}

// TestGGUFConverted checks each GGUF llama.cpp's converter writes from
// the reference layouts: fully checked and clean; with a tensor of a
// middle layer dropped, a problem naming it; with one of its dimensions
// changed, a problem naming it. A GGUF llama.cpp itself would refuse has
// exactly the tensors it would refuse mis-shaped.
func TestGGUFConverted(t *testing.T) {
	cases := readConverted(t)
	require.NotEmpty(t, cases)
	var refused atomic.Int32
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				r := checkGGUF(t, c.write(t, nil))
				require.Equal(t, spec.DepthFull, r.Depth, "%s: %s", c.arch, r.Skipped)
				if bad, ok := refusedByLlamaCpp[c.name]; ok {
					refused.Add(1)
					require.NotEmpty(t, r.Problems, bad.why)
					for _, p := range r.Problems {
						assert.Equal(t, spec.Misshaped, p.Kind, p.Detail)
						_, rest, _ := strings.Cut(p.Tensor, ".")
						_, rest, _ = strings.Cut(rest, ".")
						base, _, _ := strings.Cut(rest, ".")
						assert.Contains(t, bad.tensors, base, "%s (%s)", p.Detail, bad.why)
					}
					return
				}
				assert.True(t, r.FullyClean(), "%v", r.Problems)

				// A tensor of a middle layer: the first one after half the
				// tensors that belongs to a layer.
				mid := -1
				for i := len(c.tensors) / 2; i < len(c.tensors) && mid < 0; i++ {
					if strings.HasPrefix(c.tensors[i].Name, "blk.") {
						mid = i
					}
				}
				require.GreaterOrEqual(t, mid, 0)
				name := c.tensors[mid].Name
				r = checkGGUF(t, c.write(t, func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor { return slices.Delete(ts, mid, mid+1) }))
				require.Len(t, r.Problems, 1, "%v", r.Problems)
				assert.Equal(t, spec.Missing, r.Problems[0].Kind)
				assert.Equal(t, name, r.Problems[0].Tensor)

				r = checkGGUF(t, c.write(t, func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor {
					g := &ts[mid]
					g.Dims = slices.Clone(g.Dims)
					g.Dims[len(g.Dims)-1]++
					g.Zeros = g.Zeros / (g.Dims[len(g.Dims)-1] - 1) * g.Dims[len(g.Dims)-1]
					return ts
				}))
				require.NotEmpty(t, r.Problems)
				assert.Equal(t, spec.Misshaped, r.Problems[0].Kind, "%v", r.Problems)
				assert.Equal(t, name, r.Problems[0].Tensor, fmt.Sprint(r.Problems))
			})
		}
	})
	assert.Equal(t, len(refusedByLlamaCpp), int(refused.Load()), "a case of refusedByLlamaCpp is not in testdata/gguf-converted.txt")
}

// TestGGUFFullSizeDeepSeekV3 grows the converted DeepSeek-V3 layout (4
// layers of 8 experts) to the published model, 61 layers of 256 experts
// (the first 3 dense), as a sparse GGUF: its 1,086 tensors stand for
// 45,000 Hugging Face ones, 671B parameters, and check fully and clean
// (not refused as a config implying far more tensors than the files
// hold: each stacked tensor holds one per expert).
func TestGGUFFullSizeDeepSeekV3(t *testing.T) {
	i := slices.IndexFunc(readConverted(t), func(c convertedCase) bool { return c.name == "deepseek_v3/a" })
	require.GreaterOrEqual(t, i, 0)
	c := readConverted(t)[i]
	var ts []testmodel.GGUFTensor
	for _, g := range c.tensors {
		parts := strings.SplitN(g.Name, ".", 3)
		if parts[0] != "blk" {
			ts = append(ts, g)
			continue
		}
		l, err := strconv.Atoi(parts[1])
		require.NoError(t, err)
		from, to := l, l+1 // layers 0..2 dense, as they are
		switch {
		case l == 3:
			to = 61 // the sparse layer, repeated
		case l > 3:
			continue
		}
		for n := from; n < to; n++ {
			h := g
			h.Name = "blk." + strconv.Itoa(n) + "." + parts[2]
			if last := len(g.Dims) - 1; g.Dims[last] == 8 && (strings.Contains(h.Name, "_exps") || strings.Contains(h.Name, "ffn_gate_inp") || strings.Contains(h.Name, "exp_probs_b")) {
				h.Dims = append(slices.Clone(g.Dims[:last]), 256)
				h.Zeros = g.Zeros / 8 * 256
			}
			ts = append(ts, h)
		}
	}
	for i, kv := range c.kvs {
		switch kv.Key {
		case "deepseek2.block_count":
			c.kvs[i].Value = uint32(61)
		case "deepseek2.expert_count":
			c.kvs[i].Value = uint32(256)
		}
	}
	c.tensors = ts
	r := checkGGUF(t, c.write(t, nil))
	require.Equal(t, spec.DepthFull, r.Depth, r.Skipped)
	assert.True(t, r.FullyClean(), "%v", r.Problems)
	assert.Len(t, r.Plan.Tensors, 1086)
	assert.Equal(t, uint64(671_026_419_200), r.Logical)
}
