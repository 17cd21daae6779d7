package gguf

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// walker reads metadata values at its reader's position and renders them
// into a sink. The parser walks every array once, to check it, measure its
// text and place its marks; [Value.ReadTextAt] walks it again from a mark
// to render the bytes asked for. One walk for both keeps the size told at
// parse time and the bytes read later the same.
type walker struct {
	r       *reader
	key     string
	f       *File     // warnings go here while parsing; nil when reading
	sink    *sink     // the rendering
	rec     *recorder // marks being placed, while parsing an array
	scratch []byte
}

// sink takes a rendering in pieces: it counts them, and copies into dst
// the bytes after the first skip.
type sink struct {
	skip  int64
	dst   []byte // nil: count only
	n     int    // bytes copied into dst
	total int64  // bytes written
}

func (s *sink) full() bool { return s.dst != nil && s.n == len(s.dst) }

func (s *sink) write(b []byte) { sinkWrite(s, b) }

func (s *sink) writeString(str string) { sinkWrite(s, str) }

// sinkWrite counts b and copies into s.dst what of it is past s.skip.
func sinkWrite[T []byte | string](s *sink, b T) {
	s.total += int64(len(b))
	if s.dst == nil {
		return
	}
	if s.skip >= int64(len(b)) {
		s.skip -= int64(len(b))
		return
	}
	s.n += copy(s.dst[s.n:], b[s.skip:])
	s.skip = 0
}

// recorder places an array's marks.
type recorder struct {
	marks    *[]mark
	lastElem int
	lastFile int64
	elem     int // the element being walked
}

// walker returns a walker reading a's file, rendering into s (nil: a
// counting sink).
func (a *array) walker(s *sink) *walker {
	if s == nil {
		s = &sink{}
	}
	return &walker{r: newReader(a.src, a.name, a.size), sink: s}
}

// array reads an array at the reader's position (depth: the arrays
// around it, and 1 more): its header, then every element, to check them,
// measure the text and place the marks. Nothing of the elements is kept.
func (w *walker) array(depth int) (Value, error) {
	et, n, err := w.arrayHeader(depth)
	if err != nil {
		return Value{}, err
	}
	r := w.r
	a := &array{src: r.f, name: r.name, size: r.size, elem: et, depth: depth, n: n, off: r.pos}
	// The count was checked against the file: a mark per 1,024 elements
	// is at most 24 bytes per 1,024 bytes of it.
	a.marks = make([]mark, 0, n/markEvery+1)
	saved, savedRec := w.sink, w.rec
	w.sink = &sink{}
	w.rec = &recorder{marks: &a.marks, lastElem: -markEvery, lastFile: -markBytes}
	err = w.lines(a, mark{file: a.off, left: -1})
	a.text, a.end = w.sink.total, r.pos
	a.marks = slices.Clip(a.marks)
	w.sink, w.rec = saved, savedRec
	if err != nil {
		return Value{}, err
	}
	return Value{typ: TypeArray, arr: a}, nil
}

// arrayHeader reads an array's element type and length and checks them.
func (w *walker) arrayHeader(depth int) (ValueType, int, error) {
	r := w.r
	if depth > maxArrayDepth {
		return 0, 0, r.errAt(CodeArrayDepth, w.key, "array nested %d deep, at most %d allowed", depth, maxArrayDepth)
	}
	et, err := r.u32("array element type")
	if err != nil {
		return 0, 0, err
	}
	elem := ValueType(et)
	if elem >= numValueTypes {
		return 0, 0, r.errAt(CodeBadValueType, w.key, "array element type %d", et)
	}
	if elem == TypeArray && w.f != nil {
		w.f.warnOnce("nested", "metadata %s is an array of arrays; llama.cpp refuses nested arrays", w.key)
	}
	at := r.pos
	n, err := r.u64("array length")
	if err != nil {
		return 0, 0, err
	}
	if n > maxArray || n > uint64(r.remaining())/uint64(elem.minSize()) {
		return 0, 0, formatErr(r.name, CodeBadCount, w.key, "array of %d %s at byte %#x cannot fit in the %d bytes left (cap %d elements)", n, elem, at, r.remaining(), maxArray)
	}
	return elem, int(n), nil
}

// lines renders a's elements from the mark m, one a line, until the
// sink is full or the array ends.
func (w *walker) lines(a *array, m mark) error {
	r, s := w.r, w.sink
	i := int(m.elem)
	if m.left >= 0 && i < a.n {
		// Inside a long string: quoting is per character, so the rest
		// renders as it did in the whole.
		if err := w.strBody(int64(m.left), false); err != nil {
			return err
		}
		s.writeString("\"\n")
		i++
	}
	fixed := a.elem.fixedSize()
	for i < a.n && !s.full() {
		rec := w.rec
		if rec != nil && (i-rec.lastElem >= markEvery || r.pos-rec.lastFile >= markBytes) {
			*rec.marks = append(*rec.marks, mark{file: r.pos, text: s.total, elem: int32(i), left: -1})
			rec.lastElem, rec.lastFile = i, r.pos
		}
		if fixed > 0 {
			// A run of fixed-size elements from one window.
			k := min(a.n-i, bufSize/fixed)
			if rec != nil {
				k = min(k, rec.lastElem+markEvery-i)
			}
			b, err := r.take(k*fixed, "array")
			if err != nil {
				return err
			}
			if a.elem == TypeBool && s.dst == nil {
				// Counting only: "true\n" or "false\n".
				trues := 0
				for _, c := range b {
					if c != 0 {
						trues++
					}
					if c > 1 && w.f != nil {
						w.f.warnOnce("bool", "metadata %s holds a bool byte other than 0 and 1 (read as true)", w.key)
					}
				}
				s.total += int64(6*k - trues)
				i += k
				continue
			}
			for j := 0; j < k && !s.full(); j++ {
				bits := leBits(b[j*fixed : (j+1)*fixed])
				if a.elem == TypeBool && bits > 1 && w.f != nil {
					w.f.warnOnce("bool", "metadata %s holds a bool byte other than 0 and 1 (read as true)", w.key)
				}
				w.scratch = append(appendFixed(w.scratch[:0], a.elem, bits), '\n')
				s.write(w.scratch)
			}
			i += k
			continue
		}
		if rec != nil {
			rec.elem = i
		}
		if err := w.elem(a.elem, a.depth, true); err != nil {
			return err
		}
		s.writeString("\n")
		i++
	}
	return nil
}

