package render

import (
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"image"
)

// A PNG here is the signature, IHDR, one IDAT and IEND: 8-bit RGB,
// filter 0 on every row, and a zlib stream of stored (uncompressed)
// deflate blocks, so that its size is a function of its dimensions alone.
const (
	pngSignature = "\x89PNG\r\n\x1a\n"
	storedMax    = 65535 // bytes of one stored deflate block
	chunkOver    = 12    // length, type and CRC of a chunk
	ihdrLen      = 13
)

// rawLen is the filtered image data: a filter byte and 3 bytes a pixel
// per row.
func rawLen(w, h int) int64 { return int64(h) * (1 + 3*int64(w)) }

// zlibLen is the zlib stream of n bytes in stored blocks: a 2-byte
// header, a 5-byte header per block (at least one) and the Adler-32.
func zlibLen(n int64) int64 {
	blocks := max(1, (n+storedMax-1)/storedMax)
	return 2 + n + 5*blocks + 4
}

// pngSize is the size in bytes of the PNG of a w×h picture as this
// package writes it.
func pngSize(w, h int) int64 {
	return int64(len(pngSignature)) + chunkOver + ihdrLen + chunkOver + zlibLen(rawLen(w, h)) + chunkOver
}

// encodePNG writes img (w, h ≥ 1) in exactly pngSize(w, h) bytes.
func encodePNG(img *image.RGBA) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := make([]byte, 0, pngSize(w, h))
	out = append(out, pngSignature...)

	var ihdr [ihdrLen]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // bit depth 8, colour type RGB; compression, filter, interlace 0
	out = pngChunk(out, "IHDR", ihdr[:])

	raw := rawLen(w, h)
	zlen := zlibLen(raw)
	start := len(out)
	out = binary.BigEndian.AppendUint32(out, uint32(zlen))
	out = append(out, "IDAT"...)
	out = append(out, 0x78, 0x01) // deflate, 32K window, no dictionary, fastest
	ad := adler32.New()
	var row []byte
	left := raw // bytes of raw data still to write
	inBlock := 0
	put := func(p []byte) {
		ad.Write(p)
		for len(p) > 0 {
			if inBlock == 0 {
				n := min(left, storedMax)
				final := byte(0)
				if left == n {
					final = 1
				}
				out = append(out, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
				inBlock = int(n)
			}
			k := min(inBlock, len(p))
			out = append(out, p[:k]...)
			p, inBlock, left = p[k:], inBlock-k, left-int64(k)
		}
	}
	for y := range h {
		row = append(row[:0], 0)
		pix := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := 0; x < 4*w; x += 4 {
			row = append(row, pix[x], pix[x+1], pix[x+2])
		}
		put(row)
	}
	out = binary.BigEndian.AppendUint32(out, ad.Sum32())
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start+4:]))
	return pngChunk(out, "IEND", nil)
}

func pngChunk(out []byte, typ string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}
