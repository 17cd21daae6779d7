package safetensors

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// File is one validated safetensors file.
type File struct {
	// Name is the path the file was opened with.
	Name string

	size      int64
	headerLen uint64
	modTime   time.Time
	r         io.ReaderAt
	mapping   *mapping // nil for NewFile
	osFile    *os.File // nil for NewFile
	meta      map[string]string
	tensors   []*Tensor // sorted by name
	byName    map[string]*Tensor
	warnings  []string
}

// Tensor is one tensor of a File. Its bytes are the half-open range
// Offsets[0]..Offsets[1] of the data section, which starts right after
// the header.
type Tensor struct {
	Name    string
	DType   DType
	Shape   []uint64
	Offsets [2]uint64

	file *File
}

// Open maps the named file read-only and validates it. The mapping lives
// until Close.
func Open(name string) (*File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	size := st.Size()
	if size < prefixLen {
		// Too short to hold the length prefix, and mmap of an empty file
		// fails anyway: report it as the reference does.
		f.Close()
		return nil, formatErr(name, CodeHeaderTooSmall, "", "file is %d bytes, the length prefix alone needs %d", size, prefixLen)
	}
	m, err := mapFile(f, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: mmap: %w", name, err)
	}
	// Reader reads with pread, not from the mapping: a read error or a
	// file truncated under us is then an error, never a SIGBUS.
	sf := &File{Name: name, size: size, modTime: st.ModTime(), r: f, mapping: m, osFile: f}
	if err := sf.load(m.data); err != nil {
		sf.Close()
		return nil, err
	}
	return sf, nil
}

// NewFile validates the safetensors file held by r, of the given size.
// Only the header is read into memory; tensor bytes are read from r on
// demand. Close has no effect on a File made by NewFile.
func NewFile(name string, r io.ReaderAt, size int64) (*File, error) {
	sf := &File{Name: name, size: size, r: r}
	if size < prefixLen {
		return nil, formatErr(name, CodeHeaderTooSmall, "", "file is %d bytes, the length prefix alone needs %d", size, prefixLen)
	}
	var prefix [prefixLen]byte
	if _, err := r.ReadAt(prefix[:], 0); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	n, err := checkPrefix(name, prefix[:], size)
	if err != nil {
		return nil, err
	}
	// n is now known to be at most MaxHeaderSize and within the file.
	hdr := make([]byte, prefixLen+n)
	copy(hdr, prefix[:])
	// io.ReaderAt may return io.EOF with a full read at the very end.
	if k, err := r.ReadAt(hdr[prefixLen:], prefixLen); k < int(n) {
		return nil, fmt.Errorf("%s: reading the header: %w", name, err)
	}
	if err := sf.load(hdr); err != nil {
		return nil, err
	}
	return sf, nil
}

// checkPrefix applies rules 2 and 3 to the length prefix.
func checkPrefix(name string, prefix []byte, size int64) (uint64, error) {
	n := binary.LittleEndian.Uint64(prefix)
	if n > MaxHeaderSize {
		return 0, formatErr(name, CodeHeaderTooLarge, "", "length prefix says the header is %d bytes, the limit is %d", n, MaxHeaderSize)
	}
	if n+prefixLen > uint64(size) {
		return 0, formatErr(name, CodeInvalidHeaderLength, "", "length prefix says the header is %d bytes, but the file has only %d after the prefix", n, size-prefixLen)
	}
	return n, nil
}

// load validates buf, which starts at byte 0 of the file and holds at least
// the prefix and the whole header, and fills in the tensor table.
func (f *File) load(buf []byte) error {
	n, err := checkPrefix(f.Name, buf[:prefixLen], f.size)
	if err != nil {
		return err
	}
	f.headerLen = n
	hdr := buf[prefixLen : prefixLen+n]
	if !utf8.Valid(hdr) {
		return formatErr(f.Name, CodeInvalidUTF8, "", "header bytes are not valid UTF-8")
	}
	entries, meta, err := parseHeader(f.Name, hdr)
	if err != nil {
		return err
	}
	f.meta = meta
	if err := f.validate(entries); err != nil {
		return err
	}
	return nil
}

