package spec_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/stretchr/testify/require"
)

// TestCodecWeightNormNames: a weight-normed codec saved by torch before
// its parametrizations (weight_g, weight_v: the Hub's EnCodec
// checkpoints) checks as fully as transformers' own layout, and a
// mutant of it fails.
func TestCodecWeightNormNames(t *testing.T) {
	ls, err := testmodel.ReadLayouts("testdata/fuzz-layouts-codec.tar.gz")
	require.NoError(t, err)
	n := 0
	for _, l := range ls {
		if !strings.Contains(l.Arch, "encodec_") {
			continue
		}
		ts := slices.Clone(l.Tensors)
		renamed := 0
		for i := range ts {
			name := ts[i].Name
			name = strings.Replace(name, ".parametrizations.weight.original0", ".weight_g", 1)
			name = strings.Replace(name, ".parametrizations.weight.original1", ".weight_v", 1)
			if name != ts[i].Name {
				renamed++
			}
			ts[i].Name = name
		}
		if renamed == 0 {
			continue // group-normed: no weight norm
		}
		n++
		r := checkLayout(t, l.Config, ts)
		require.True(t, r.FullyClean(), "%s/%s:\n%s", l.Arch, l.Variant, r.Verdict())
		checkMutants(t, testmodel.RefLayout{Arch: l.Arch, Variant: l.Variant, Config: l.Config, Tensors: ts})
	}
	require.Greater(t, n, 4)
}
