//go:build !amd64 || purego

package compare

// haveAVX2 is false without the assembly kernel (not amd64, or -tags
// purego): the scalar path serves every pair.
const haveAVX2 = false

func sumBF16AVX2(a, b *byte, groups int, acc *[6][4]float64, differ *uint64) int { return 0 }
