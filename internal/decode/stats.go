package decode

import (
	"math"

	"github.com/fsmount/fsmount/tensor"
)

// Stats are the statistics of a tensor's values. Min, Max, Mean, Std,
// AbsMax and RMS are over the finite values (NaN and ±Inf are counted
// apart, not included); with no finite value they are NaN. Std is the
// population deviation (ddof=0, as numpy's default).
type Stats struct {
	// DType is the type of the values: the tensor's own, or F32 for
	// dequantized values.
	DType tensor.DType
	Count uint64 // elements
	NaN   uint64
	// PosInf and NegInf count +Inf and -Inf.
	PosInf, NegInf uint64
	Zeros          uint64 // +0 and -0 (integers: 0)
	// Subnormals counts the subnormals of DType itself: BF16 values that
	// are float32 normals are not counted, F8_E4M3 codes 0x01..0x07 are.
	// Integer, boolean and E8M0 types have none.
	Subnormals uint64
	Min, Max   float64
	Mean, Std  float64
	AbsMax     float64
	RMS        float64
	// Hist is the histogram, when asked for.
	Hist *Histogram
	// SHA256 is the digest of the tensor's bytes, when asked for.
	SHA256 []byte
}

// Finite returns the number of finite values.
func (s *Stats) Finite() uint64 { return s.Count - s.NaN - s.PosInf - s.NegInf }

// Histogram counts the finite values in Bins equal-width bins over
// [Min, Max]: value x falls in bin floor((x-Min)/(Max-Min)·Bins), the
// last bin closed at Max; when Min == Max every value is in bin 0. NaN
// and ±Inf are counted apart.
type Histogram struct {
	Min, Max       float64
	Counts         []uint64
	NaN            uint64
	PosInf, NegInf uint64
}

// binIndex is the bin of the finite x in bins over [lo, hi].
func binIndex(x, lo, hi float64, bins int) int {
	if !(hi > lo) {
		return 0
	}
	// Halves keep hi-lo finite for the widest float64 range.
	f := (x/2 - lo/2) / (hi/2 - lo/2) * float64(bins)
	i := int(f)
	if f < 0 {
		i = 0
	}
	if i >= bins {
		i = bins - 1
	}
	return i
}

// Health is a one-word verdict on a tensor's values.
type Health string

// The health classes, in the order they are tested.
const (
	HealthEmpty    Health = "empty"    // no elements
	HealthNaN      Health = "nan"      // at least one NaN
	HealthInf      Health = "inf"      // no NaN, at least one ±Inf
	HealthZero     Health = "zero"     // every element is zero
	HealthConstant Health = "constant" // two or more elements, all equal
	HealthOK       Health = "ok"
)

// Health classifies the statistics: empty, nan, inf, zero, constant or ok.
func (s *Stats) Health() Health {
	switch {
	case s.Count == 0:
		return HealthEmpty
	case s.NaN > 0:
		return HealthNaN
	case s.PosInf+s.NegInf > 0:
		return HealthInf
	case s.Zeros == s.Count:
		return HealthZero
	case s.Count > 1 && s.Min == s.Max:
		return HealthConstant
	}
	return HealthOK
}

// moments are count, mean and centred sum of squares of finite values,
// merged with Chan et al.'s pairwise formula.
type moments struct {
	n    float64
	mean float64
	m2   float64
}

func (a *moments) merge(b moments) {
	if b.n == 0 {
		return
	}
	if a.n == 0 {
		*a = b
		return
	}
	n := a.n + b.n
	d := b.mean - a.mean
	a.mean += d * (b.n / n)
	a.m2 += b.m2 + d*d*(a.n*b.n/n)
	a.n = n
}

// acc accumulates the statistics of values decoded one by one.
type acc struct {
	count, nan, pinf, ninf, zeros, sub uint64
	min, max                           float64
	mom                                moments
}

func newAcc() acc { return acc{min: math.Inf(1), max: math.Inf(-1)} }

func (a *acc) merge(b *acc) {
	a.count += b.count
	a.nan += b.nan
	a.pinf += b.pinf
	a.ninf += b.ninf
	a.zeros += b.zeros
	a.sub += b.sub
	a.min = math.Min(a.min, b.min)
	a.max = math.Max(a.max, b.max)
	a.mom.merge(b.mom)
}

