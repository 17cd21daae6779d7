package adapter_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/adapter"
)

// An adapter over HTTP (Range requests, as from the Hub) reads as a local
// one; IsAdapter makes no request for it.
func TestOpenHTTP(t *testing.T) {
	dir := realDir(t, "phuongsky")
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	assert.False(t, adapter.IsAdapter(srv.URL+"/"))
	assert.True(t, adapter.IsRemote(srv.URL+"/"))
	a, err := adapter.Open(srv.URL+"/", nil)
	require.NoError(t, err)
	defer a.Close()
	local := check(t, dir, "")
	r := adapter.Check(a, nil, "no base")
	assert.Empty(t, problemNames(r))
	assert.Equal(t, local.Params, r.Params)
	require.Len(t, r.Modules, 6)
	d, err := r.Modules[0].Delta()
	require.NoError(t, err)
	ld, err := local.Modules[0].Delta()
	require.NoError(t, err)
	row, lrow := make([]float32, d.Cols), make([]float32, ld.Cols)
	d.Row(7, 0, row)
	ld.Row(7, 0, lrow)
	assert.Equal(t, lrow, row)
}