// elem reads one element of type t of an array at depth and renders it
// as an element: a string quoted, an array inline "[a, b]". top says the
// element is a line of the array being marked.
func (w *walker) elem(t ValueType, depth int, top bool) error {
	r := w.r
	switch t {
	case TypeString:
		l, err := r.stringLen("string element", w.key)
		if err != nil {
			return err
		}
		w.sink.writeString(`"`)
		if err := w.strBody(int64(l), top); err != nil {
			return err
		}
		w.sink.writeString(`"`)
		return nil
	case TypeArray:
		et, n, err := w.arrayHeader(depth + 1)
		if err != nil {
			return err
		}
		w.sink.writeString("[")
		for j := 0; j < n && !w.sink.full(); j++ {
			if j > 0 {
				w.sink.writeString(", ")
			}
			if err := w.elem(et, depth+1, false); err != nil {
				return err
			}
		}
		w.sink.writeString("]")
		return nil
	}
	b, err := r.take(t.fixedSize(), t.String()+" value")
	if err != nil {
		return err
	}
	if t == TypeBool && b[0] > 1 && w.f != nil {
		w.f.warnOnce("bool", "metadata %s holds a bool byte other than 0 and 1 (read as true)", w.key)
	}
	w.scratch = appendFixed(w.scratch[:0], t, leBits(b))
	w.sink.write(w.scratch)
	return nil
}

// strBody renders the left bytes of a string at the reader's position,
// quoted as strconv.Quote quotes (without the quotes), a window at a
// time. In a line being marked, a long string gets a mark every
// markBytes.
func (w *walker) strBody(left int64, top bool) error {
	r := w.r
	for left > 0 && !w.sink.full() {
		if rec := w.rec; top && rec != nil && r.pos-rec.lastFile >= markBytes {
			*rec.marks = append(*rec.marks, mark{file: r.pos, text: w.sink.total, elem: int32(rec.elem), left: int32(left)})
			rec.lastFile = r.pos
		}
		chunk := int(min(left, bufSize))
		b, err := r.take(chunk, "string element")
		if err != nil {
			return err
		}
		var used int
		var bad bool
		w.scratch, used, bad = appendQuoted(w.scratch[:0], b, int64(chunk) == left)
		if bad && w.f != nil {
			w.f.warnOnce("utf8", "metadata %s holds a string that is not valid UTF-8", w.key)
		}
		r.pos -= int64(chunk - used) // a character cut by the window: read again
		left -= int64(used)
		w.sink.write(w.scratch)
	}
	return nil
}

// value reads one element of type t of an array at depth as a Value.
func (w *walker) value(t ValueType, depth int) (Value, error) {
	switch t {
	case TypeString:
		s, err := w.r.str("string element", w.key)
		return Value{typ: TypeString, str: s}, err
	case TypeArray:
		return w.array(depth + 1)
	}
	b, err := w.r.take(t.fixedSize(), t.String()+" value")
	if err != nil {
		return Value{}, err
	}
	return Value{typ: t, bits: leBits(b)}, nil
}

const lowerhex = "0123456789abcdef"

// appendQuoted appends b quoted as strconv.Quote quotes a string, without
// the surrounding quotes. Unless final, a character cut at the end of b
// is left: used says how many bytes were quoted. bad reports a byte that
// is not UTF-8.
func appendQuoted(dst, b []byte, final bool) (out []byte, used int, bad bool) {
	i := 0
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
				dst = append(dst, c)
			} else {
				dst = appendEscapedRune(dst, rune(c))
			}
			i++
			continue
		}
		if !final && !utf8.FullRune(b[i:]) {
			break
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, '\\', 'x', lowerhex[c>>4], lowerhex[c&0xf])
			bad = true
		} else {
			dst = appendEscapedRune(dst, r)
		}
		i += n
	}
	return dst, i, bad
}

// appendEscapedRune appends one character as strconv.Quote writes it
// inside double quotes.
func appendEscapedRune(dst []byte, r rune) []byte {
	switch r {
	case '"':
		return append(dst, '\\', '"')
	case '\'':
		return append(dst, '\'')
	}
	var tmp [16]byte
	q := strconv.AppendQuoteRune(tmp[:0], r) // the same escapes, in single quotes
	return append(dst, q[1:len(q)-1]...)
}
