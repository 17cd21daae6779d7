package views

import (
	"context"
	"errors"
	"io"
	"math"
	"sync"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/tensor"
)

// View is a file's contents: its size, known without reading the tensor,
// and random-access reads. ReadAt follows io.ReaderAt: a read reaching
// the end returns the bytes there and io.EOF.
type View interface {
	Size() int64
	ReadAt(p []byte, off int64) (int, error)
}

// DefaultHistBins is the number of histogram bins unless told otherwise.
const DefaultHistBins = 32

// ErrBadOffset is returned for a negative read offset.
var ErrBadOffset = errors.New("views: negative offset")

// Options are the options of [NewTensor]; nil means defaults.
type Options struct {
	// Decoder, if non-nil, decodes the values: a decoder the caller built
	// for a layout with companions, such as [decode.NewGPTQ] or
	// [decode.NewAWQ] (t is then its packed weight, whose bytes sha256
	// digests). It takes precedence over Scale.
	Decoder *decode.Decoder
	// Scale, if non-nil, is the block-scale companion of an FP8 weight
	// (its weight_scale_inv), and Block its weight_block_size [bn, bk]:
	// the values are then the dequantized ones.
	Scale *tensor.Tensor
	Block [2]uint64
	// HistBins is the histogram's bin count; 0 means DefaultHistBins.
	HistBins int
	// Scan, if non-nil, is passed to the scans (workers, chunk size,
	// progress); its HistBins and SHA256 are set by the views.
	Scan *decode.ScanOptions
}

// Tensor is the views of one tensor, and the cache of its statistics.
// It is safe for concurrent use.
type Tensor struct {
	t      *tensor.Tensor
	dec    *decode.Decoder // nil when not decodable
	decErr error
	bins   int
	scan   decode.ScanOptions

	statsC cached[*decode.Stats]
	shaC   cached[[]byte]

	values, f32, stats, sha, hist View
	npy                           *NPY
}

// NewTensor returns the views of t. A tensor that cannot be decoded (its
// type, or a scale companion that does not fit it) still has views: its
// raw views work, the others hold the reason; [Tensor.Err] returns it.
func NewTensor(t *tensor.Tensor, opts *Options) *Tensor {
	var o Options
	if opts != nil {
		o = *opts
	}
	v := &Tensor{t: t, bins: o.HistBins}
	if v.bins <= 0 {
		v.bins = DefaultHistBins
	}
	if v.bins > decode.MaxHistBins {
		v.bins = decode.MaxHistBins
	}
	if o.Scan != nil {
		v.scan = *o.Scan
	}
	v.dec, v.decErr = decoderOf(t, &o)
	v.values = newValues(v)
	v.f32 = newF32(v)
	v.npy = newNPY(v)
	v.stats = newStatsView(v)
	v.sha = &shaView{v: v}
	v.hist = newHistView(v)
	return v
}

