package views

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"sync"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/tensor"
)

// numFormat is the fixed-width text layout of a tensor's values.
type numFormat struct {
	dt        tensor.DType // of the values printed
	isInt     bool
	signed    bool
	digits    int // floats: significant digits; integers: digits
	expDigits int
	w         int // width of a number
	cols      uint64
	rows      uint64
	line      int64
	size      int64
}

// floatDigits gives the significant and exponent digits of a floating type.
var floatDigits = map[tensor.DType][2]int{
	tensor.BF16: {4, 2}, tensor.F16: {5, 2}, tensor.F32: {9, 2}, tensor.F64: {17, 3},
	tensor.F8_E5M2: {3, 2}, tensor.F8_E4M3: {3, 2}, tensor.F8_E8M0: {3, 2},
	tensor.F8_E4M3FNUZ: {3, 2}, tensor.F8_E5M2FNUZ: {3, 2},
	tensor.F6_E2M3: {3, 2}, tensor.F6_E3M2: {3, 2}, tensor.F4: {3, 2},
}

// intWidth gives the width of an integer type, sign included.
var intWidth = map[tensor.DType]int{
	tensor.BOOL: 1, tensor.U8: 3, tensor.I8: 4, tensor.U16: 5, tensor.I16: 6,
	tensor.U32: 10, tensor.I32: 11, tensor.U64: 20, tensor.I64: 20,
}

// errTooLarge is a view whose size would not fit in an int64.
var errTooLarge = errors.New("not decoded: the text would be larger than 2^63 bytes")

func textLayout(d *decode.Decoder) (*numFormat, error) {
	l := &numFormat{dt: d.ValueType()}
	if fd, ok := floatDigits[l.dt]; ok {
		l.digits, l.expDigits = fd[0], fd[1]
		l.w = l.digits + 4 + l.expDigits
	} else if w, ok := intWidth[l.dt]; ok {
		l.isInt, l.w = true, w
		l.signed = l.dt == tensor.I8 || l.dt == tensor.I16 || l.dt == tensor.I32 || l.dt == tensor.I64
		l.digits = w
		if l.signed {
			l.digits--
		}
	} else {
		return nil, &decode.UnsupportedError{DType: l.dt, Reason: "no text form"}
	}
	shape := d.Shape()
	l.rows, l.cols = 1, 1
	switch len(shape) {
	case 0:
	case 1:
		l.rows = shape[0]
	default:
		l.cols = shape[len(shape)-1]
		for _, s := range shape[:len(shape)-1] {
			if s != 0 && l.rows > math.MaxInt64/s {
				return nil, errTooLarge
			}
			l.rows *= s
		}
	}
	l.line = 1
	if l.cols > 0 {
		if l.cols > uint64(math.MaxInt64)/uint64(l.w+1) {
			return nil, errTooLarge
		}
		l.line = int64(l.cols) * int64(l.w+1)
	}
	if l.rows != 0 && uint64(l.line) > uint64(math.MaxInt64)/l.rows {
		return nil, errTooLarge
	}
	l.size = int64(l.rows) * l.line
	return l, nil
}

// appendFloat appends x in the layout's fixed form.
func (l *numFormat) appendFloat(b []byte, x float64) []byte {
	switch {
	case x != x:
		return append(b, "nan"...)
	case math.IsInf(x, 1):
		return append(b, "inf"...)
	case math.IsInf(x, -1):
		return append(b, "-inf"...)
	}
	if !math.Signbit(x) {
		b = append(b, '+')
	}
	b = strconv.AppendFloat(b, x, 'e', l.digits-1, 64)
	// Pad the exponent, after "e+" or "e-", to expDigits.
	e := len(b) - 1
	for b[e] != 'e' {
		e--
	}
	for pad := l.expDigits - (len(b) - e - 2); pad > 0; pad-- {
		b = append(b, 0)
		copy(b[e+3:], b[e+2:])
		b[e+2] = '0'
	}
	return b
}

// appendInt appends the element at raw (its little-endian bytes).
func (l *numFormat) appendInt(b []byte, raw []byte) []byte {
	le := binary.LittleEndian
	var u uint64
	neg := false
	switch l.dt {
	case tensor.BOOL:
		if raw[0] != 0 {
			return append(b, '1')
		}
		return append(b, '0')
	case tensor.U8:
		u = uint64(raw[0])
	case tensor.I8:
		x := int64(int8(raw[0]))
		neg, u = x < 0, abs(x)
	case tensor.U16:
		u = uint64(le.Uint16(raw))
	case tensor.I16:
		x := int64(int16(le.Uint16(raw)))
		neg, u = x < 0, abs(x)
	case tensor.U32:
		u = uint64(le.Uint32(raw))
	case tensor.I32:
		x := int64(int32(le.Uint32(raw)))
		neg, u = x < 0, abs(x)
	case tensor.U64:
		u = le.Uint64(raw)
	case tensor.I64:
		x := int64(le.Uint64(raw))
		neg, u = x < 0, abs(x)
	}
	if l.signed {
		if neg {
			b = append(b, '-')
		} else {
			b = append(b, '+')
		}
	}
	var d [20]byte
	s := strconv.AppendUint(d[:0], u, 10)
	for range l.digits - len(s) {
		b = append(b, '0')
	}
	return append(b, s...)
}

