//go:build !purego

package compare

import "golang.org/x/sys/cpu"

// haveAVX2 selects the AVX2 kernel of BF16 pairs (kernel_amd64.s).
//
// Its gain, measured on the development machine (2 cores, shared, three
// runs each, medians) with
//
//	go test ./internal/compare -run XXX -bench KernelBF16 -count 3
//
// is 6.5× the scalar path of the same run (1,172 MB/s against 179 MB/s
// of BF16 pairs). With -tags purego the scalar path serves every pair.
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasPOPCNT

//go:noescape
func sumBF16AVX2(a, b *byte, groups int, acc *[6][4]float64, differ *uint64) int
