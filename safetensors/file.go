package safetensors

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fsmount/fsmount/internal/numfmt"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// File is one validated safetensors file.
type File struct {
	src       source.File
	headerLen uint64
	meta      map[string]string
	tensors   []*tensor.Tensor // sorted by name
	warnings  []string
}

// Open opens and validates a local file. Close closes it.
func Open(path string) (*File, error) {
	return source.OpenLocalWith(path, NewFile)
}

// NewFile validates the safetensors file src. Only the header is read,
// with ReadAt into a buffer whose size the length prefix gives once it is
// checked against the file's size and the reference's cap; a file that
// shrinks meanwhile is a read error, never a fault. Tensor bytes stay in
// src, which the File then owns: Close closes it.
func NewFile(src source.File) (*File, error) {
	name, size := src.Name(), src.Size()
	if size < prefixLen {
		return nil, formatErr(name, CodeHeaderTooSmall, "", "file is %d bytes, the length prefix alone needs %d", size, prefixLen)
	}
	var prefix [prefixLen]byte
	if _, err := src.ReadAt(prefix[:], 0); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	n, err := checkPrefix(name, prefix[:], size)
	if err != nil {
		return nil, err
	}
	// n is now known to be at most MaxHeaderSize and within the file.
	p := getParser(name, n)
	defer p.put()
	hdr := p.buf
	// io.ReaderAt may return io.EOF with a full read at the very end.
	if k, err := src.ReadAt(hdr, prefixLen); k < len(hdr) {
		return nil, fmt.Errorf("%s: reading the %d-byte header: %w", name, n, err)
	}
	f := &File{src: src, headerLen: n}
	if err := f.load(p, hdr); err != nil {
		return nil, err
	}
	return f, nil
}

// checkPrefix applies rules S2 and S3 to the length prefix. A prefix
// that fails them is most likely not a length at all, so the error says
// first what the file looks like.
func checkPrefix(name string, prefix []byte, size int64) (uint64, error) {
	n := binary.LittleEndian.Uint64(prefix)
	var e *FormatError
	switch {
	case n > MaxHeaderSize:
		e = formatErr(name, CodeHeaderTooLarge, "", "length prefix says the header is %s bytes, the limit is %s", numfmt.Commas(n), numfmt.Commas(MaxHeaderSize))
	case n+prefixLen > uint64(size):
		e = formatErr(name, CodeInvalidHeaderLength, "", "length prefix says the header is %s bytes, but the file has only %s after the prefix", numfmt.Commas(n), numfmt.Commas(uint64(size-prefixLen)))
	default:
		return n, nil
	}
	e.Hint = guessKind(prefix)
	return 0, e
}

// guessKind says what a file whose first 8 bytes are no safetensors
// length prefix most likely is, or "".
func guessKind(prefix []byte) string {
	switch {
	case string(prefix[:4]) == "GGUF":
		return "not a safetensors file (it starts with GGUF's magic: a GGUF file, name it .gguf)"
	case isText(prefix):
		return fmt.Sprintf("not a safetensors file (its first 8 bytes are text: %q)", prefix)
	}
	return ""
}

// isText reports whether b is printable UTF-8 text (tabs and line breaks
// allowed).
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		// A multi-byte character may be cut at the end: look at the rest.
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
		if len(b) < 4 {
			return false
		}
	}
	for _, r := range string(b) {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return false
		}
	}
	return true
}

// load validates the header (rules S4 and on) and fills in the tensor
// table; p parses it (and overwrites hdr).
func (f *File) load(p *headerParser, hdr []byte) error {
	if !utf8.Valid(hdr) {
		return formatErr(f.Name(), CodeInvalidUTF8, "", "header bytes are not valid UTF-8")
	}
	entries, meta, err := p.parseHeader(hdr)
	if err != nil {
		return err
	}
	f.meta = meta
	if err := f.validate(entries); err != nil {
		return err
	}
	return nil
}