// validate applies rules 6 to 11 in the reference's order: entries sorted
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
			return formatErr(f.Name, CodeInvalidOffset, e.name, "tensor %q: %s", e.name, what)
		}
		start = e.end
		nel, ok := product(e.shape)
		if !ok {
			return formatErr(f.Name, CodeValidationOverflow, e.name, "tensor %q: shape %s has more than 2^64 elements", e.name, FormatShape(e.shape))
		}
		hi, nbits := bits.Mul64(nel, e.dtype.Bits())
		if hi != 0 {
			return formatErr(f.Name, CodeValidationOverflow, e.name, "tensor %q: shape %s of %s is more than 2^64 bits", e.name, FormatShape(e.shape), e.dtype)
		}
		if nbits%8 != 0 {
			return formatErr(f.Name, CodeMisalignedSlice, e.name, "tensor %q: %d elements of %s are %d bits, not a whole number of bytes", e.name, nel, e.dtype, nbits)
		}
		if want := nbits / 8; e.end-e.begin != want {
			return formatErr(f.Name, CodeInvalidInfo, e.name, "tensor %q: shape %s of %s needs %d bytes, data_offsets [%d, %d] hold %d",
				e.name, FormatShape(e.shape), e.dtype, want, e.begin, e.end, e.end-e.begin)
		}
	}
	// start <= 2^64-1 and headerLen <= 1e8, so this cannot overflow
	// unless start is within 1e8 of 2^64; check that too.
	need, carry := bits.Add64(start, prefixLen+f.headerLen, 0)
	if carry != 0 || need != uint64(f.size) {
		var what string
		switch {
		case carry != 0 || need > uint64(f.size):
			short := need - uint64(f.size)
			if carry != 0 {
				what = "the tensors claim more than 2^64 bytes"
			} else {
				what = fmt.Sprintf("file is %d %s short: header and tensors need %d bytes, the file has %d", short, plural(short, "byte", "bytes"), need, f.size)
			}
		default:
			extra := uint64(f.size) - need
			what = fmt.Sprintf("file has %d trailing %s after the last tensor: header and tensors need %d bytes, the file has %d", extra, plural(extra, "byte", "bytes"), need, f.size)
		}
		return formatErr(f.Name, CodeIncompleteBuffer, "", "%s", what)
	}

	f.tensors = make([]*Tensor, len(entries))
	f.byName = make(map[string]*Tensor, len(entries))
	dataStart := prefixLen + f.headerLen
	var misaligned int
	var first *entry
	for i := range entries {
		e := &entries[i]
		t := &Tensor{Name: e.name, DType: e.dtype, Shape: e.shape, Offsets: [2]uint64{e.begin, e.end}, file: f}
		f.tensors[i] = t
		f.byName[e.name] = t
		// The reference never checks alignment; consumers that cast mapped
		// bytes to typed arrays care, so it is a warning.
		if b := e.dtype.Bits(); b >= 8 && e.end > e.begin && (dataStart+e.begin)%(b/8) != 0 {
			if misaligned++; first == nil {
				first = e
			}
		}
	}
	if misaligned > 0 {
		f.warnings = append(f.warnings, fmt.Sprintf("%s: %d %s not aligned to the element size (first: %q, %s at byte %d): consumers that cast the mapped bytes need a copy",
			f.Name, misaligned, plural(uint64(misaligned), "tensor is", "tensors are"), first.name, first.dtype, dataStart+first.begin))
	}
	slices.SortFunc(f.tensors, func(a, b *Tensor) int { return cmp.Compare(a.Name, b.Name) })
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

// Close unmaps the file and closes it. Tensor bytes obtained earlier must
// not be used afterwards.
func (f *File) Close() error {
	var err error
	if f.mapping != nil {
		err = f.mapping.unmap()
		f.mapping = nil
	}
	if f.osFile != nil {
		if cerr := f.osFile.Close(); err == nil {
			err = cerr
		}
		f.osFile = nil
	}
	return err
}

// Size returns the file's length in bytes.
func (f *File) Size() int64 { return f.size }

// HeaderLen returns the length of the JSON header, without the 8-byte
// prefix.
func (f *File) HeaderLen() uint64 { return f.headerLen }

// DataStart returns the file offset of the data section.
func (f *File) DataStart() int64 { return int64(prefixLen + f.headerLen) }

// ModTime returns the file's modification time at Open (zero for NewFile).
func (f *File) ModTime() time.Time { return f.modTime }

// Metadata returns the header's __metadata__ map, or nil if it has none.
func (f *File) Metadata() map[string]string { return f.meta }

// Tensors returns the tensors sorted by name.
func (f *File) Tensors() []*Tensor { return f.tensors }

// Tensor returns the named tensor, or nil if the file has none by that name.
func (f *File) Tensor(name string) *Tensor { return f.byName[name] }

// Warnings returns findings that do not make the file invalid, such as
// tensors whose data is not aligned to their element size.
func (f *File) Warnings() []string { return f.warnings }

// Fd returns the file descriptor of a File made by Open, or -1.
func (f *File) Fd() int {
	if f.osFile == nil {
		return -1
	}
	return int(f.osFile.Fd())
}

// File returns the file holding t.
func (t *Tensor) File() *File { return t.file }

