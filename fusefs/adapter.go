package fusefs

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/render"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/tensor"
)

// The names of an adapter's layer of the tree: adapter_config.json at
// the root, and lora/ in each adapted module's directory, holding A, B
// (the stored factors, tensor directories), magnitude (DoRA's vector)
// and delta (scale·B·A, computed).
const (
	nameAdapterConfig = layout.AdapterConfig
	nameLoRA          = layout.LoRA
	nameA             = "A"
	nameB             = "B"
	nameMagnitude     = "magnitude"
	nameDelta         = "delta"
)

// mkdirsAny is mkdirs for paths added in any order: it finds an existing
// directory among all of its parent's children.
func (t *tree) mkdirsAny(dir *entry, comps []string, mtime *time.Time) *entry {
	for _, c := range comps {
		var next *entry
		for _, ch := range dir.children {
			if ch.name == c && ch.isDir() {
				next = ch
				break
			}
		}
		if next == nil {
			next = t.newEntry(c, syscall.S_IFDIR|0o555, mtime)
			dir.children = append(dir.children, next)
		}
		dir = next
	}
	return dir
}

// adapterLayer makes each adapted module's lora/, to be placed in the
// tensor tree under the module's directory (the base weight's, or,
// without a base, the path the module's weight would have).
func (t *tree) adapterLayer(ar *adapter.Report, paths map[string][]string) ([]item, error) {
	a := ar.Adapter
	mt := a.File.ModTime()
	fp := t.perms.of(a.File)
	var bare []string
	for _, m := range ar.Modules {
		if m.Weight == nil {
			bare = append(bare, m.Key+".weight")
		}
	}
	barePaths := layout.Tensors(bare, nil)
	var items []item
	for _, m := range ar.Modules {
		comps := barePaths[m.Key+".weight"]
		if m.Weight != nil {
			comps = paths[m.Weight.Name]
		}
		dir := t.newEntry(nameLoRA, syscall.S_IFDIR|0o555, &mt)
		for _, f := range []struct {
			name string
			t    *tensor.Tensor
		}{{nameA, m.A}, {nameB, m.B}, {nameMagnitude, m.Magnitude}} {
			if f.t == nil {
				continue
			}
			d := t.mkdirsAny(dir, []string{f.name}, &mt)
			d.td = t.newTensorDir(f.t, &mt, fp)
		}
		if shape := m.DeltaShape(); shape != nil {
			t.deltaDir(t.mkdirsAny(dir, []string{nameDelta}, &mt), m, shape, &mt, fp)
		}
		path := strings.Join(append(slices.Clone(comps), nameLoRA), "/")
		if err := t.finish(dir, path); err != nil {
			return nil, err
		}
		items = append(items, item{td: tensorDir{path: path}, ent: dir})
	}
	return items, nil
}

// adapterRoot adds the adapter's config and its stats table at the root.
func (t *tree) adapterRoot(ar *adapter.Report, top *time.Time, p *perm) {
	t.file(t.root, nameAdapterConfig, bytesContent(ar.Adapter.Config.Raw), top, t.perms.of(ar.Adapter.ConfigFile))
	t.file(t.root, layout.Stats, &adapterStats{t: t, ar: ar}, top, p)
}

// lazyDelta loads a module's factors on the first read of its delta.
type lazyDelta struct {
	m    *adapter.Module
	once sync.Once
	d    *adapter.Delta
	err  error
}

func (l *lazyDelta) get() (*adapter.Delta, error) {
	l.once.Do(func() { l.d, l.err = l.m.Delta() })
	return l.d, l.err
}

func (l *lazyDelta) values(start uint64, dst []float32) error {
	d, err := l.get()
	if err != nil {
		return err
	}
	return d.Float32(start, dst)
}

