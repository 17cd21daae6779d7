package layout_test

import (
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
