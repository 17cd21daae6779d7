package spec_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
)

// The reference layouts: for each architecture transformers 4.57.6 can
// build, what its save_pretrained writes for the default config (a), a
// config with every dimension changed (b) and, where transformers 5.x
// writes otherwise, a-v5 (testdata/layouts-README.md says how they were
// made). testdata/layouts-pending.txt lists the architectures without a
// full spec yet.
const (
	layoutsArchive = "testdata/layouts.tar.gz"
	layoutsPending = "testdata/layouts-pending.txt"
)

// structuralBlind are the pending architectures whose dropped-tensor
// mutant the structural check cannot see, and why: they need their spec
// (none now: BLT and Zamba2, the two there were, have theirs).
var structuralBlind = map[string]string{}

func readLayouts(t *testing.T) []testmodel.RefLayout {
	t.Helper()
	ls, err := testmodel.ReadLayouts(layoutsArchive)
	require.NoError(t, err)
	require.Greater(t, len(ls), 350)
	return ls
}

func readPending(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open(layoutsPending)
	require.NoError(t, err)
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			out[line] = true
		}
	}
	require.NoError(t, sc.Err())
	return out
}

func checkLayout(t *testing.T, config []byte, ts []testmodel.Tensor) *check.Report {
	t.Helper()
	m, err := testmodel.OpenHeaderOnly(config, ts)
	return testmodel.CheckOpened(t, m, err)
}

var layerIndex = regexp.MustCompile(`\.(\d+)\.`)

// dimChanged is ts with tensor i's first dimension one larger (a scalar
// made [2]), ts itself unchanged.
func dimChanged(ts []testmodel.Tensor, i int) []testmodel.Tensor {
	changed := slices.Clone(ts)
	changed[i].Shape = slices.Clone(changed[i].Shape)
	if len(changed[i].Shape) == 0 {
		changed[i].Shape = []uint64{2}
	} else {
		changed[i].Shape[0]++
	}
	return changed
}

// middleLayerTensor picks a tensor of the middle layer of the given
// stack or else of the one with most layered tensors, or the middle
// tensor.
func middleLayerTensor(ts []testmodel.Tensor, stack string) int {
	counts := map[string]int{}
	maxIndex := map[string]int{}
	for _, x := range ts {
		if m := layerIndex.FindStringSubmatchIndex(x.Name); m != nil {
			stack := x.Name[:m[0]]
			counts[stack]++
			i, _ := strconv.Atoi(x.Name[m[2]:m[3]])
			maxIndex[stack] = max(maxIndex[stack], i)
		}
	}
	best := ""
	for s, n := range counts {
		if n > counts[best] || n == counts[best] && s < best {
			best = s
		}
	}
	if stack != "" {
		best = stack
	}
	if best == "" {
		return len(ts) / 2
	}
	mid := fmt.Sprintf("%s.%d.", best, (maxIndex[best]+1)/2)
	for i, x := range ts {
		if strings.HasPrefix(x.Name, mid) && len(x.Shape) > 0 {
			return i
		}
	}
	return len(ts) / 2
}

func problemNames(r *check.Report) []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, p.Tensor)
	}
	return out
}

