package model

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/fsmount/fsmount/pytorch"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// The file names of a PyTorch checkpoint, as transformers writes them.
const (
	PyTorchName      = "pytorch_model.bin"
	PyTorchIndexName = "pytorch_model.bin.index.json"
)

// isPyTorch reports whether a single file is named as a PyTorch checkpoint.
func isPyTorch(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".bin", ".pt", ".pth", ".ptl", ".ckpt":
		return true
	}
	return false
}

// openPyTorchDir opens pytorch_model.bin, or its index and shards, of a
// directory without safetensors weights. It returns fs.ErrNotExist when
// there is neither.
func (m *Model) openPyTorchDir() error {
	f, err := openPyTorch(m.Source, PyTorchName)
	switch {
	case err == nil:
		m.Format = FormatPyTorch
		return m.joinPyTorch([]*pytorch.File{f})
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	raw, err := source.ReadFile(m.Source, PyTorchIndexName, MaxIndexSize)
	if err != nil {
		return err
	}
	m.Format = FormatPyTorch
	idx, files, err := parseOpening(m.Source, join(m.Source, PyTorchIndexName), raw, openPyTorch)
	if err != nil {
		return diagnoseIndex(join(m.Source, PyTorchIndexName), err)
	}
	m.Index = idx
	if err := m.joinPyTorch(files); err != nil {
		return err
	}
	return m.checkIndex(idx)
}

// joinPyTorch takes ownership of files, joins their tensors and makes the
// virtual safetensors files that serve them.
func (m *Model) joinPyTorch(files []*pytorch.File) error {
	m.Format = FormatPyTorch
	lists := make([][]*tensor.Tensor, len(files))
	for i, f := range files {
		m.Files = append(m.Files, f.Source())
		m.warnings = append(m.warnings, f.Warnings()...)
		lists[i] = f.Tensors()
	}
	tensors, err := pytorch.Join(files)
	if err != nil {
		return err
	}
	m.setTensors(tensors)
	m.pyFiles = files
	return nil
}

// VirtualFiles returns the files that exist nowhere but serve the model
// in another format: for a PyTorch checkpoint, model.safetensors (or one
// model-0000N-of-0000M.safetensors per shard and their
// model.safetensors.index.json), whose header is generated and whose
// data is read from the checkpoint's storages. None for other formats,
// or when a tensor has a type safetensors lacks. They are made on the
// first call.
func (m *Model) VirtualFiles() ([]source.File, error) {
	m.virtualOnce.Do(func() {
		if m.DCP != nil {
			m.virtual, m.virtualErr = m.dcpVirtual()
			return
		}
		if len(m.pyFiles) == 0 {
			return
		}
		lists := make([][]*tensor.Tensor, len(m.pyFiles))
		for i, f := range m.pyFiles {
			lists[i] = f.Tensors()
		}
		m.virtual, m.virtualErr = virtualSafetensors(m.pyFiles, lists)
	})
	return m.virtual, m.virtualErr
}

// virtualSafetensors lays a PyTorch checkpoint out as safetensors:
// model.safetensors for one file; for shards, one
// model-0000N-of-0000M.safetensors per .bin and their index.
func virtualSafetensors(files []*pytorch.File, lists [][]*tensor.Tensor) ([]source.File, error) {
	meta := map[string]string{"format": "pt"}
	for _, l := range lists {
		for _, t := range l {
			if _, ok := safetensors.ParseDType(t.DType.String()); !ok {
				return nil, nil // a type safetensors lacks: no virtual files
			}
		}
	}
	return virtualShards(lists, meta, func(i int) source.File { return files[i].Source() })
}

// virtualShards lays groups of tensors out as safetensors files:
// model.safetensors for one group; else one
// model-0000N-of-0000M.safetensors per group and their index. src(i) is
// the file group i's bytes are read from (the index names src(0)).
func virtualShards(groups [][]*tensor.Tensor, meta map[string]string, src func(i int) source.File) ([]source.File, error) {
	if len(groups) == 1 {
		v, err := safetensors.NewVirtual(SingleName, groups[0], meta, src(0))
		if err != nil {
			return nil, err
		}
		return []source.File{v}, nil
	}
	var out []source.File
	var shards []*safetensors.Virtual
	for i, g := range groups {
		v, err := safetensors.NewVirtual(fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, len(groups)), g, meta, src(i))
		if err != nil {
			return nil, err
		}
		shards = append(shards, v)
		out = append(out, v)
	}
	return append(out, safetensors.NewBytes(IndexName, safetensors.IndexJSON(shards), src(0))), nil
}
