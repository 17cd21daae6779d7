package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// An architecture without a spec gets the structural check whatever the
// format: the same tensors as safetensors and as a PyTorch .bin have the
// same verdict. The .bin used to be "listed, not checked" (exit 3 even
// with a layer missing).
func TestStructuralCheckEveryFormat(t *testing.T) {
	cases := []struct {
		name string
		drop string
		code int
		want string
	}{
		{"consistent", "", 3, "– structural check only: no spec for architecture FancyNetForCausalLM; its tensors are consistent: layers 0..1 (num_hidden_layers)"},
		{"a layer's tensor missing", "model.layers.1.mlp.up_proj.weight", 1, "model.layers.1.mlp.up_proj.weight"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, pt := testmodel.FancyNetFormats(t, c.drop)
			var outs []string
			for _, dir := range []string{st, pt} {
				r := runCmd(t, "fsinspect", dir)
				assert.Equal(t, c.code, r.code, dir+": "+r.stdout+r.stderr)
				assert.Contains(t, r.stdout, c.want, dir)
				assert.NotContains(t, r.stdout, "listed, not checked")
				outs = append(outs, verdictOf(r.stdout))
			}
			assert.Equal(t, outs[0], outs[1], "the same verdict for both formats")
		})
	}
}

// verdictOf is the report's verdict section.
func verdictOf(report string) string {
	if i := strings.Index(report, "── verdict"); i >= 0 {
		return report[i:]
	}
	return report
}
