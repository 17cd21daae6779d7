package compare

import "golang.org/x/sys/cpu"

// haveAVX2 selects the AVX2 kernel of BF16 pairs.
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasPOPCNT

//go:noescape
func sumBF16AVX2(a, b *byte, groups int, acc *[6][4]float64, differ *uint64) int
