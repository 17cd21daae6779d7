//go:build !amd64 || purego

package render

// fold16Vector takes no columns where there is no vector kernel:
// fold16Cols folds them all.
func fold16Vector(S []int16, U []uint16, k []uint16, rows int) int { return 0 }
