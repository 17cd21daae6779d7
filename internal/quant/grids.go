package quant

import (
	_ "embed"
	"encoding/binary"
)

// The lookup grids of ggml's IQ1, IQ2 and IQ3 types. They are data, kept
// as data: grids.bin holds ggml's tables (ggml-common.h) one after another
// in the order below, each entry little-endian, as gengrids.go wrote them.
var (
	iq2xxsGrid [256]uint64  // ggml's iq2xxs_grid
	iq2xsGrid  [512]uint64  // ggml's iq2xs_grid
	iq2sGrid   [1024]uint64 // ggml's iq2s_grid
	iq3xxsGrid [256]uint32  // ggml's iq3xxs_grid
	iq3sGrid   [512]uint32  // ggml's iq3s_grid
	iq1sGrid   [2048]uint64 // ggml's iq1s_grid
)

//go:embed grids.bin
var gridsBin []byte

// gridsBytes is grids.bin's size: 8·(256+512+1024+2048) + 4·(256+512).
const gridsBytes = 8*(256+512+1024+2048) + 4*(256+512)

func init() {
	b := gridsBin
	if len(b) != gridsBytes {
		return // a broken build; TestGrids fails on it
	}
	for _, g := range [][]uint64{iq2xxsGrid[:], iq2xsGrid[:], iq2sGrid[:]} {
		for i := range g {
			g[i], b = binary.LittleEndian.Uint64(b), b[8:]
		}
	}
	for _, g := range [][]uint32{iq3xxsGrid[:], iq3sGrid[:]} {
		for i := range g {
			g[i], b = binary.LittleEndian.Uint32(b), b[4:]
		}
	}
	for i := range iq1sGrid {
		iq1sGrid[i], b = binary.LittleEndian.Uint64(b), b[8:]
	}
}
