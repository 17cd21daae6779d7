//go:build !purego

package adapter

import "golang.org/x/sys/cpu"

// haveAVX2 selects the AVX2 kernel of rowCombine.
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// combineAVX2 sets dst[j] = Σₖ l[k]·right[k·stride+j] for j < n, n a
// multiple of 8 and rank ≥ 1.
//
//go:noescape
func combineAVX2(dst *float32, n int, l *float32, rank int, right *float32, stride int)
