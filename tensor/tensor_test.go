package tensor

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFormatIndex(t *testing.T) {
	for _, tt := range []struct {
		i     uint64
		shape []uint64
		want  string
	}{
		{0, []uint64{3, 4}, "[0, 0]"},
		{7, []uint64{3, 4}, "[1, 3]"},
		{23, []uint64{2, 3, 4}, "[1, 2, 3]"},
		{5, []uint64{8}, "[5]"},
		{0, nil, "0"},
		{3, []uint64{0, 4}, "[0, 3]"}, // an empty dimension is skipped, as no element indexes it
	} {
		assert.Equal(t, tt.want, FormatIndex(tt.i, tt.shape), "%d of %v", tt.i, tt.shape)
	}
}