// block adds up to 1024 values already in buf (finite or not).
func (a *acc) block(buf []float64) {
	a.count += uint64(len(buf))
	fin := buf[:0]
	for _, x := range buf {
		if x-x != 0 { // NaN or ±Inf
			switch {
			case x != x:
				a.nan++
			case x > 0:
				a.pinf++
			default:
				a.ninf++
			}
			continue
		}
		fin = append(fin, x)
	}
	if len(fin) == 0 {
		return
	}
	lo, hi, sum := fin[0], fin[0], 0.0
	var zeros uint64
	for _, x := range fin {
		// Plain comparisons: x is finite, and which zero is kept as the
		// minimum does not matter.
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
		sum += x
		if x == 0 {
			zeros++
		}
	}
	a.zeros += zeros
	a.min = math.Min(a.min, lo)
	a.max = math.Max(a.max, hi)
	n := float64(len(fin))
	mean := sum / n
	m2 := 0.0
	for _, x := range fin {
		d := x - mean
		m2 += d * d
	}
	a.mom.merge(moments{n: n, mean: mean, m2: m2})
}

func (a *acc) stats(dt tensor.DType) *Stats {
	s := &Stats{DType: dt, Count: a.count, NaN: a.nan, PosInf: a.pinf, NegInf: a.ninf, Zeros: a.zeros, Subnormals: a.sub}
	if a.mom.n == 0 {
		s.Min, s.Max, s.Mean, s.Std, s.AbsMax, s.RMS = nan(), nan(), nan(), nan(), nan(), nan()
		return s
	}
	s.Min, s.Max = a.min, a.max
	s.AbsMax = math.Max(-a.min, a.max)
	s.Mean = a.mom.mean
	v := a.mom.m2 / a.mom.n
	s.Std = math.Sqrt(v)
	s.RMS = math.Sqrt(v + s.Mean*s.Mean)
	return s
}

func nan() float64 { return math.NaN() }

// neumaier is a compensated sum.
type neumaier struct{ sum, c float64 }

func (k *neumaier) add(x float64) {
	t := k.sum + x
	if math.Abs(k.sum) >= math.Abs(x) {
		k.c += (k.sum - t) + x
	} else {
		k.c += (x - t) + k.sum
	}
	k.sum = t
}

func (k *neumaier) value() float64 { return k.sum + k.c }

// tableStats derives the statistics from counts of codes: counts[j] is how
// many elements have code c = codes[j] (j itself when codes is nil; codes
// ascending), whose value is value(c).
func tableStats(dt tensor.DType, codes []int32, counts []uint64, value func(c int) float64, bins int) *Stats {
	code := func(j int) int {
		if codes != nil {
			return int(codes[j])
		}
		return j
	}
	s := &Stats{DType: dt}
	var fin uint64
	lo, hi := math.Inf(1), math.Inf(-1)
	var sum neumaier
	for j, m := range counts {
		if m == 0 {
			continue
		}
		c := code(j)
		s.Count += m
		x := value(c)
		switch {
		case x != x:
			s.NaN += m
			continue
		case math.IsInf(x, 1):
			s.PosInf += m
			continue
		case math.IsInf(x, -1):
			s.NegInf += m
			continue
		case x == 0:
			s.Zeros += m
		}
		if Subnormal(dt, uint64(c)) {
			s.Subnormals += m
		}
		fin += m
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		sum.add(float64(m) * x)
	}
	if fin == 0 {
		s.Min, s.Max, s.Mean, s.Std, s.AbsMax, s.RMS = nan(), nan(), nan(), nan(), nan(), nan()
	} else {
		s.Min, s.Max, s.AbsMax = lo, hi, math.Max(-lo, hi)
		s.Mean = sum.value() / float64(fin)
		var m2 neumaier
		for j, m := range counts {
			if m == 0 {
				continue
			}
			if x := value(code(j)); x-x == 0 {
				d := x - s.Mean
				m2.add(float64(m) * d * d)
			}
		}
		v := m2.value() / float64(fin)
		s.Std = math.Sqrt(v)
		s.RMS = math.Sqrt(v + s.Mean*s.Mean)
	}
	if bins > 0 {
		h := &Histogram{Min: s.Min, Max: s.Max, Counts: make([]uint64, bins), NaN: s.NaN, PosInf: s.PosInf, NegInf: s.NegInf}
		if fin > 0 {
			for j, m := range counts {
				if m == 0 {
					continue
				}
				if x := value(code(j)); x-x == 0 {
					h.Counts[binIndex(x, lo, hi, bins)] += m
				}
			}
		}
		s.Hist = h
	}
	return s
}
