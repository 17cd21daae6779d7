//go:build !purego

package render

// fold16Vector folds the columns of whole rows k that the SSE2 kernel
// takes (the leading multiple of 32) into S and U, and returns how many
// it took. SSE2 is part of amd64, so there is nothing to detect.
func fold16Vector(S []int16, U []uint16, k []uint16, rows int) int {
	w := len(S)
	n := w &^ 31
	if n == 0 || rows == 0 || len(U) < w || len(k) < rows*w {
		return 0
	}
	fold16SSE2(&S[0], &U[0], &k[0], n, w, rows)
	return n
}

// fold16SSE2 folds columns [0, cols) of rows rows of stride elements at
// k into S (signed maxima) and U (unsigned maxima), 32 columns at a time.
//
//go:noescape
func fold16SSE2(S *int16, U *uint16, k *uint16, cols, stride, rows int)
