package render

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFold16 checks fold16 (the vector kernel where there is one, and the
// loop for the other columns) against the definition, one element at a
// time, on widths around the kernel's 32 columns, with codes drawn to
// include NaNs, infinities, zeros of both signs and both orders' extremes.
func TestFold16(t *testing.T) {
	special := []uint16{0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7fff, 0xffff, 0x0001, 0x8001, 0x3f80, 0xbf80}
	rng := rand.New(rand.NewPCG(1, 2))
	code := func() uint16 {
		if rng.IntN(4) == 0 {
			return special[rng.IntN(len(special))]
		}
		return uint16(rng.Uint32())
	}
	for _, w := range []int{1, 7, 31, 32, 33, 63, 64, 96, 100, 1024, 1030} {
		for _, rows := range []int{1, 2, 7, 8, 9, 17, 148} {
			S, U := make([]int16, w), make([]uint16, w)
			for j := range S {
				S[j], U[j] = int16(code()), code()
			}
			k := make([]uint16, w*rows)
			for i := range k {
				k[i] = code()
			}
			wantS, wantU := append([]int16(nil), S...), append([]uint16(nil), U...)
			for i, c := range k {
				j := i % w
				wantS[j], wantU[j] = max(wantS[j], int16(c)), max(wantU[j], c)
			}
			fold16(S, U, k)
			require.Equal(t, wantS, S, "signed maxima, %d columns, %d rows", w, rows)
			require.Equal(t, wantU, U, "unsigned maxima, %d columns, %d rows", w, rows)
		}
	}
}

// TestFold16Vector: on amd64 the kernel takes every whole block of 32
// columns (so that the test above exercises it), elsewhere none.
func TestFold16Vector(t *testing.T) {
	S, U, k := make([]int16, 70), make([]uint16, 70), make([]uint16, 140)
	got := fold16Vector(S, U, k, 2)
	if fold16Vector(make([]int16, 32), make([]uint16, 32), make([]uint16, 32), 1) == 0 {
		t.Skip("no vector kernel on this build")
	}
	require.Equal(t, 64, got)
}
