package layout_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/testmodel"
)

func TestEscapeRoundTrip(t *testing.T) {
	for _, n := range append(testmodel.HostileNames, "model.layers.0.self_attn.q_proj.weight", strings.Repeat("%", 300)) {
		comps := layout.Escape(n)
		for _, c := range comps {
			assert.LessOrEqual(t, len(c), 255)
			assert.NotContains(t, c, "/")
			assert.NotContains(t, c, "\x00")
			for i := 0; i < len(c); i++ {
				assert.False(t, c[i] < 0x20 || c[i] == 0x7f, "control byte %#x in %q", c[i], c)
			}
			assert.NotContains(t, []string{"", ".", ".."}, c)
			assert.False(t, layout.Reserved(c), c)
		}
		back, err := layout.Unescape(comps)
		require.NoError(t, err)
		assert.Equal(t, n, back)
	}
}

func TestTensorPathsUnique(t *testing.T) {
	paths := layout.Tensors(testmodel.HostileNames, nil)
	seen := map[string]string{}
	for n, p := range paths {
		k := strings.Join(p, "/")
		if other, dup := seen[k]; dup {
			t.Errorf("%q and %q share path %q", n, other, k)
		}
		seen[k] = n
	}
	assert.Equal(t, []string{"layers", "0", "self_attn", "q_proj"}, layout.Tensors([]string{"model.layers.0.self_attn.q_proj.weight"}, nil)["model.layers.0.self_attn.q_proj.weight"])
	assert.Equal(t, []string{"layers", "0", "self_attn", "q_proj", "bias"}, layout.Tensors([]string{"model.layers.0.self_attn.q_proj.bias"}, nil)["model.layers.0.self_attn.q_proj.bias"])
	assert.Equal(t, []string{"lm_head", "%77eight"}, paths["lm_head.weight"], "collision spelled out")
	assert.Equal(t, []string{"%6Dodel", "lm_head", "%77eight"}, paths["model.lm_head.weight"])
}

// hfNames maps GGUF-style names as model.Names does.
type hfNames map[string]string

func (h hfNames) HF(n string) (string, bool) {
	v, ok := h[n]
	return v, ok
}

// TestTensorsHF: a name with a Hugging Face name is laid out under it.
func TestTensorsHF(t *testing.T) {
	got := layout.Tensors([]string{"blk.0.attn_q.weight", "odd"}, hfNames{"blk.0.attn_q.weight": "model.layers.0.self_attn.q_proj.weight"})
	assert.Equal(t, []string{"layers", "0", "self_attn", "q_proj"}, got["blk.0.attn_q.weight"])
	assert.Equal(t, []string{"odd"}, got["odd"])
}

// TestTensorPathsFastPath: a path written straight from the name (no
// part to escape) is the one the escaping of each part gives, and names
// with a reserved, empty, long or escaped part, or colliding, agree with
// the rule spelled out part by part (slowPaths).
func TestTensorPathsFastPath(t *testing.T) {
	names := append([]string{
		"model.layers.0.self_attn.q_proj.weight", "model.layers.0.mlp.experts.17.down_proj.weight",
		"lm_head.weight", "model.layers.1.shape", "model.layers.1.verdict.weight", "model.layers..x",
		"model.layers.2." + strings.Repeat("w", 300), "a.b%c.d", "model.norm", "x.lora.weight", "model.stats",
	}, testmodel.HostileNames...)
	paths := layout.TensorPaths(names, nil)
	assert.Equal(t, slowPaths(names), paths)
	// Sorted, reversed, and with a name twice (a GGUF name and its Hugging
	// Face name may meet): the small map of keys serves sorted unique
	// names only, the others count every key.
	sorted := slices.Sorted(slices.Values(names))
	assert.Equal(t, slowPaths(sorted), layout.TensorPaths(sorted, nil))
	slices.Reverse(sorted)
	assert.Equal(t, slowPaths(sorted), layout.TensorPaths(sorted, nil))
	twice := []string{"model.a.weight", "model.b.weight", "model.a.weight", "model.c"}
	assert.Equal(t, slowPaths(twice), layout.TensorPaths(twice, nil))
	assert.Equal(t, "%6Dodel/a/%77eight", layout.TensorPaths(twice, nil)[0])
	sdAndOther := []string{"model.a.weight", "model.b.weight", "b", "model.c.weight", "c.weight"}
	assert.Equal(t, slowPaths(sdAndOther), layout.TensorPaths(sdAndOther, nil))
	assert.Equal(t, []string{"a", "%6Dodel/b/%77eight", "b", "%6Dodel/c/%77eight", "c/%77eight"}, layout.TensorPaths(sdAndOther, nil))
	assert.Equal(t, "layers/1/%73hape", paths[3])
	assert.Equal(t, "layers/1/%76erdict", paths[4])
	assert.Equal(t, "layers/%/x", paths[5])
}

// slowPaths is the package comment's rule, part by part.
func slowPaths(names []string) []string {
	key := func(n string) (string, bool, bool) {
		rest, stripped := strings.CutPrefix(n, "model.")
		k, drop := strings.CutSuffix(rest, ".weight")
		return k, stripped, drop
	}
	count := map[string]int{}
	for _, n := range names {
		k, _, _ := key(n)
		count[k]++
	}
	var out []string
	for _, n := range names {
		k, stripped, drop := key(n)
		collides := count[k] > 1 && (stripped || drop)
		var comps []string
		if collides && stripped {
			comps = append(comps, "%6Dodel")
		}
		for p := range strings.SplitSeq(k, ".") {
			comps = append(comps, layout.Escape(p)...)
		}
		if collides && drop {
			comps = append(comps, "%77eight")
		}
		out = append(out, strings.Join(comps, "/"))
	}
	return out
}
