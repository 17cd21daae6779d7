package spec_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/spec"
)

// TestMaskFormerUnmodelledBackbones: the MaskFormer lineage's configs
// whose backbone is not modelled are partly checked (exit 3), never
// checked against a wrong layout: no backbone_config (the class's
// default Swin), MaskFormer on a plain Swin config (transformers turns it
// into MaskFormer's Swin with four stages forced, other names than
// SwinBackbone's), a backbone without a spec.
func TestMaskFormerUnmodelledBackbones(t *testing.T) {
	for _, c := range []struct{ config, reason string }{
		{`{"model_type":"maskformer"}`, `backbone_config.model_type ""`},
		{`{"model_type":"maskformer","backbone_config":{"model_type":"swin","depths":[2,2,2,2],"num_heads":[1,2,4,8]}}`, `"swin"`},
		{`{"model_type":"mask2former"}`, "default backbone"},
		{`{"model_type":"oneformer","backbone_config":{"model_type":"dinat"}}`, `"dinat"`},
	} {
		cfg, err := spec.ParseConfig("config.json", []byte(c.config))
		require.NoError(t, err)
		_, err = spec.Expect(cfg)
		var ns *spec.NoSpecError
		require.ErrorAs(t, err, &ns, c.config)
		assert.Contains(t, ns.Reason, c.reason, c.config)
	}
}
