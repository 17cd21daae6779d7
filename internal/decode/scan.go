package decode

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/tensor"
)

// Chunk sizes of [Scan]: the default, and the largest allowed (which keeps
// per-chunk counts within 32 bits).
const (
	DefaultChunkBytes = 8 << 20
	MaxChunkBytes     = 16 << 20
	// MaxHistBins caps ScanOptions.HistBins.
	MaxHistBins = 1 << 16
)

// ScanOptions are the options of [Scan]; nil means defaults.
type ScanOptions struct {
	// ChunkBytes is the size of each read, rounded down to whole blocks;
	// 0 means DefaultChunkBytes, and more than MaxChunkBytes is capped.
	ChunkBytes int
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// HistBins, if positive, asks for a histogram of that many bins.
	HistBins int
	// SHA256, if set, asks for the digest of the tensor's bytes.
	SHA256 bool
	// Progress, if non-nil, is called after each chunk is read with the
	// bytes read so far and the total to read (twice the tensor's bytes
	// when the histogram needs a second pass). Calls are serialized but
	// come from the worker goroutines.
	Progress func(done, total int64)
}

// Scan computes the statistics of t's values; see [Decoder.Scan].
func Scan(ctx context.Context, t *tensor.Tensor, opts *ScanOptions) (*Stats, error) {
	d, err := NewDecoder(t)
	if err != nil {
		return nil, err
	}
	return d.Scan(ctx, opts)
}

// worker is one goroutine's state.
type worker struct {
	buf   []byte
	cnt32 []uint32
	cnt   []uint64
	codes []uint16   // a small 16-bit tensor's codes, instead of cnt
	small *smallBufs // where buf and codes come from, for a small 16-bit tensor
	acc   acc
	f32   []float32
	f64   []float64 // decodedPiece values; made on first use (a counted scan needs none)
	hist  []uint64
}

// decodedPiece is how many values a worker decodes at a time.
const decodedPiece = 1024

// floats returns the worker's buffer of decodedPiece values.
func (w *worker) floats() []float64 {
	if w.f64 == nil {
		w.f64 = make([]float64, decodedPiece)
	}
	return w.f64
}

// widen hands f to fn as float64, a buffer of floats() at a time.
func (w *worker) widen(f []float32, fn func(vals []float64)) {
	vals := w.floats()
	for len(f) > 0 {
		m := min(len(f), len(vals))
		for i, v := range f[:m] {
			vals[i] = float64(v)
		}
		fn(vals[:m])
		f = f[m:]
	}
}

