package spec_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/stretchr/testify/require"
)

// TestAltShapes: OLMo Hybrid's q/k/v_conv1d as the original checkpoints
// split the fused conv (by the q, k and v widths) check clean with a
// note, as transformers 5.15's equal thirds do (the fuzz corpus); a file
// mixing the two writers fails on the tensor it gets wrong.
func TestAltShapes(t *testing.T) {
	ls, err := testmodel.ReadLayouts("testdata/fuzz-layouts-vlm8.tar.gz")
	require.NoError(t, err)
	i := slices.IndexFunc(ls, func(l testmodel.RefLayout) bool {
		return l.Arch == "olmo_hybrid_OlmoHybridForCausalLM" && l.Variant == "hand-2-v5"
	})
	require.GreaterOrEqual(t, i, 0)
	l := ls[i]
	// hand-2: 3 key heads of 7, 5 value heads of 11, kernel 3: the fused
	// conv is 97 wide, thirds of 33, 33, 31; the widths 21, 21, 55.
	widths := map[string]uint64{"q_conv1d": 21, "k_conv1d": 21, "v_conv1d": 55}
	thirds := map[string]uint64{"q_conv1d": 33, "k_conv1d": 33, "v_conv1d": 31}
	orig := slices.Clone(l.Tensors)
	n := 0
	for j, x := range orig {
		for k, w := range widths {
			if strings.HasSuffix(x.Name, "linear_attn."+k+".weight") {
				require.Equal(t, []uint64{thirds[k], 1, 3}, x.Shape, x.Name)
				orig[j].Shape = []uint64{w, 1, 3}
				n++
			}
		}
	}
	require.Greater(t, n, 3)
	r := checkLayout(t, l.Config, orig)
	require.True(t, r.FullyClean(), r.Verdict())
	require.True(t, slices.ContainsFunc(r.Notes, func(s string) bool { return strings.Contains(s, "original checkpoints") }), r.Notes)

	mixed := slices.Clone(l.Tensors)
	var victim string
	for j, x := range mixed {
		if strings.HasSuffix(x.Name, "linear_attn.q_conv1d.weight") {
			mixed[j].Shape, victim = []uint64{21, 1, 3}, x.Name
			break
		}
	}
	r = checkLayout(t, l.Config, mixed)
	require.Contains(t, problemNames(r), victim, r.Verdict())
	require.Len(t, r.Problems, 1, r.Verdict())
}

// TestQianfanOriginalNames: Qianfan-OCR as its original checkpoints
// name the language model's layers (language_model.model.layers., which
// 5.15 loads and saves back under encoder.layers.) checks clean, the
// VLM and its base model alike.
func TestQianfanOriginalNames(t *testing.T) {
	ls, err := testmodel.ReadLayouts("testdata/fuzz-layouts-vlm8.tar.gz")
	require.NoError(t, err)
	for _, c := range []struct{ arch, from, to string }{
		{"qianfan_ocr_QianfanOCRForConditionalGeneration", "language_model.model.encoder.layers.", "language_model.model.layers."},
		{"qianfan_ocr_QianfanOCRModel", "language_model.encoder.layers.", "language_model.layers."},
	} {
		i := slices.IndexFunc(ls, func(l testmodel.RefLayout) bool { return l.Arch == c.arch && l.Variant == "hand-2-v5" })
		require.GreaterOrEqual(t, i, 0, c.arch)
		l := ls[i]
		ts, n := slices.Clone(l.Tensors), 0
		for j := range ts {
			if rest, ok := strings.CutPrefix(ts[j].Name, c.from); ok {
				ts[j].Name, n = c.to+rest, n+1
			}
		}
		require.Greater(t, n, 5, c.arch)
		r := checkLayout(t, l.Config, ts)
		require.True(t, r.FullyClean(), "%s:\n%s", c.arch, r.Verdict())
	}
}
