package testmodel

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
)

// RefLayout is one reference layout (../shared/reference/layouts): a config
// and the tensors transformers' save_pretrained writes for it.
type RefLayout struct {
	Arch, Variant string // "deepseek_v3", "a", "b" or "a-v5"
	Config        []byte
	Tensors       []Tensor
}

// ReadLayouts reads every layout from a tar.gz of ARCH/VARIANT/config.json
// and ARCH/VARIANT/tensors.tsv (name, dtype, [shape]), sorted by arch and
// variant.
func ReadLayouts(tgz string) ([]RefLayout, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	byKey := map[string]*RefLayout{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		dir, file := path.Split(h.Name)
		arch, variant := path.Split(strings.TrimSuffix(dir, "/"))
		arch = strings.TrimSuffix(arch, "/")
		key := arch + "/" + variant
		if byKey[key] == nil {
			byKey[key] = &RefLayout{Arch: arch, Variant: variant}
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		switch file {
		case "config.json":
			byKey[key].Config = b
		case "tensors.tsv":
			if byKey[key].Tensors, err = ParseTensorsTSV(b); err != nil {
				return nil, fmt.Errorf("%s: %w", h.Name, err)
			}
		}
	}
	out := make([]RefLayout, 0, len(byKey))
	for _, l := range byKey {
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Arch != out[j].Arch {
			return out[i].Arch < out[j].Arch
		}
		return out[i].Variant < out[j].Variant
	})
	return out, nil
}

// ParseTensorsTSV parses name<TAB>dtype<TAB>[d0, d1, ...] lines.
func ParseTensorsTSV(b []byte) ([]Tensor, error) {
	var out []Tensor
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 3 {
			return nil, fmt.Errorf("line %d: %d columns", n, len(cols))
		}
		t := Tensor{Name: cols[0], DType: cols[1], Shape: []uint64{}}
		for _, d := range strings.Split(strings.Trim(cols[2], "[]"), ",") {
			if d = strings.TrimSpace(d); d == "" {
				continue
			}
			v, err := strconv.ParseUint(d, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
			t.Shape = append(t.Shape, v)
		}
		out = append(out, t)
	}
	return out, sc.Err()
}

// OpenHeaderOnly opens, in memory, a model of config.json and one
// model.safetensors whose header lists tensors and whose data section
// reads as zeros: what the cross-check needs, at any size, with no disk.
func OpenHeaderOnly(config []byte, tensors []Tensor) (*model.Model, error) {
	entries, dataLen := Layout(tensors)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	hdr := Header(entries, map[string]string{"format": "pt"})
	fsys := memFS{"config.json": {data: config, size: int64(len(config))},
		"model.safetensors": {data: hdr, size: int64(len(hdr)) + int64(dataLen)}}
	return model.OpenFS("mem", fsys, "")
}

// memFS is an in-memory source.FS of files whose bytes past data read
// as zeros.
type memFS map[string]struct {
	data []byte
	size int64
}

func (m memFS) Open(name string) (source.File, error) {
	f, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return source.NewReaderFile("mem/"+name, zeroTail{f.data, f.size}, f.size), nil
}

func (m memFS) List() ([]string, error) {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

func (m memFS) String() string { return "mem" }

type zeroTail struct {
	data []byte
	size int64
}

func (z zeroTail) ReadAt(p []byte, off int64) (int, error) {
	if off >= z.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && off+int64(n) < z.size {
		if i := off + int64(n); i < int64(len(z.data)) {
			n += copy(p[n:], z.data[i:])
		} else {
			p[n] = 0
			n++
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
