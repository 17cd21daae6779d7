package numfmt

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCommas(t *testing.T) {
	assert.Equal(t, "0", Commas(0))
	assert.Equal(t, "999", Commas(uint64(999)))
	assert.Equal(t, "1,000", Commas(int64(1000)))
	assert.Equal(t, "751,632,384", Commas(uint64(751632384)))
	assert.Equal(t, "-1,234", Commas(-1234))
	assert.Equal(t, "-123", Commas(int64(-123)))
	assert.Equal(t, "18,446,744,073,709,551,615", Commas(^uint64(0)))
	assert.Equal(t, "-9,223,372,036,854,775,808", Commas(int64(-1<<63)))
}