// validate applies rules S6 to S11 in the reference's order: entries sorted
// by offsets, then per entry the offset, overflow, alignment and size
// checks, then the file-length check.
func (f *File) validate(entries []entry) error {
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.begin, b.begin), cmp.Compare(a.end, b.end), cmp.Compare(a.name, b.name))
	})
	var start uint64
	for i := range entries {
		e := &entries[i]
		if e.begin != start || e.end < e.begin {
			what := fmt.Sprintf("data_offsets [%d, %d] but the previous tensor ends at %d", e.begin, e.end, start)
			switch {
			case e.end < e.begin:
				what = fmt.Sprintf("data_offsets [%d, %d] end before they begin", e.begin, e.end)
			case i == 0:
				what = fmt.Sprintf("data_offsets [%d, %d]: the first tensor must start at 0", e.begin, e.end)
			case e.begin < start:
				what += fmt.Sprintf(" (overlaps %q)", entries[i-1].name)
			default:
				what += fmt.Sprintf(" (a gap of %d bytes)", e.begin-start)
			}
			return formatErr(f.Name(), CodeInvalidOffset, e.name, "tensor %q: %s", e.name, what)
		}
		start = e.end
		nel, ok := product(e.shape)
		if !ok {
			return formatErr(f.Name(), CodeValidationOverflow, e.name, "tensor %q: shape %s has more than 2^64 elements", e.name, tensor.FormatShape(e.shape))
		}
		hi, nbits := bits.Mul64(nel, bitsOf(e.dtype))
		if hi != 0 {
			return formatErr(f.Name(), CodeValidationOverflow, e.name, "tensor %q: shape %s of %s is more than 2^64 bits", e.name, tensor.FormatShape(e.shape), e.dtype)
		}
		if nbits%8 != 0 {
			return formatErr(f.Name(), CodeMisalignedSlice, e.name, "tensor %q: %d elements of %s are %d bits, not a whole number of bytes", e.name, nel, e.dtype, nbits)
		}
		if want := nbits / 8; e.end-e.begin != want {
			return formatErr(f.Name(), CodeInvalidInfo, e.name, "tensor %q: shape %s of %s needs %d bytes, data_offsets [%d, %d] hold %d",
				e.name, tensor.FormatShape(e.shape), e.dtype, want, e.begin, e.end, e.end-e.begin)
		}
	}
	// start <= 2^64-1 and headerLen <= 1e8, so this cannot overflow
	// unless start is within 1e8 of 2^64; check that too.
	need, carry := bits.Add64(start, prefixLen+f.headerLen, 0)
	if carry != 0 || need != uint64(f.src.Size()) {
		var what string
		switch {
		case carry != 0 || need > uint64(f.src.Size()):
			short := need - uint64(f.src.Size())
			if carry != 0 {
				what = "the tensors claim more than 2^64 bytes"
			} else {
				what = fmt.Sprintf("file is %d %s short: header and tensors need %d bytes, the file has %d", short, plural(short, "byte", "bytes"), need, f.src.Size())
			}
		default:
			extra := uint64(f.src.Size()) - need
			what = fmt.Sprintf("file has %d trailing %s after the last tensor: header and tensors need %d bytes, the file has %d", extra, plural(extra, "byte", "bytes"), need, f.src.Size())
		}
		return formatErr(f.Name(), CodeIncompleteBuffer, "", "%s", what)
	}

	// One allocation for the tensors, placed in name order by the rank
	// the parser gave each entry.
	f.tensors = make([]*tensor.Tensor, len(entries))
	all := make([]tensor.Tensor, len(entries))
	dataStart := prefixLen + f.headerLen
	var misaligned int
	var first *entry
	for i := range entries {
		e := &entries[i]
		t := &all[e.rank]
		*t = tensor.Tensor{Name: e.name, DType: e.dtype, Shape: e.shape, File: f.src,
			Offset: int64(dataStart + e.begin), Length: int64(e.end - e.begin)}
		f.tensors[e.rank] = t
		// The reference never checks alignment; consumers that cast mapped
		// bytes to typed arrays care, so it is a warning.
		if b := bitsOf(e.dtype); b >= 8 && e.end > e.begin && (dataStart+e.begin)%(b/8) != 0 {
			if misaligned++; first == nil {
				first = e
			}
		}
	}
	if misaligned > 0 {
		f.warnings = append(f.warnings, fmt.Sprintf("%s: %d %s not aligned to the element size (first: %q, %s at byte %d): consumers that cast the mapped bytes need a copy",
			f.Name(), misaligned, plural(uint64(misaligned), "tensor is", "tensors are"), first.name, first.dtype, dataStart+first.begin))
	}
	return nil
}

func product(shape []uint64) (uint64, bool) {
	n := uint64(1)
	for _, d := range shape {
		hi, lo := bits.Mul64(n, d)
		if hi != 0 {
			return 0, false
		}
		n = lo
	}
	return n, true
}

func plural(n uint64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Close closes the file's source.
func (f *File) Close() error { return f.src.Close() }

// Name returns the file's name, as its source names it.
func (f *File) Name() string { return f.src.Name() }

// Source returns the file the tensors' bytes are read from.
func (f *File) Source() source.File { return f.src }

// DataStart returns the file offset of the data section.
func (f *File) DataStart() int64 { return int64(prefixLen + f.headerLen) }

// Metadata returns the header's __metadata__ map, or nil if it has none.
func (f *File) Metadata() map[string]string { return f.meta }

// Tensors returns the tensors sorted by name.
func (f *File) Tensors() []*tensor.Tensor { return f.tensors }

// Tensor returns the named tensor, or nil if the file has none by that name.
func (f *File) Tensor(name string) *tensor.Tensor {
	i, ok := slices.BinarySearchFunc(f.tensors, name, func(t *tensor.Tensor, n string) int { return strings.Compare(t.Name, n) })
	if !ok {
		return nil
	}
	return f.tensors[i]
}

// Warnings returns findings that do not make the file invalid, such as
// tensors whose data is not aligned to their element size.
func (f *File) Warnings() []string { return f.warnings }
