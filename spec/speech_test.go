package spec_test

import (
	"strings"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/stretchr/testify/require"
)

// TestSpeechWeightNormNames: a checkpoint written before torch's
// parametrizations names the positional convolution's weight norm
// weight_g/weight_v; it checks as fully as the parametrizations layout,
// for every family of the wav2vec2 lineage that has the convolution, and
// a dropped weight_v still fails naming it.
func TestSpeechWeightNormNames(t *testing.T) {
	ls, err := testmodel.ReadLayouts(layoutsMoreArchive)
	require.NoError(t, err)
	n := 0
	for _, l := range ls {
		if l.Variant != "b" || !strings.HasSuffix(l.Arch, "ForCTC") {
			continue
		}
		var old []testmodel.Tensor
		renamed := false
		for _, x := range l.Tensors {
			if strings.Contains(x.Name, "pos_conv_embed.conv.parametrizations.weight.original") {
				x.Name = strings.Replace(x.Name, "parametrizations.weight.original0", "weight_g", 1)
				x.Name = strings.Replace(x.Name, "parametrizations.weight.original1", "weight_v", 1)
				renamed = true
			}
			old = append(old, x)
		}
		if !renamed {
			continue
		}
		n++
		t.Run(l.Arch, func(t *testing.T) {
			r := checkLayout(t, l.Config, old)
			require.True(t, r.FullyClean(), "%s:\n%s", r.Skipped, r.Verdict())
			var dropped []testmodel.Tensor
			for _, x := range old {
				if !strings.HasSuffix(x.Name, "weight_v") {
					dropped = append(dropped, x)
				}
			}
			r = checkLayout(t, l.Config, dropped)
			require.False(t, r.FullyClean())
			require.Contains(t, r.Verdict(), "weight_v")
		})
	}
	require.GreaterOrEqual(t, n, 7, "CTC classes with a weight-normed positional convolution")
}