// Scan reads the whole tensor once (twice for the histogram of a type
// wider than 16 bits) with ReadAt, in chunks, on opts.Workers
// goroutines, and returns its statistics. Memory is bounded by about
// three chunks per worker, whatever the tensor's size. A read error or a
// short read ends the scan with that error; so does ctx's end.
func (d *Decoder) Scan(ctx context.Context, opts *ScanOptions) (*Stats, error) {
	var o ScanOptions
	if opts != nil {
		o = *opts
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	o.HistBins = min(o.HistBins, MaxHistBins)
	if d.fn != nil && o.SHA256 {
		return nil, &UnsupportedError{DType: d.t.DType, Reason: "computed values have no bytes to digest"}
	}
	if d.packed != nil || d.quant != nil || d.fn != nil {
		return d.scanElements(ctx, o)
	}
	bb := int(d.t.DType.BlockBytes())
	cb := o.ChunkBytes
	if cb <= 0 {
		cb = DefaultChunkBytes
	}
	cb = min(cb, MaxChunkBytes)
	// No buffer larger than the tensor: scanning 300 small tensors must
	// not allocate 8 MiB for each.
	cb = int(min(int64(cb), max(d.t.Length, 1)))
	cb -= cb % bb
	if cb == 0 {
		cb = bb
	}
	p := &pass{ctx: ctx, d: d, chunk: int64(cb), progress: o.Progress, total: d.t.Length}
	counted := d.counted()
	twoPass := !counted && o.HistBins > 0
	if twoPass {
		p.total *= 2
	}
	ws := make([]*worker, min(o.Workers, int(max(1, (d.t.Length+int64(cb)-1)/int64(cb)))))
	tableLen := 0
	if counted {
		switch d.k {
		case kTable8, kF4:
			tableLen = 256
		case kBF16, kF16, kI16, kU16:
			tableLen = 65536
		case kF6:
			tableLen = 64
		}
	}
	// A small tensor of a 16-bit type is counted in a sorted list of its
	// codes rather than in a table of 65,536 (three quarters of a
	// megabyte to clear and walk, for each of the thousands of small
	// tensors a page of a large MoE shows): the same statistics, summed
	// in the same order.
	sparse := tableLen == 65536 && d.n <= sparseCodes
	if sparse {
		tableLen = 0
	}
	for i := range ws {
		w := &worker{acc: newAcc()}
		if sparse {
			w.small = smallBufPool.Get().(*smallBufs)
			w.buf, w.codes = w.small.buf[:cb], w.small.codes[:0]
		}
		if tableLen > 0 {
			w.cnt32 = make([]uint32, tableLen)
			w.cnt = make([]uint64, tableLen)
		}
		ws[i] = w
	}
	var h hash.Hash
	if o.SHA256 {
		h = sha256.New()
	}
	if err := p.run(ws, h, d.statChunk); err != nil {
		return nil, err
	}
	var s *Stats
	if sparse {
		codes, counts := runs(ws)
		s = tableStats(d.t.DType, codes, counts, d.codeValue, o.HistBins)
		for _, w := range ws {
			smallBufPool.Put(w.small)
		}
	} else if counted {
		counts := ws[0].cnt
		for _, w := range ws[1:] {
			for c, m := range w.cnt {
				counts[c] += m
			}
		}
		if d.k == kF4 {
			codes := make([]uint64, 16)
			for b, m := range counts {
				codes[b&15] += m
				codes[b>>4] += m
			}
			counts = codes
		}
		s = tableStats(d.t.DType, nil, counts, d.codeValue, o.HistBins)
	} else {
		s = merged(ws, d.ValueType())
		if o.HistBins > 0 {
			var err error
			s.Hist, err = histogram(s, ws, o.HistBins, func(lo, hi float64) error {
				return p.run(ws, nil, func(w *worker, first uint64, raw []byte) error {
					return d.histChunk(w, first, raw, lo, hi)
				})
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if h != nil {
		s.SHA256 = h.Sum(nil)
	}
	if p.progress != nil && p.done != p.total {
		p.progress(p.total, p.total)
	}
	return s, nil
}

// sparseCodes is the most elements of a 16-bit tensor counted in a
// sorted list of codes rather than a table (see Scan).
const sparseCodes = 8192

// smallBufs are the buffers of a worker scanning a small 16-bit tensor:
// its chunk and its codes. They are reused from scan to scan (a page of
// a large MoE scans thousands of small tensors, and a daemon that handed
// its free memory back at idle pays a page fault for each fresh page).
type smallBufs struct {
	buf   []byte
	codes []uint16
}

var smallBufPool = sync.Pool{New: func() any {
	return &smallBufs{buf: make([]byte, 2*sparseCodes), codes: make([]uint16, 0, sparseCodes)}
}}

// runs returns the distinct codes the workers collected, ascending, and
// how many elements have each.
func runs(ws []*worker) (codes []int32, counts []uint64) {
	all := ws[0].codes
	for _, w := range ws[1:] {
		all = append(all, w.codes...)
	}
	slices.Sort(all)
	distinct := 0
	for i := range all {
		if i == 0 || all[i] != all[i-1] {
			distinct++
		}
	}
	codes, counts = make([]int32, 0, distinct), make([]uint64, 0, distinct)
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j] == all[i] {
			j++
		}
		codes = append(codes, int32(all[i]))
		counts = append(counts, uint64(j-i))
		i = j
	}
	return codes, counts
}

// counted reports whether statistics are derived from counts of codes:
// types of 16 bits or fewer, unless scaled.
func (d *Decoder) counted() bool { return d.k.table() && d.scale == nil }

// f32Subnormals counts the float32 subnormals among vals.
func f32Subnormals(vals []float64) uint64 {
	var n uint64
	for _, x := range vals {
		if x != 0 && math.Abs(x) < 0x1p-126 {
			n++
		}
	}
	return n
}

// codeValue is the value of code c of a table type.
func (d *Decoder) codeValue(c int) float64 {
	tb := tables()
	switch d.k {
	case kTable8:
		return float64(tb.t8[d.t.DType][c])
	case kBF16:
		return float64(math.Float32frombits(uint32(c) << 16))
	case kF16:
		return float64(tb.f16[c])
	case kI16:
		return float64(int16(c))
	case kU16:
		return float64(c)
	case kF4:
		return float64(tb.f4[c])
	case kF6:
		return float64(tb.f6[d.t.DType][c])
	}
	return math.NaN()
}

// statChunk accumulates raw, whole blocks starting at element first.
func (d *Decoder) statChunk(w *worker, first uint64, raw []byte) error {
	if d.counted() {
		if w.cnt32 == nil { // a small 16-bit tensor: a list of codes
			if w.codes == nil { // at most the tensor's, so it never grows
				w.codes = make([]uint16, 0, d.n)
			}
			at := len(w.codes)
			w.codes = slices.Grow(w.codes, len(raw)/2)[:at+len(raw)/2]
			codes := w.codes[at:]
			for i := range codes {
				codes[i] = binary.LittleEndian.Uint16(raw[2*i:])
			}
			return nil
		}
		countCodes(d.k, raw, w.cnt32)
		for c, m := range w.cnt32 {
			if m != 0 {
				w.cnt[c] += uint64(m)
				w.cnt32[c] = 0
			}
		}
		return nil
	}
	return d.eachFloat64(w, first, raw, func(vals []float64, bits []byte) {
		if d.Dequantized() {
			w.acc.sub += f32Subnormals(vals)
		}
		w.acc.block(vals)
		switch d.k {
		case kF32:
			for i := 0; i+4 <= len(bits); i += 4 {
				if v := binary.LittleEndian.Uint32(bits[i:]); v&0x7f800000 == 0 && v&0x7fffff != 0 {
					w.acc.sub++
				}
			}
		case kF64:
			for i := 0; i+8 <= len(bits); i += 8 {
				if Subnormal(tensor.F64, binary.LittleEndian.Uint64(bits[i:])) {
					w.acc.sub++
				}
			}
		}
	})
}

// histChunk bins the finite values of raw.
func (d *Decoder) histChunk(w *worker, first uint64, raw []byte, lo, hi float64) error {
	bins := len(w.hist)
	return d.eachFloat64(w, first, raw, func(vals []float64, _ []byte) {
		for _, x := range vals {
			if x-x == 0 {
				w.hist[binIndex(x, lo, hi, bins)]++
			}
		}
	})
}

// eachFloat64 decodes raw to float64 in pieces of up to 1024 values and
// calls fn with each piece and, for plain types, its bytes.
func (d *Decoder) eachFloat64(w *worker, first uint64, raw []byte, fn func(vals []float64, bits []byte)) error {
	if d.k != kBlock && d.scale == nil {
		bb := int(d.t.DType.BlockBytes())
		vals := w.floats()
		step := len(vals) * bb
		for off := 0; off < len(raw); off += step {
			piece := raw[off:min(off+step, len(raw))]
			n, err := Float64(d.t.DType, piece, vals)
			if err != nil {
				return err
			}
			fn(vals[:n], piece)
		}
		return nil
	}
	n, err := Elements(d.t.DType, len(raw))
	if err != nil {
		return err
	}
	if cap(w.f32) < n {
		w.f32 = make([]float32, n)
	}
	f := w.f32[:n]
	if err := d.decodeRaw(first, raw, f); err != nil {
		return err
	}
	w.widen(f, func(vals []float64) { fn(vals, nil) })
	return nil
}

// countCodes adds the code of every element of raw to cnt.
func countCodes(k kind, raw []byte, cnt []uint32) {
	switch k {
	case kTable8, kF4:
		c := cnt[:256]
		for _, b := range raw {
			c[b]++
		}
	case kBF16, kF16, kI16, kU16:
		c := (*[65536]uint32)(cnt)
		i := 0
		for ; i+8 <= len(raw); i += 8 {
			v := binary.LittleEndian.Uint64(raw[i:])
			c[uint16(v)]++
			c[uint16(v>>16)]++
			c[uint16(v>>32)]++
			c[uint16(v>>48)]++
		}
		for ; i+2 <= len(raw); i += 2 {
			c[uint16(raw[i])|uint16(raw[i+1])<<8]++
		}
	case kF6:
		c := cnt[:64]
		for g := 0; g+3 <= len(raw); g += 3 {
			v := uint32(raw[g]) | uint32(raw[g+1])<<8 | uint32(raw[g+2])<<16
			c[v&63]++
			c[v>>6&63]++
			c[v>>12&63]++
			c[v>>18&63]++
		}
	}
}

// pass is one pass of reads over a tensor.
type pass struct {
	ctx      context.Context
	d        *Decoder
	chunk    int64
	progress func(done, total int64)
	mu       sync.Mutex
	done     int64
	total    int64
}

func (p *pass) report(n int) {
	if p.progress == nil {
		return
	}
	p.mu.Lock()
	p.done += int64(n)
	p.progress(p.done, p.total)
	p.mu.Unlock()
}

// run reads every chunk once, each worker claiming the next, and calls fn
// with it; with h non-nil, the chunks are also hashed in order.
func (p *pass) run(ws []*worker, h hash.Hash, fn func(w *worker, first uint64, raw []byte) error) error {
	t := p.d.t
	nChunks := (t.Length + p.chunk - 1) / p.chunk
	be, bb := t.DType.BlockElems(), t.DType.BlockBytes()
	ctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	var hs *orderedHasher
	if h != nil {
		hs = newOrderedHasher(ctx, h, len(ws), int(p.chunk))
		par.Go(func() { hs.loop(nChunks) })
	}
	err := par.Do(ctx, len(ws), int(nChunks), func(ctx context.Context, wi, ci int) error {
		w, i := ws[wi], int64(ci)
		if testHookClaimed != nil {
			testHookClaimed(wi, i)
		}
		var buf []byte
		if hs != nil {
			var err error
			if buf, err = hs.take(ctx, wi); err != nil {
				return err
			}
		} else {
			if w.buf == nil {
				w.buf = make([]byte, p.chunk)
			}
			buf = w.buf
		}
		off := i * p.chunk
		raw := buf[:min(p.chunk, t.Length-off)]
		if err := readFull(t, off, raw); err != nil {
			return err
		}
		p.report(len(raw))
		if err := fn(w, uint64(off)/bb*be, raw); err != nil {
			return err
		}
		if hs != nil {
			hs.put(i, wi, raw)
		}
		return nil
	})
	if hs != nil {
		if err != nil {
			cancel()
		}
		<-hs.finished
	}
	return err
}

// Test hooks of run: testHookClaimed is called when a worker has claimed
// a chunk, testHookBufferWait when a worker is about to wait for a
// buffer of the ordered hasher.
var (
	testHookClaimed    func(w int, chunk int64)
	testHookBufferWait func(w int)
)

// buffersPerWorker is how many chunk buffers each worker of a hashed pass
// owns: one being filled while the last waits for its turn to be hashed.
const buffersPerWorker = 2

// orderedHasher hashes chunks in index order as workers finish them, out
// of order. Each worker owns buffersPerWorker chunk buffers, and a
// hashed chunk's buffer goes back to the worker that filled it, never to
// another: that is what makes the pass deadlock-free. A worker claims
// chunks in increasing order, one at a time, so when it waits for a
// buffer for chunk i, every buffer it owns holds a chunk below i; once
// every chunk below i is hashed, all of them are free. The lowest chunk
// not yet hashed therefore always gets a buffer, and the hasher always
// moves on, however slow any worker is. (A pool shared by all workers
// did not have this property: while the claimant of the next chunk to
// hash was descheduled between its claim and taking a buffer, the others
// could take every buffer for later chunks, which are freed only after
// it, and both sides waited forever.)
type orderedHasher struct {
	ctx      context.Context
	h        hash.Hash
	free     []chan []byte // per worker
	mu       sync.Mutex
	cond     *sync.Cond
	pending  map[int64]filled
	finished chan struct{}
}

// filled is a chunk waiting to be hashed, and the worker whose buffer
// holds it.
type filled struct {
	raw   []byte
	owner int
}

func newOrderedHasher(ctx context.Context, h hash.Hash, workers, size int) *orderedHasher {
	o := &orderedHasher{ctx: ctx, h: h, free: make([]chan []byte, workers), pending: make(map[int64]filled, workers*buffersPerWorker), finished: make(chan struct{})}
	o.cond = sync.NewCond(&o.mu)
	for w := range o.free {
		o.free[w] = make(chan []byte, buffersPerWorker)
		for range buffersPerWorker {
			o.free[w] <- make([]byte, size)
		}
	}
	context.AfterFunc(ctx, func() {
		o.mu.Lock()
		o.cond.Broadcast()
		o.mu.Unlock()
	})
	return o
}

// take returns one of worker w's free buffers, waiting for one if need
// be, or ctx's error if it ends first.
func (o *orderedHasher) take(ctx context.Context, w int) ([]byte, error) {
	select {
	case buf := <-o.free[w]:
		return buf, nil
	default:
	}
	if testHookBufferWait != nil {
		testHookBufferWait(w)
	}
	select {
	case buf := <-o.free[w]:
		return buf, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// put hands chunk i, filled by worker w, to the hasher.
func (o *orderedHasher) put(i int64, w int, raw []byte) {
	o.mu.Lock()
	o.pending[i] = filled{raw, w}
	o.cond.Broadcast()
	o.mu.Unlock()
}

func (o *orderedHasher) loop(n int64) {
	defer close(o.finished)
	for i := int64(0); i < n; i++ {
		o.mu.Lock()
		f, ok := o.pending[i]
		for !ok && o.ctx.Err() == nil {
			o.cond.Wait()
			f, ok = o.pending[i]
		}
		delete(o.pending, i)
		o.mu.Unlock()
		if !ok {
			return
		}
		o.h.Write(f.raw)
		o.free[f.owner] <- f.raw[:cap(f.raw)] // never blocks: the channel holds all the owner's buffers
	}
}

// scanElements scans a decoder whose elements are not its tensor's byte
// order (a packed weight): workers decode element ranges of about 1M
// values with Float32; the digest is of the packed tensor's bytes, read
// once more in order.
func (d *Decoder) scanElements(ctx context.Context, o ScanOptions) (*Stats, error) {
	rowLen := max(d.Shape()[len(d.Shape())-1], 1)
	chunk := max(1, (1<<20)/rowLen) * rowLen
	nChunks := (d.n + chunk - 1) / chunk
	passes := int64(1)
	if o.HistBins > 0 {
		passes++
	}
	if o.SHA256 {
		passes++
	}
	var mu sync.Mutex
	var done int64
	total := passes * d.t.Length
	report := func(elems uint64) {
		if o.Progress == nil || d.n == 0 {
			return
		}
		mu.Lock()
		done += int64(float64(elems) / float64(d.n) * float64(d.t.Length))
		o.Progress(min(done, total), total)
		mu.Unlock()
	}
	ws := make([]*worker, max(1, min(o.Workers, int(min(nChunks, 1<<20)))))
	for i := range ws {
		ws[i] = &worker{acc: newAcc(), f32: make([]float32, min(chunk, d.n))}
	}
	each := func(fn func(w *worker, vals []float64)) error {
		return parallel(ctx, ws, nChunks, func(w *worker, c uint64) error {
			start := c * chunk
			f := w.f32[:min(chunk, d.n-start)]
			if err := d.Float32(start, f); err != nil {
				return err
			}
			w.widen(f, func(vals []float64) { fn(w, vals) })
			report(uint64(len(w.f32[:min(chunk, d.n-start)])))
			return nil
		})
	}
	if err := each(func(w *worker, vals []float64) { w.acc.sub += f32Subnormals(vals); w.acc.block(vals) }); err != nil {
		return nil, err
	}
	s := merged(ws, tensor.F32)
	if o.HistBins > 0 {
		var err error
		s.Hist, err = histogram(s, ws, o.HistBins, func(lo, hi float64) error {
			return each(func(w *worker, vals []float64) {
				for _, x := range vals {
					if x-x == 0 {
						w.hist[binIndex(x, lo, hi, o.HistBins)]++
					}
				}
			})
		})
		if err != nil {
			return nil, err
		}
	}
	if o.SHA256 {
		h := sha256.New()
		buf := make([]byte, min(int64(DefaultChunkBytes), max(d.t.Length, 1)))
		for off := int64(0); off < d.t.Length; off += int64(len(buf)) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			raw := buf[:min(int64(len(buf)), d.t.Length-off)]
			if err := readFull(d.t, off, raw); err != nil {
				return nil, err
			}
			h.Write(raw)
			if o.Progress != nil {
				mu.Lock()
				done += int64(len(raw))
				o.Progress(min(done, total), total)
				mu.Unlock()
			}
		}
		s.SHA256 = h.Sum(nil)
	}
	if o.Progress != nil && done != total {
		o.Progress(total, total)
	}
	return s, nil
}

// parallel calls fn for chunks 0..n-1, each worker claiming the next; the
// first error ends it.
func parallel(ctx context.Context, ws []*worker, n uint64, fn func(w *worker, c uint64) error) error {
	return par.Do(ctx, len(ws), int(n), func(_ context.Context, w, c int) error { return fn(ws[w], uint64(c)) })
}

// merged is the statistics of the workers' accumulators together.
func merged(ws []*worker, dt tensor.DType) *Stats {
	a := ws[0].acc
	for _, w := range ws[1:] {
		a.merge(&w.acc)
	}
	return a.stats(dt)
}

// histogram is s's histogram of bins: pass, a second pass over the
// values, counts each worker's finite ones between lo and hi into its
// w.hist (made here), which are then added up. Without finite values
// there is no second pass.
func histogram(s *Stats, ws []*worker, bins int, pass func(lo, hi float64) error) (*Histogram, error) {
	hist := &Histogram{Min: s.Min, Max: s.Max, Counts: make([]uint64, bins), NaN: s.NaN, PosInf: s.PosInf, NegInf: s.NegInf}
	if s.Finite() == 0 {
		return hist, nil
	}
	for _, w := range ws {
		w.hist = make([]uint64, bins)
	}
	if err := pass(s.Min, s.Max); err != nil {
		return nil, err
	}
	hist.add(ws)
	return hist, nil
}

// add sums the workers' bin counts into h.
func (h *Histogram) add(ws []*worker) {
	for _, w := range ws {
		for i, m := range w.hist {
			h.Counts[i] += m
		}
	}
}