func abs(x int64) uint64 {
	if x < 0 {
		return uint64(-(x + 1)) + 1
	}
	return uint64(x)
}

// longRow is the length, in elements, beyond which a row is read with a
// checkpoint index rather than whole.
const longRow = 4096

type valuesView struct {
	v   *Tensor
	lay *numFormat
	tab *tokenTable // nil but for plain 1- and 2-byte floating types
	// tabOnce sets tab on the first read: building a table costs a few
	// milliseconds, which a LOOKUP must not pay.
	tabOnce sync.Once

	mu  sync.Mutex
	idx rowIndex // of the last long row read
}

// rowIndex records, for one row, the bytes by which nan and inf fall
// short of a number's width before every longRow-th element.
type rowIndex struct {
	row    uint64
	valid  bool
	shrink []int64 // shrink[k]: shortfall of elements [0, k·longRow)
}

func newValues(v *Tensor) View {
	if v.dec == nil {
		return notDecoded(v.decErr)
	}
	lay, err := textLayout(v.dec)
	if err != nil {
		return notDecoded(err)
	}
	return &valuesView{v: v, lay: lay}
}

func (vv *valuesView) Size() int64 { return vv.lay.size }

// batch is decoded elements: float64 values, or integers' raw bytes.
type batch struct {
	vals []float64
	raw  []byte
	bb   int
}

// tokenTable holds the printed form of every code of a 1- or 2-byte
// floating type, so that printing is a lookup.
type tokenTable struct {
	tok []byte  // code c's token at c·w
	n   []uint8 // its length
}

var (
	tokenMu     sync.Mutex
	tokenTables = map[tensor.DType]*tokenTable{}
)

// tokensOf returns the token table of dt, built on first use, or nil
// for a type without one.
func tokensOf(l *numFormat) *tokenTable {
	bb := l.dt.BlockBytes()
	if l.isInt || l.dt.BlockElems() != 1 || bb > 2 {
		return nil
	}
	tokenMu.Lock()
	defer tokenMu.Unlock()
	if t := tokenTables[l.dt]; t != nil {
		return t
	}
	ncodes := 1 << (8 * bb)
	t := &tokenTable{tok: make([]byte, ncodes*l.w), n: make([]uint8, ncodes)}
	raw := make([]byte, ncodes*int(bb))
	for c := range ncodes {
		raw[c*int(bb)] = byte(c)
		if bb == 2 {
			raw[c*2+1] = byte(c >> 8)
		}
	}
	vals := make([]float64, ncodes)
	if _, err := decode.Float64(l.dt, raw, vals); err != nil {
		return nil
	}
	var b []byte
	for c, x := range vals {
		b = l.appendFloat(b[:0], x)
		if len(b) > l.w {
			return nil
		}
		t.n[c] = uint8(copy(t.tok[c*l.w:], b))
	}
	tokenTables[l.dt] = t
	return t
}

func (vv *valuesView) load(start uint64, n int) (batch, error) {
	if vv.lay.isInt || vv.tab != nil {
		raw, err := vv.v.dec.Raw(start, uint64(n))
		return batch{raw: raw, bb: int(vv.v.t.DType.BlockBytes())}, err
	}
	vals := make([]float64, n)
	return batch{vals: vals}, vv.v.dec.Float64(start, vals)
}

// appendTokens renders elements [i, i+n) of bt, element start+i of the
// flat tensor first; each but an element at a row's start is preceded by
// one space.
func (vv *valuesView) appendTokens(b []byte, bt batch, start uint64, i, n int) ([]byte, error) {
	l := vv.lay
	for j := i; j < i+n; j++ {
		if (start+uint64(j))%l.cols != 0 {
			b = append(b, ' ')
		}
		t0 := len(b)
		if tab := vv.tab; tab != nil {
			c := int(bt.raw[j*bt.bb])
			if bt.bb == 2 {
				c |= int(bt.raw[j*2+1]) << 8
			}
			b = append(b, tab.tok[c*l.w:c*l.w+int(tab.n[c])]...)
			continue
		}
		if l.isInt {
			b = l.appendInt(b, bt.raw[j*bt.bb:])
		} else {
			b = l.appendFloat(b, bt.vals[j])
		}
		if len(b)-t0 > l.w {
			return b, errors.New("views: a number is wider than its field")
		}
	}
	return b, nil
}

