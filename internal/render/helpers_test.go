package render

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"flag"
	"image"
	"image/png"
	"io"
	"math"
	"path/filepath"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/tensor"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// memFile is a source.File over bytes.
// memFile is testmodel's.
type memFile = testmodel.MemFile

// f32Tensor is a F32 tensor of vals.
func f32Tensor(name string, shape []uint64, vals []float32) *views.Tensor {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	t := &tensor.Tensor{Name: name, DType: tensor.F32, Shape: shape, File: &memFile{B: b}, Length: int64(len(b))}
	return views.NewTensor(t, nil)
}

// bf16Tensor is a BF16 tensor of vals (truncated to bfloat16).
func bf16Tensor(name string, shape []uint64, vals []float32) *views.Tensor {
	b := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(math.Float32bits(v)>>16))
	}
	t := &tensor.Tensor{Name: name, DType: tensor.BF16, Shape: shape, File: &memFile{B: b}, Length: int64(len(b))}
	return views.NewTensor(t, nil)
}

// numel is the element count of shape.
func numel(shape []uint64) int {
	n := 1
	for _, d := range shape {
		n *= int(d)
	}
	return n
}

// decodePNG decodes b with image/png, checking its dimensions.
func decodePNG(t *testing.T, b []byte, w, h int) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("image/png: %v", err)
	}
	if got := img.Bounds(); got.Dx() != w || got.Dy() != h {
		t.Fatalf("decoded %v, want %dx%d", got, w, h)
	}
	return img
}

// golden compares b with testdata/name.gz (gzipped, since the PNGs are
// stored uncompressed), rewriting it with -update.
func golden(t *testing.T, name string, b []byte) {
	t.Helper()
	zb := testmodel.Golden(t, filepath.Join("testdata", name+".gz"), *update, func() []byte {
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		return z.Bytes()
	})
	zr, err := gzip.NewReader(bytes.NewReader(zb))
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("%s differs from the golden file (%d bytes, want %d); go test -update rewrites it", name, len(b), len(want))
	}
}
