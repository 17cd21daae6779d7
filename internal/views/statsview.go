package views

import (
	"context"
	"encoding/hex"
	"math"
	"strconv"

	"github.com/fsmount/fsmount/internal/decode"
)

// appendSci appends x with digits significant digits and a 3-digit
// exponent ("+1.23456e-002"), or "nan", "inf", "-inf".
func appendSci(b []byte, x float64, digits int) []byte {
	l := numFormat{digits: digits, expDigits: 3}
	return l.appendFloat(b, x)
}

// pad appends s left-aligned (right false) or right-aligned in w bytes.
func pad(b []byte, s []byte, w int, right bool) []byte {
	if right {
		for range w - len(s) {
			b = append(b, ' ')
		}
	}
	b = append(b, s...)
	if !right {
		for range w - len(s) {
			b = append(b, ' ')
		}
	}
	return b
}

var statNames = []string{"count", "nan", "posinf", "neginf", "zeros", "subnormals", "min", "max", "mean", "std", "absmax", "rms"}

const (
	statNameW  = 10
	statValueW = 24
	statLine   = statNameW + 1 + statValueW + 1
)

// renderStats renders the stats file: exactly len(statNames)·statLine
// bytes.
func renderStats(s *decode.Stats) []byte {
	ints := []uint64{s.Count, s.NaN, s.PosInf, s.NegInf, s.Zeros, s.Subnormals}
	floats := []float64{s.Min, s.Max, s.Mean, s.Std, s.AbsMax, s.RMS}
	b := make([]byte, 0, len(statNames)*statLine)
	var v []byte
	for i, name := range statNames {
		b = pad(b, []byte(name), statNameW, false)
		b = append(b, ' ')
		if i < len(ints) {
			v = strconv.AppendUint(v[:0], ints[i], 10)
		} else {
			v = appendSci(v[:0], floats[i-len(ints)], 17)
		}
		b = pad(b, v, statValueW, true)
		b = append(b, '\n')
	}
	return b
}

func newStatsView(v *Tensor) View {
	if v.dec == nil {
		return notDecoded(v.decErr)
	}
	return &lazyView{size: int64(len(statNames) * statLine), render: func() ([]byte, error) {
		s, err := v.Stats(context.Background())
		if err != nil {
			return nil, err
		}
		return renderStats(s), nil
	}}
}

// shaView is the sha256 file: 64 hex digits and "\n".
type shaView struct{ v *Tensor }

func (s *shaView) Size() int64 { return 65 }

func (s *shaView) ReadAt(p []byte, off int64) (int, error) {
	l := &lazyView{size: 65, render: func() ([]byte, error) {
		d, err := s.v.SHA256(context.Background())
		if err != nil {
			return nil, err
		}
		return append([]byte(hex.EncodeToString(d)), '\n'), nil
	}}
	return l.ReadAt(p, off)
}

const (
	histNumW = 13
	histCntW = 20
	histBarW = 40
	histLine = histNumW + 1 + histNumW + 1 + histCntW + 1 + histBarW + 1
)

// renderHist renders the hist file: (bins+4)·histLine bytes.
func renderHist(h *decode.Histogram, bins int) []byte {
	b := make([]byte, 0, (bins+4)*histLine)
	b = pad(b, []byte("# lo"), histNumW, false)
	b = append(b, ' ')
	b = pad(b, []byte("hi"), histNumW, false)
	b = append(b, ' ')
	b = pad(b, []byte("count"), histCntW, true)
	b = append(b, ' ')
	b = pad(b, []byte("log(1+count) bar"), histBarW, false)
	b = append(b, '\n')
	peak := uint64(0)
	counts := make([]uint64, bins)
	copy(counts, h.Counts)
	for _, c := range append(counts, h.NaN, h.PosInf, h.NegInf) {
		peak = max(peak, c)
	}
	bar := func(c uint64) []byte {
		n := 0
		if c > 0 {
			n = int(math.Round(histBarW * math.Log1p(float64(c)) / math.Log1p(float64(peak))))
			n = max(1, min(n, histBarW))
		}
		r := make([]byte, histBarW)
		for i := range r {
			r[i] = ' '
			if i < n {
				r[i] = '#'
			}
		}
		return r
	}
	var v []byte
	line := func(lo, hi []byte, c uint64) {
		b = pad(b, lo, histNumW, false)
		b = append(b, ' ')
		b = pad(b, hi, histNumW, false)
		b = append(b, ' ')
		v = strconv.AppendUint(v[:0], c, 10)
		b = pad(b, v, histCntW, true)
		b = append(b, ' ')
		b = append(b, bar(c)...)
		b = append(b, '\n')
	}
	w := (h.Max - h.Min) / float64(bins)
	for i := range bins {
		lo, hi := h.Min+float64(i)*w, h.Min+float64(i+1)*w
		if i == bins-1 {
			hi = h.Max
		}
		line(appendSci(nil, lo, 6), appendSci(nil, hi, 6), counts[i])
	}
	line([]byte("nan"), nil, h.NaN)
	line([]byte("+inf"), nil, h.PosInf)
	line([]byte("-inf"), nil, h.NegInf)
	return b
}

func newHistView(v *Tensor) View {
	if v.dec == nil {
		return notDecoded(v.decErr)
	}
	return &lazyView{size: int64((v.bins + 4) * histLine), render: func() ([]byte, error) {
		s, err := v.Stats(context.Background())
		if err != nil {
			return nil, err
		}
		return renderHist(s.Hist, v.bins), nil
	}}
}