// Size returns the tensor's length in bytes.
func (t *Tensor) Size() int64 { return int64(t.Offsets[1] - t.Offsets[0]) }

// FileOffset returns the file offset of the tensor's first byte.
func (t *Tensor) FileOffset() int64 { return t.file.DataStart() + int64(t.Offsets[0]) }

// NumElements returns the product of the shape (1 for a scalar).
func (t *Tensor) NumElements() uint64 {
	n, _ := product(t.Shape) // validated: cannot overflow
	return n
}

// Bytes returns the tensor's bytes as a slice of the file mapping, or nil
// for a File made by NewFile. The slice is valid until the File is closed
// and must not be written to.
func (t *Tensor) Bytes() []byte {
	if t.file.mapping == nil {
		return nil
	}
	off := t.FileOffset()
	return t.file.mapping.data[off : off+t.Size()]
}

// Reader returns a reader of the tensor's bytes. For a File made by Open
// it reads with pread, so an I/O error or a truncated file is an error
// rather than a fault in the mapping.
func (t *Tensor) Reader() *io.SectionReader {
	return io.NewSectionReader(t.file.r, t.FileOffset(), t.Size())
}

// FormatShape renders a shape as "[2048, 1024]", or "[]" for a scalar.
func FormatShape(shape []uint64) string {
	b := make([]byte, 0, 2+len(shape)*8)
	b = append(b, '[')
	for i, d := range shape {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendUint(b, d, 10)
	}
	return string(append(b, ']'))
}

// ShapeEqual reports whether two shapes are the same.
func ShapeEqual(a, b []uint64) bool { return slices.Equal(a, b) }

// FirstDifference compares the bytes of two tensors of the same size and
// returns the offset of the first byte where they differ, or -1 if they
// are identical. Mapped tensors are compared in place, on two goroutines,
// with faults turned into errors (a file truncated or failing underneath
// is an error, never a crash) and the pages released from the process's
// RSS afterwards; others are read in chunks.
func (t *Tensor) FirstDifference(u *Tensor) (int64, error) {
	if t.Size() != u.Size() {
		return 0, fmt.Errorf("%s is %d bytes, %s is %d", t.Name, t.Size(), u.Name, u.Size())
	}
	a, b := t.Bytes(), u.Bytes()
	if a == nil || b == nil {
		return firstDifferenceRead(t, u)
	}
	defer t.file.mapping.release(a)
	defer u.file.mapping.release(b)
	return firstDifferenceMapped(a, b, t, u)
}

func firstDifferenceMapped(a, b []byte, t, u *Tensor) (int64, error) {
	// Two halves compared at once: the comparison is bound by page
	// faults, and the machines this runs on have at least two cores.
	half := len(a) / 2
	type result struct {
		off int64
		err error
	}
	second := make(chan result, 1)
	go func() {
		off, err := compareMapped(a[half:], b[half:], t, u)
		if off >= 0 {
			off += int64(half)
		}
		second <- result{off, err}
	}()
	off, err := compareMapped(a[:half], b[:half], t, u)
	r := <-second
	switch {
	case err != nil:
		return 0, err
	case r.err != nil:
		return 0, r.err
	case off >= 0:
		return off, nil
	}
	return r.off, nil
}

// compareMapped compares mapped bytes, turning a fault of the mapping (a
// file truncated or failing underneath) into an error.
func compareMapped(a, b []byte, t, u *Tensor) (off int64, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			off, err = 0, fmt.Errorf("comparing %s with %s: the mapped file failed: %v", t.Name, u.Name, r)
		}
	}()
	const chunk = 1 << 20
	for i := 0; i < len(a); i += chunk {
		j := min(i+chunk, len(a))
		if bytes.Equal(a[i:j], b[i:j]) {
			continue
		}
		for k := i; k < j; k++ {
			if a[k] != b[k] {
				return int64(k), nil
			}
		}
	}
	return -1, nil
}

func firstDifferenceRead(t, u *Tensor) (int64, error) {
	const chunk = 4 << 20
	ra, rb := t.Reader(), u.Reader()
	bufA, bufB := make([]byte, chunk), make([]byte, chunk)
	for off := int64(0); off < t.Size(); off += chunk {
		n := min(chunk, t.Size()-off)
		if _, err := ra.ReadAt(bufA[:n], off); err != nil {
			return 0, fmt.Errorf("reading %s: %w", t.Name, err)
		}
		if _, err := rb.ReadAt(bufB[:n], off); err != nil {
			return 0, fmt.Errorf("reading %s: %w", u.Name, err)
		}
		if !bytes.Equal(bufA[:n], bufB[:n]) {
			for i := range n {
				if bufA[i] != bufB[i] {
					return off + i, nil
				}
			}
		}
	}
	return -1, nil
}