// deltaDir fills dir with the views of the module's delta: a computed
// decoder, so every view a tensor has works on it, row by row.
func (t *tree) deltaDir(dir *entry, m *adapter.Module, shape []uint64, mtime *time.Time, p *perm) {
	ld := &lazyDelta{m: m}
	dec, err := decode.NewComputed(m.Key+".lora.delta", shape, ld.values)
	if err != nil {
		t.text(dir, layout.Values, fmt.Sprintf("not computed: %v\n", err), mtime, p)
		return
	}
	v := views.NewTensor(dec.Tensor(), &views.Options{Decoder: dec})
	add := func(name string, c content) { t.file(dir, name, c, mtime, p) }
	add(layout.Shape, bytesContent(tensor.FormatShape(shape)+"\n"))
	add(layout.DType, bytesContent("F32\n"))
	add(layout.Values, viewContent{v.Values(), nil})
	add(layout.ValuesF32, viewContent{v.ValuesF32(), nil})
	add(layout.ValuesNPY, viewContent{v.NPY(), nil})
	add(layout.Stats, viewContent{v.StatsFile(), nil})
	add(layout.Hist, viewContent{v.HistFile(), nil})
	add(layout.Heatmap, viewContent{render.NewHeatmap(v, t.pictures), nil})
	add(layout.HistPNG, viewContent{render.NewHist(v, t.pictures), nil})
}

// adapterStats is the root stats of an adapter's mount: per adapted
// module its kind, rank, scale, ‖delta‖ (Frobenius, from the factors),
// ‖W‖ of the base weight and their ratio. Every line has the same
// length, so its size is known before anything is computed; the numbers
// are computed on the first read (‖W‖ scans each adapted base weight).
type adapterStats struct {
	t    *tree
	ar   *adapter.Report
	once sync.Once
	b    []byte
	err  error
}

const (
	statNumW  = 14 // "+1.234567e+000"-like fields: %14.6e
	statRankW = 7
	statKindW = 9
)

func (s *adapterStats) nameW() int {
	w := len("module")
	for _, m := range s.ar.Modules {
		w = max(w, len(m.Key))
	}
	return w
}

func (s *adapterStats) line(name, kind, rank, scale, dn, wn, ratio string) string {
	return fmt.Sprintf("%-*s %-*s %*s %*s %*s %*s %*s\n", s.nameW(), name, statKindW, kind, statRankW, rank, statNumW, scale, statNumW, dn, statNumW, wn, statNumW, ratio)
}

func (s *adapterStats) size() int64 {
	n := len(s.line("", "", "", "", "", "", ""))
	return int64(n * (1 + len(s.ar.Modules)))
}

func nan() float64 { return math.NaN() }

func sqrt(x float64) float64 { return math.Sqrt(x) }

func num(x float64) string {
	if x != x {
		return "nan"
	}
	return fmt.Sprintf("%14.6e", x)
}

func (s *adapterStats) compute() ([]byte, error) {
	var b strings.Builder
	b.WriteString(s.line("module", "kind", "rank", "scale", "|delta|", "|W|", "|delta|/|W|"))
	for _, m := range s.ar.Modules {
		dn, err := m.DeltaNorm()
		if err != nil {
			return nil, err
		}
		wn := nan()
		if m.Weight != nil {
			d, err := decode.NewDecoder(m.Weight)
			if err != nil {
				return nil, err
			}
			st, err := d.Scan(context.Background(), nil)
			if err != nil {
				return nil, err
			}
			wn = st.RMS * sqrt(float64(st.Finite()))
		}
		b.WriteString(s.line(m.Key, m.Kind, fmt.Sprint(m.Rank), num(m.Scale), num(dn), num(wn), num(dn/wn)))
	}
	return []byte(b.String()), nil
}

func (s *adapterStats) read(t *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	s.once.Do(func() { s.b, s.err = s.compute() })
	if s.err != nil || int64(len(s.b)) != s.size() {
		t.warnOnce("adapter-stats", fmt.Sprintf("adapter stats: %v", s.err))
		return nil, syscall.EIO
	}
	n, err := views.ReadBytes(s.b, dest, off)
	if err != nil && err != io.EOF {
		return nil, syscall.EIO
	}
	return fuse.ReadResultData(dest[:n]), fs.OK
}