// decoderOf returns the decoder of t's views, or nil and why there is
// none.
func decoderOf(t *tensor.Tensor, o *Options) (*decode.Decoder, error) {
	var d *decode.Decoder
	var err error
	switch {
	case o.Decoder != nil:
		d = o.Decoder
	case o.Scale != nil:
		d, err = decode.NewScaled(t, o.Scale, o.Block)
	default:
		d, err = decode.NewDecoder(t)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Shown returns t's type as the views of t made with opts show it (a
// dequantized tensor's says what its values are: "Q4_K (as F32)") and
// the shape of their values. It makes a decoder only where that may
// differ from t's own type and shape (options, a quantized type), never
// the views: what a listing of many tensors needs.
func Shown(t *tensor.Tensor, opts *Options) (dtype string, shape []uint64) {
	if (opts == nil || opts.Decoder == nil && opts.Scale == nil) && !t.DType.Quantized() {
		return t.DType.String(), t.Shape
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	d, _ := decoderOf(t, &o)
	return ShownBy(t, d)
}

// ShownBy is [Shown] for t decoded by d (nil: not decoded).
func ShownBy(t *tensor.Tensor, d *decode.Decoder) (dtype string, shape []uint64) {
	if d == nil {
		return t.DType.String(), t.Shape
	}
	dtype = t.DType.String()
	if d.Dequantized() {
		dtype += " (as " + d.ValueType().String() + ")"
	}
	return dtype, d.Shape()
}

// Tensor returns the tensor viewed.
func (v *Tensor) Tensor() *tensor.Tensor { return v.t }

// Err returns why the values cannot be decoded, or nil.
func (v *Tensor) Err() error { return v.decErr }

// Decoder returns the tensor's decoder, nil when it cannot be decoded.
func (v *Tensor) Decoder() *decode.Decoder { return v.dec }

// Values returns the values view.
func (v *Tensor) Values() View { return v.values }

// ValuesF32 returns the values.f32 view.
func (v *Tensor) ValuesF32() View { return v.f32 }

// NPY returns the values.npy view.
func (v *Tensor) NPY() *NPY { return v.npy }

// StatsFile returns the stats view.
func (v *Tensor) StatsFile() View { return v.stats }

// SHA256File returns the sha256 view.
func (v *Tensor) SHA256File() View { return v.sha }

// HistFile returns the hist view.
func (v *Tensor) HistFile() View { return v.hist }

// File is a named view.
type File struct {
	Name string
	View View
}

// Files returns every view with its file name, in a fixed order.
func (v *Tensor) Files() []File {
	return []File{{layout.Values, v.values}, {layout.ValuesF32, v.f32}, {layout.ValuesNPY, v.npy},
		{layout.Stats, v.stats}, {layout.SHA256, v.sha}, {layout.Hist, v.hist}}
}

// Stats returns the tensor's statistics with its histogram, scanning it
// on the first call; later calls, and calls made while the scan runs,
// share the result. A failed scan is not kept.
func (v *Tensor) Stats(ctx context.Context) (*decode.Stats, error) {
	if v.dec == nil {
		return nil, v.decErr
	}
	return v.statsC.get(ctx, func() (*decode.Stats, error) {
		o := v.scan
		o.HistBins, o.SHA256 = v.bins, false
		return v.dec.Scan(context.Background(), &o)
	})
}

// SHA256 returns the digest of the tensor's bytes, computed on the first
// call (with the statistics too, when they are not yet known, at no extra
// time: hashing is the slower part).
func (v *Tensor) SHA256(ctx context.Context) ([]byte, error) {
	return v.shaC.get(ctx, func() ([]byte, error) {
		o := v.scan
		o.SHA256 = true
		o.HistBins = v.bins
		d := v.dec
		if d == nil {
			// Raw bytes of a type without values: hash them as U8.
			raw := *v.t
			raw.DType, raw.Shape = tensor.U8, []uint64{uint64(max(raw.Length, 0))}
			var err error
			if d, err = decode.NewDecoder(&raw); err != nil {
				return nil, err
			}
		}
		s, err := d.Scan(context.Background(), &o)
		if err != nil {
			return nil, err
		}
		if v.dec != nil {
			v.statsC.set(s)
		}
		return s.SHA256, nil
	})
}

// cached is a value computed once by whichever caller comes first, shared
// with the callers that wait for it; an error is returned to the callers
// of that computation and not kept.
type cached[T any] struct {
	mu   sync.Mutex
	done bool
	val  T
	wait chan struct{} // non-nil while a computation runs
	err  error
}

func (c *cached[T]) get(ctx context.Context, compute func() (T, error)) (T, error) {
	for {
		c.mu.Lock()
		if c.done {
			v := c.val
			c.mu.Unlock()
			return v, nil
		}
		if w := c.wait; w != nil {
			c.mu.Unlock()
			select {
			case <-w:
			case <-ctx.Done():
				var zero T
				return zero, ctx.Err()
			}
			c.mu.Lock()
			if !c.done && c.wait == nil && c.err != nil {
				err := c.err
				c.mu.Unlock()
				var zero T
				return zero, err
			}
			c.mu.Unlock()
			continue
		}
		w := make(chan struct{})
		c.wait = w
		c.mu.Unlock()
		v, err := compute()
		c.mu.Lock()
		if err == nil && !c.done {
			c.val, c.done = v, true
		}
		c.err = err
		c.wait = nil
		close(w)
		c.mu.Unlock()
		return v, err
	}
}

func (c *cached[T]) set(v T) {
	c.mu.Lock()
	if !c.done {
		c.val, c.done = v, true
	}
	c.mu.Unlock()
}

// Bytes is a view of fixed bytes.
type Bytes []byte

// Size is len(b).
func (b Bytes) Size() int64 { return int64(len(b)) }

// ReadAt reads b as a file.
func (b Bytes) ReadAt(p []byte, off int64) (int, error) { return ReadBytes(b, p, off) }

// ReadBytes reads b as a file: p from off, io.EOF at or past the end,
// ErrBadOffset for a negative off.
func ReadBytes(b, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, ErrBadOffset
	}
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// notDecoded is the one-line view of a tensor without values.
func notDecoded(err error) View {
	msg := err.Error()
	if !errors.Is(err, decode.ErrUnsupported) {
		msg = "not decoded: " + msg
	}
	return Bytes(msg + "\n")
}

// unreadable is a binary view (values.f32, values.npy) of a tensor that
// cannot be decoded: it has the size the file would have, and every read
// fails with err, so that a program expecting floats gets an I/O error
// rather than a line of text where numbers should be. The text views say
// why in words.
type unreadable struct {
	size int64
	err  error
}

// newUnreadable returns the unreadable view of n float32 values after a
// header of h bytes; a size that does not fit in an int64 is given as 1,
// so that a read is still tried (and fails).
func newUnreadable(h int64, n uint64, err error) View {
	size := int64(1)
	if n <= uint64(math.MaxInt64-h)/4 {
		size = h + int64(n)*4
	}
	if size == 0 {
		size = 1
	}
	return &unreadable{size: size, err: err}
}

func (u *unreadable) Size() int64 { return u.size }

func (u *unreadable) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, ErrBadOffset
	}
	if off >= u.size {
		return 0, io.EOF
	}
	return 0, u.err
}

// lazyView is a fixed-size view whose bytes are rendered, on the first
// read, by render (which must produce exactly size bytes).
type lazyView struct {
	size   int64
	render func() ([]byte, error)
}

func (l *lazyView) Size() int64 { return l.size }

func (l *lazyView) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, ErrBadOffset
	}
	if off >= l.size || len(p) == 0 {
		if off >= l.size {
			return 0, io.EOF
		}
		return 0, nil
	}
	b, err := l.render()
	if err != nil {
		return 0, err
	}
	if int64(len(b)) != l.size {
		return 0, errors.New("views: rendered size differs from the size announced")
	}
	return ReadBytes(b, p, off)
}

// window is the part [lo, hi) of a view that a read of len(p) at off
// covers, or io.EOF.
func window(size int64, p []byte, off int64) (lo, hi int64, err error) {
	if off < 0 {
		return 0, 0, ErrBadOffset
	}
	if off >= size {
		return 0, 0, io.EOF
	}
	return off, off + min(int64(len(p)), size-off), nil
}

// eofIfShort returns io.EOF when n bytes do not fill p.
func eofIfShort(n int, p []byte) error {
	if n < len(p) {
		return io.EOF
	}
	return nil
}
