package testmodel

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
)

// RefLayout is one reference layout (spec/testdata/layouts.tar.gz, described
// by spec/testdata/layouts-README.md): a config
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
	byKey := map[string]*RefLayout{}
	err := EachTarGz(tgz, func(name string, b []byte) error {
		dir, file := path.Split(name)
		arch, variant := path.Split(strings.TrimSuffix(dir, "/"))
		arch = strings.TrimSuffix(arch, "/")
		key := arch + "/" + variant
		if byKey[key] == nil {
			byKey[key] = &RefLayout{Arch: arch, Variant: variant}
		}
		var err error
		switch file {
		case "config.json":
			byKey[key].Config = b
		case "tensors.tsv":
			if byKey[key].Tensors, err = ParseTensorsTSV(b); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
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

// EachTarGz calls fn with the name and contents of every regular file
// of a tar.gz, in the archive's order, and stops at its first error.
func EachTarGz(tgz string, fn func(name string, b []byte) error) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := fn(h.Name, b); err != nil {
			return err
		}
	}
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

// ExpandMoELayout grows a reference layout of a dense-first MoE model
// (DeepSeek-V3's a/: the first k layers dense, then sparse layers of a few
// experts) to layers layers of experts experts, by repeating its own
// names: layer 0's for the dense layers, the last layer's for the sparse
// ones, expert 0's for every expert. It does not consult spec: the names
// and shapes are transformers'. The config gets the new counts.
func ExpandMoELayout(l RefLayout, layers, experts, denseFirst int) ([]byte, []Tensor, error) {
	var cfg map[string]any
	if err := json.Unmarshal(l.Config, &cfg); err != nil {
		return nil, nil, err
	}
	last := int(cfg["num_hidden_layers"].(float64)) - 1
	oldE := uint64(cfg["n_routed_experts"].(float64))
	cfg["num_hidden_layers"], cfg["n_routed_experts"], cfg["first_k_dense_replace"] = layers, experts, denseFirst
	config, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	var global, final, dense, sparse []Tensor
	for _, t := range l.Tensors {
		switch m := layerIndex.FindStringSubmatch(t.Name); {
		case m == nil && strings.HasPrefix(t.Name, "model.embed"):
			global = append(global, t)
		case m == nil:
			final = append(final, t)
		case m[1] == "0":
			dense = append(dense, t)
		case m[1] == strconv.Itoa(last):
			sparse = append(sparse, t)
		}
	}
	out := append([]Tensor{}, global...)
	for i := range layers {
		kind := sparse
		if i < denseFirst {
			kind = dense
		}
		for _, t := range kind {
			name := layerIndex.ReplaceAllString(t.Name, ".layers."+strconv.Itoa(i)+".")
			if !strings.Contains(name, ".experts.") {
				shape := t.Shape
				if strings.Contains(name, ".mlp.gate.") && len(shape) > 0 && shape[0] == oldE {
					// The router scores every expert: [E, …].
					shape = append([]uint64{uint64(experts)}, shape[1:]...)
				}
				out = append(out, Tensor{Name: name, DType: t.DType, Shape: shape})
				continue
			}
			if !strings.Contains(name, ".experts.0.") {
				continue
			}
			for e := range experts {
				out = append(out, Tensor{Name: strings.Replace(name, ".experts.0.", ".experts."+strconv.Itoa(e)+".", 1), DType: t.DType, Shape: t.Shape})
			}
		}
	}
	return config, append(out, final...), nil
}

var layerIndex = regexp.MustCompile(`\.layers\.(\d+)\.`)

// WriteShardedLayout writes config.json, an index and sparse shards
// holding the tensors, about perShard tensors each, the way a sharded
// checkpoint is laid out: a hole for the data, so it costs only headers.
func WriteShardedLayout(dir string, config []byte, tensors []Tensor, perShard int) error {
	if err := os.WriteFile(filepath.Join(dir, "config.json"), config, 0o644); err != nil {
		return err
	}
	n := (len(tensors) + perShard - 1) / perShard
	wm := map[string]string{}
	byName := map[string]Tensor{}
	var total uint64
	for i, t := range tensors {
		wm[t.Name] = fmt.Sprintf("model-%05d-of-%05d.safetensors", i/perShard+1, n)
		byName[t.Name] = t
		total += NBytes(t.DType, t.Shape)
	}
	idx, err := json.Marshal(map[string]any{"metadata": map[string]any{"total_size": total}, "weight_map": wm})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors.index.json"), idx, 0o644); err != nil {
		return err
	}
	_, err = WriteSparseShards(dir, wm, func(name string) (string, []uint64) { return byName[name].DType, byName[name].Shape })
	return err
}

// WriteLayoutDir writes a header-only model (config.json and a
// model.safetensors whose data is a hole) from a reference layout
// directory src holding config.json and tensors.tsv; src's other .json
// files (hf_quant_config.json, …) are copied beside them.
func WriteLayoutDir(src, dir string) error {
	tsv, err := os.ReadFile(filepath.Join(src, "tensors.tsv"))
	if err != nil {
		return err
	}
	ts, err := ParseTensorsTSV(tsv)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(src, "tensors.tsv"), err)
	}
	config, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		return err
	}
	if err := writeInto(dir, "config.json", config); err != nil {
		return err
	}
	extra, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil {
		return err
	}
	for _, p := range extra {
		name := filepath.Base(p)
		if name == "config.json" || name == "case.json" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	entries, _ := Layout(ts)
	return WriteSparse(filepath.Join(dir, "model.safetensors"), entries, map[string]string{"format": "pt"})
}

// ExtractLayout writes the files under prefix ("quantized/ct-nvfp4/qwen3/")
// of a layouts archive (a tar.gz) into dir.
func ExtractLayout(tgz, prefix, dir string) error {
	found := false
	err := EachTarGz(tgz, func(name string, b []byte) error {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || rest == "" || strings.Contains(rest, "/") {
			return nil
		}
		found = true
		return os.WriteFile(filepath.Join(dir, rest), b, 0o644)
	})
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("%s: nothing under %s", tgz, prefix)
	}
	return nil
}
