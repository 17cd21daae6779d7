package adapter

import (
	"errors"
	"fmt"
	"github.com/fsmount/fsmount/pytorch"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/source/remote"
	"github.com/fsmount/fsmount/tensor"
)

// File names of an adapter directory.
const (
	WeightsName = "adapter_model.safetensors"
	BinName     = "adapter_model.bin"
)

// MaxConfigSize caps adapter_config.json, read whole (real ones are
// about 1 KB).
const MaxConfigSize = 1 << 20

// ErrNotAdapter is returned for a location without adapter_config.json.
var ErrNotAdapter = errors.New("no " + ConfigName)

// ErrNoWeights is returned for an adapter without its weights file.
var ErrNoWeights = errors.New("no " + WeightsName)

// ErrBinUnread is returned for an adapter whose weights are
// adapter_model.bin while no PyTorch reader is registered (see BinReader).
var ErrBinUnread = errors.New(BinName + " (a PyTorch checkpoint) is not read: convert it to " + WeightsName)

// BinReader reads an adapter_model.bin (a torch.save checkpoint) into
// its tensors, with package pytorch's restricted reader (no pickle code
// runs). The tensors keep f for their bytes; Open closes f when the
// adapter is closed. A variable so that a test can take it away.
var BinReader = func(f source.File) ([]*tensor.Tensor, error) {
	p, err := pytorch.NewFile(f)
	if err != nil {
		return nil, err
	}
	return p.Tensors(), nil
}

// Adapter is an opened adapter: its config and its stored tensors.
type Adapter struct {
	// Location is what the user named.
	Location string
	Source   source.FS
	Config   *Config
	// ConfigFile is adapter_config.json, File the weights file.
	ConfigFile source.File
	File       source.File
	// Tensors are the stored tensors, sorted by name.
	Tensors  []*tensor.Tensor
	Warnings []string

	byName map[string]*tensor.Tensor
}

// Tensor returns the stored tensor of that name, or nil.
func (a *Adapter) Tensor(name string) *tensor.Tensor { return a.byName[name] }

// Close closes the adapter's files.
func (a *Adapter) Close() error {
	var err error
	for _, f := range []source.File{a.ConfigFile, a.File} {
		if f != nil {
			if e := f.Close(); err == nil {
				err = e
			}
		}
	}
	return err
}

// IsAdapter reports whether loc is a local directory holding
// adapter_config.json. It makes no network access: a remote location is
// an adapter if Open reads one there (see [IsRemote]).
func IsAdapter(loc string) bool {
	if IsRemote(loc) {
		return false
	}
	st, err := os.Stat(loc)
	if err != nil || !st.IsDir() {
		return false
	}
	_, err = os.Stat(strings.TrimSuffix(loc, "/") + "/" + ConfigName)
	return err == nil
}

// IsRemote reports whether loc is an http(s):// or hf:// location.
func IsRemote(loc string) bool {
	return strings.HasPrefix(loc, "hf://") || strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://")
}

// Open opens the adapter at loc: a directory, an http(s):// URL of one,
// hf://ORG/NAME[@REVISION] or an s3:// prefix (located as model.Locate
// locates a model). ro are the remote options (nil: defaults).
func Open(loc string, ro *remote.Options) (*Adapter, error) {
	fsys, file, err := model.Locate(loc, ro)
	if err != nil {
		return nil, err
	}
	if file != "" {
		return nil, fmt.Errorf("%s: an adapter is a directory holding %s", loc, ConfigName)
	}
	return OpenFS(loc, fsys)
}

// OpenFS opens the adapter whose files fsys holds.
func OpenFS(loc string, fsys source.FS) (*Adapter, error) {
	cf, raw, err := source.ReadAll(fsys, ConfigName, MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", fsys, ErrNotAdapter)
	}
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(cf.Name(), raw)
	if err != nil {
		cf.Close()
		return nil, err
	}
	a := &Adapter{Location: loc, Source: fsys, Config: cfg, ConfigFile: cf}
	src, err := fsys.Open(WeightsName)
	switch {
	case err == nil:
		f, err := safetensors.NewFile(src)
		if err != nil {
			err = model.Diagnose(src, err) // an LFS pointer, an HTML page, a truncated file
			src.Close()
			a.Close()
			return nil, err
		}
		a.File = src
		a.Warnings = f.Warnings()
		a.Tensors, err = safetensors.Join([]*safetensors.File{f})
		if err != nil {
			a.Close()
			return nil, err
		}
	case errors.Is(err, fs.ErrNotExist):
		bin, berr := fsys.Open(BinName)
		if berr != nil {
			a.Close()
			return nil, fmt.Errorf("%s: %w", fsys, ErrNoWeights)
		}
		if BinReader == nil {
			bin.Close()
			a.Close()
			return nil, fmt.Errorf("%s: %w", bin.Name(), ErrBinUnread)
		}
		a.File = bin
		if a.Tensors, err = BinReader(bin); err != nil {
			err = model.Diagnose(bin, err)
			a.Close()
			return nil, err
		}
		slices.SortFunc(a.Tensors, func(x, y *tensor.Tensor) int { return strings.Compare(x.Name, y.Name) })
	default:
		a.Close()
		return nil, err
	}
	a.byName = make(map[string]*tensor.Tensor, len(a.Tensors))
	for _, t := range a.Tensors {
		a.byName[t.Name] = t
	}
	return a, nil
}