// tokens renders elements [start, start+n) of the flat tensor.
func (vv *valuesView) tokens(b []byte, start uint64, n int) ([]byte, error) {
	bt, err := vv.load(start, n)
	if err != nil {
		return b, err
	}
	return vv.appendTokens(b, bt, start, 0, n)
}

func (vv *valuesView) ReadAt(p []byte, off int64) (int, error) {
	l := vv.lay
	vv.tabOnce.Do(func() {
		if !vv.v.dec.Dequantized() {
			vv.tab = tokensOf(l)
		}
	})
	lo, hi, err := window(l.size, p, off)
	if err != nil {
		return 0, err
	}
	if lo == hi {
		return 0, nil
	}
	n := 0
	r0, r1 := uint64(lo/l.line), uint64((hi-1)/l.line)
	if l.cols <= longRow {
		// Render the rows covered, whole, with one decode.
		var bt batch
		first := r0 * l.cols
		if l.cols > 0 {
			if bt, err = vv.load(first, int((r1-r0+1)*l.cols)); err != nil {
				return 0, err
			}
		}
		line := make([]byte, 0, l.line)
		for r := r0; r <= r1; r++ {
			line = line[:0]
			if l.cols > 0 {
				if line, err = vv.appendTokens(line, bt, first, int((r-r0)*l.cols), int(l.cols)); err != nil {
					return n, err
				}
			}
			for int64(len(line)) < l.line-1 {
				line = append(line, ' ')
			}
			line = append(line, '\n')
			rs := int64(r) * l.line
			a, b := max(lo, rs)-rs, min(hi, rs+l.line)-rs
			n += copy(p[n:], line[a:b])
		}
		return n, eofIfShort(n, p)
	}
	for r := r0; r <= r1; r++ {
		rs := int64(r) * l.line
		a, b := max(lo, rs)-rs, min(hi, rs+l.line)-rs
		m, err := vv.readLongRow(r, a, b, p[n:n+int(b-a)])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, eofIfShort(n, p)
}

// shortfall is how many bytes the token of x falls short of w.
func (l *numFormat) shortfall(x float64) int64 {
	switch {
	case x != x, math.IsInf(x, 1):
		return int64(l.w - 3)
	case math.IsInf(x, -1):
		return int64(l.w - 4)
	}
	return 0
}

// readLongRow fills dst with bytes [a, b) of row r's line.
func (vv *valuesView) readLongRow(r uint64, a, b int64, dst []byte) (int, error) {
	l := vv.lay
	vv.mu.Lock()
	var shrink []int64
	if vv.idx.valid && vv.idx.row == r {
		shrink = append(shrink, vv.idx.shrink...)
	} else {
		shrink = []int64{0}
	}
	vv.mu.Unlock()
	ck := func(k int) uint64 { return min(uint64(k)*longRow, l.cols) }
	// pos is where element e's separator (or, for e = 0, its number)
	// starts; k is e's checkpoint.
	pos := func(k int) int64 {
		e := ck(k)
		p := int64(e)*int64(l.w+1) - shrink[k]
		if e > 0 {
			p--
		}
		return p
	}
	// Extend the index while the next checkpoint still starts at or
	// before a.
	var vals []float64
	for last := len(shrink) - 1; ck(last) < l.cols && pos(last) <= a; last++ {
		e0, e1 := ck(last), ck(last+1)
		s := shrink[last]
		if !l.isInt {
			vals = append(vals[:0], make([]float64, e1-e0)...)
			if err := vv.v.dec.Float64(r*l.cols+e0, vals); err != nil {
				return 0, err
			}
			for _, x := range vals {
				s += l.shortfall(x)
			}
		}
		shrink = append(shrink, s)
		if pos(last+1) > a {
			break
		}
	}
	vv.mu.Lock()
	vv.idx = rowIndex{row: r, valid: true, shrink: shrink}
	vv.mu.Unlock()
	k := len(shrink) - 1
	for k > 0 && pos(k) > a {
		k--
	}
	cur := pos(k)
	n := 0
	put := func(bs []byte) {
		// Copy the part of bs, at line offset cur, within [a, b).
		s, e := max(cur, a), min(cur+int64(len(bs)), b)
		if s < e {
			copy(dst[s-a:], bs[s-cur:e-cur])
			n = max(n, int(e-a))
		}
		cur += int64(len(bs))
	}
	var buf []byte
	for e := ck(k); e < l.cols && cur < b; {
		m := min(longRow, l.cols-e)
		var err error
		if buf, err = vv.tokens(buf[:0], r*l.cols+e, int(m)); err != nil {
			return n, err
		}
		put(buf)
		e += m
	}
	if cur < b {
		pad := make([]byte, l.line-cur)
		for i := range pad {
			pad[i] = ' '
		}
		pad[len(pad)-1] = '\n'
		put(pad)
	}
	return n, nil
}