// TestLayouts: every reference layout of an architecture with a spec
// checks clean, and three mutants of it — a middle layer's tensor
// dropped, one dimension changed, an unexpected tensor added — fail,
// naming the tensor. An architecture without a spec (pending) must pass
// the structural check, and the dropped tensor must fail it.
func TestLayouts(t *testing.T) {
	pending := readPending(t)
	seen := map[string]bool{}
	full := map[string]int{}
	var mu sync.Mutex
	// The layouts run in parallel: faster, and the families' lazy
	// compilation is raced as a mount's concurrent lookups would.
	t.Run("layouts", func(t *testing.T) {
		for _, l := range readLayouts(t) {
			seen[l.Arch] = true
			t.Run(l.Arch+"/"+l.Variant, func(t *testing.T) {
				t.Parallel()
				r := checkLayout(t, l.Config, l.Tensors)
				if pending[l.Arch] {
					require.True(t, r.Plan == nil, "%s has a spec now: delete it from %s", l.Arch, layoutsPending)
					assert.Empty(t, problemNames(r), "structural check of a valid layout:\n%s", r.Verdict())
				} else {
					require.NotNil(t, r.Plan, r.Skipped)
					require.True(t, r.Clean(), r.Verdict())
					mu.Lock()
					full[l.Arch]++
					mu.Unlock()
				}
				main := ""
				if pending[l.Arch] {
					require.NotNil(t, r.Structure)
					if why, ok := structuralBlind[l.Arch]; ok {
						t.Skipf("structural check cannot see the mutant: %s", why)
					}
					require.NotEmpty(t, r.Structure.Main, "the stack of L layers")
					main = r.Structure.Main
				}
				mid := middleLayerTensor(l.Tensors, main)
				victim := l.Tensors[mid]
				dropped := slices.Delete(slices.Clone(l.Tensors), mid, mid+1)
				r = checkLayout(t, l.Config, dropped)
				assert.Contains(t, problemNames(r), victim.Name, "dropped %s:\n%s", victim.Name, r.Verdict())
				if pending[l.Arch] {
					return
				}
				r = checkLayout(t, l.Config, dimChanged(l.Tensors, mid))
				assert.Contains(t, problemNames(r), victim.Name, "dim 0 of %s changed:\n%s", victim.Name, r.Verdict())
				for _, p := range r.Problems {
					if p.Tensor == victim.Name {
						assert.Equal(t, check.Misshaped, p.Kind)
					}
				}
				extra := strings.TrimSuffix(victim.Name, ".weight") + "_extra.weight"
				added := append(slices.Clone(l.Tensors), testmodel.Tensor{Name: extra, DType: victim.DType, Shape: []uint64{7}})
				r = checkLayout(t, l.Config, added)
				assert.Contains(t, problemNames(r), extra, r.Verdict())
			})
		}
	})
	for p := range pending {
		assert.True(t, seen[p], "%s in %s is no layout", p, layoutsPending)
	}
	for p := range structuralBlind {
		assert.True(t, pending[p], "%s has a spec now: delete it from structuralBlind", p)
	}
	t.Logf("fully checked: %d architectures, %d layouts", len(full), func() int {
		n := 0
		for _, v := range full {
			n += v
		}
		return n
	}())
}

func realworld(parts ...string) string {
	return filepath.Join(append([]string{repo, "testdata", "realworld"}, parts...)...)
}

func TestMoEDenseAndSparseBlocks(t *testing.T) {
	cfg, err := spec.ParseConfig("c", []byte(`{"architectures":["Qwen3MoeForCausalLM"],"vocab_size":10,"hidden_size":8,
		"num_hidden_layers":4,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"intermediate_size":16,
		"num_experts":4,"moe_intermediate_size":4,"num_experts_per_tok":2,"decoder_sparse_step":2,"mlp_only_layers":[3]}`))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	// Sparse iff i not in mlp_only_layers and (i+1) % step == 0: only 1.
	require.Len(t, p.Blocks, 2)
	assert.Equal(t, spec.BlockKind{Name: "dense", Layers: []int{0, 2, 3}, Prefix: "model.layers.0."}, p.Blocks[0])
	assert.Equal(t, spec.BlockKind{Name: "sparse", Layers: []int{1}, Prefix: "model.layers.1."}, p.Blocks[1])
	names := map[string]bool{}
	for _, e := range p.Tensors {
		names[e.Name] = true
	}
	assert.True(t, names["model.layers.1.mlp.experts.3.down_proj.weight"])
	assert.True(t, names["model.layers.1.mlp.gate.weight"])
	assert.False(t, names["model.layers.3.mlp.gate.weight"])
	assert.True(t, names["model.layers.3.mlp.up_proj.weight"])
}

// TestRealConfigParams derives the expected set from real configs: the
// logical parameter counts are the model cards' figures.
func TestRealConfigParams(t *testing.T) {
	for _, c := range []struct {
		dir    string
		params uint64
		label  string
	}{
		{"Qwen3-4B", 4_022_468_096, "4.0B"},
		{"Qwen3-8B", 8_190_735_360, "8.2B"},
		{"Qwen2.5-0.5B", 494_032_768, "0.5B"},
		{"Llama-3.2-1B/lf-normalized", 1_235_814_400, "1.2B"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			cfg, err := testmodel.LoadConfig(realworld(c.dir, "config.json"))
			require.NoError(t, err)
			p, err := spec.Expect(cfg)
			require.NoError(t, err)
			var n uint64
			for _, e := range p.Tensors {
				if !e.Optional {
					k := uint64(1)
					for _, v := range e.ShapeValues() {
						k *= v
					}
					n += k
				}
			}
			assert.Equal(t, c.params, n)
			assert.Equal(t, c.label, check.SizeLabel(n))
		})
	}
}
