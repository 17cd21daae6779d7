// Package model opens a model at a location (a local path, an http(s)://
// URL, hf://ORG/NAME or s3://BUCKET/PREFIX, through package source,
// source/remote or source/s3): it finds the config and the weight files
// (one safetensors file, an index and its shards; PyTorch's
// pytorch_model.bin or its index and shards, read without running
// pickle; a PyTorch Distributed Checkpoint, .metadata and its .distcp
// files; or a GGUF file or split set, whose config it derives from the
// metadata and whose names it maps to Hugging Face names, [Names]), opens
// them through a [source.FS], has the format package (safetensors,
// pytorch, dcp, gguf) validate each, and joins their tensors into one
// list of [tensor.Tensor]. A sentence-transformers repository
// (modules.json) is its transformer module, with each other module's
// config and weights in [Model.Modules]. Of the library packages, only
// this one and package adapter (which opens an adapter's files the same
// way) import the format packages, besides the formats themselves (dcp
// reads through pytorch) and source/s3, which is source/remote with S3's
// signing (ARCHITECTURE.md; a test in internal/importclaims checks).
// What the model's config implies is package spec's, whether the files
// hold it package check's.
package model

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/fsmount/fsmount/dcp"
	"github.com/fsmount/fsmount/internal/download"
	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/pytorch"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/source/remote"
	"github.com/fsmount/fsmount/source/s3"
	"github.com/fsmount/fsmount/tensor"
)

// File names a model directory uses.
const (
	ConfigName = "config.json"
	SingleName = "model.safetensors"
	IndexName  = "model.safetensors.index.json"
)

// Size caps of the files read whole into memory. The largest real ones
// are far below: configs are a few KB, the 37,491-tensor FP8 index 3.5 MB.
const (
	MaxConfigSize = 4 << 20
	MaxIndexSize  = 256 << 20
)

// The formats of a model's weights.
const (
	FormatSafetensors = "safetensors"
	FormatGGUF        = "gguf"
	FormatPyTorch     = "pytorch"
	// FormatShapes is a model of shapes alone (FromShapes): no file,
	// no bytes.
	FormatShapes = "shapes"
)

// Model is an opened model: its config, if any, and its weights.
type Model struct {
	// Format is FormatSafetensors, FormatPyTorch, FormatDCP or
	// FormatGGUF: the format of the weight files (one model's are all of
	// one format); FormatShapes for a model made by [FromShapes].
	Format string
	// Metadata are a GGUF file's key/values in file order; nil for
	// safetensors.
	Metadata Metadata
	// Names maps the files' tensor names to Hugging Face names, for a
	// format that has its own (GGUF); nil when they are the same.
	Names Names
	// Location is what the user named: a directory, a file, a URL.
	Location string
	// Source is the root the files were read from.
	Source source.FS
	// Config is config.json's bytes, or nil; NoConfig then says why.
	// ConfigFile is the file they were read from (its owner and mode
	// bound who may read what is derived from it).
	Config     []byte
	ConfigName string
	ConfigFile source.File
	NoConfig   string
	// Files are the weight files, sorted by name.
	Files []source.File
	// Index is the parsed index of a sharded checkpoint, else nil. Its
	// Weights are dropped once the shards are checked against it (each
	// tensor knows its file): half a million names cost 30 MB.
	Index *safetensors.Index
	// Others are the model's other files, opened by OpenOthers: the
	// index, tokenizer and generation configs, and whatever else is beside
	// the weights.
	Others []source.File
	// Modules are a sentence-transformers repository's modules
	// (modules.json) in the order they run, nil for any other model.
	Modules []*Module

	tensors  []*tensor.Tensor // sorted by name
	byName   map[string]int   // nil when tensors are sorted
	warnings []string
	single   bool // one weight file was named, not a directory
	closers  []io.Closer

	// The safetensors files that serve a PyTorch checkpoint, made on
	// first use (VirtualFiles): a check never needs them.
	pyFiles     []*pytorch.File
	virtualOnce sync.Once
	virtual     []source.File
	virtualErr  error

	// DCP is what a Distributed Checkpoint holds besides its weights
	// (FormatDCP), else nil.
	DCP *DCPState
}

// ErrNoWeights is returned for a directory holding none of
// model.safetensors, model.safetensors.index.json, pytorch_model.bin and
// pytorch_model.bin.index.json.
var ErrNoWeights = errors.New("no " + SingleName + ", " + IndexName + ", " + PyTorchName + ", " + PyTorchIndexName + " or " + dcp.MetadataName)

// Open opens the model at loc: a directory with config.json and
// model.safetensors (or its index and shards), or, as transformers loads
// them when there are no safetensors weights, pytorch_model.bin (or its
// index and shards); a directory holding a PyTorch Distributed Checkpoint
// (.metadata and its .distcp files); a sentence-transformers repository
// (modules.json, see [Model.Modules]); a directory holding one GGUF model
// (a .gguf file or a split set) and no config.json; or a single weight
// file (.safetensors,
// .gguf, or PyTorch's .bin, .pt, .pth, .ptl, .ckpt), whose tensors are
// listed without a config (a GGUF file derives its own); locally,
// at an http(s):// URL or a Hub repository hf://ORG/NAME[@REVISION]
// (package source/remote), or in an S3 bucket, s3://BUCKET/PREFIX/ or
// s3://BUCKET/KEY (package source/s3).
func Open(loc string) (*Model, error) { return OpenWith(loc, nil) }

// OpenWith is Open with the options of a remote location (its caches,
// timeouts, token); nil means the defaults.
func OpenWith(loc string, ro *remote.Options) (*Model, error) {
	fsys, file, err := Locate(loc, ro)
	if err != nil {
		return nil, err
	}
	m, err := OpenFS(loc, fsys, file)
	if err != nil {
		return nil, diagnoseDir(loc, err)
	}
	return m, nil
}

// Locate resolves a location as Open takes it (s3://, http(s)://, hf://,
// a local directory or file) into the file system that holds it and, for
// a single file, the file's name there ("" for a directory). ro are the
// remote options (nil: the defaults).
func Locate(loc string, ro *remote.Options) (fsys source.FS, file string, err error) {
	var opts remote.Options
	if ro != nil {
		opts = *ro
	}
	if fsys, file, ok, err := s3.ParseLocation(loc, opts); ok || err != nil {
		return fsys, file, err
	}
	if fsys, file, ok, err := remote.ParseLocationOptions(loc, opts); ok || err != nil {
		return fsys, file, err
	}
	st, err := os.Stat(loc)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", download.NoSuchPath(loc, err)
	}
	if err != nil {
		return nil, "", err
	}
	if st.IsDir() {
		return source.Dir(loc), "", nil
	}
	dir, name := filepath.Split(loc)
	if dir == "" {
		dir = "."
	}
	return source.Dir(dir), name, nil
}

// OpenFS opens a model from fsys. With file empty, fsys is a model
// directory; otherwise file names the one weight file to open, and no
// config is read. loc is the location as the user named it.
//
// A directory holding modules.json is a sentence-transformers repository:
// the model is its transformer module (at the root, or in the module's
// directory), and Modules are all of its modules, each other module's
// config and weights read from its own directory.
func OpenFS(loc string, fsys source.FS, file string) (*Model, error) {
	if file != "" {
		return openFS(loc, fsys, file)
	}
	// modules.json is asked for with the model's files, not before them:
	// over a network each is a round trip.
	var (
		m         *Model
		mods      []*Module
		err, merr error
	)
	par.All(
		func() { mods, merr = readModules(fsys) },
		func() { m, err = openFS(loc, fsys, "") },
	)
	switch {
	case merr != nil && err != nil:
		// Both failed (no rights at all, a server down): the model's own
		// files are what the user asked for, so their error is the one told.
		return nil, err
	case merr != nil:
		if m != nil {
			m.Close()
		}
		return nil, merr
	case mods == nil:
		return m, err
	}
	return openSentence(loc, fsys, mods, m, err, func(root source.FS) (*Model, error) { return openFS(loc, root, "") })
}

// openFS is OpenFS without modules.json.
func openFS(loc string, fsys source.FS, file string) (*Model, error) {
	m := &Model{Location: loc, Source: fsys, single: file != "", Format: FormatSafetensors}
	if isGGUF(file) {
		if err := m.openGGUF(file); err != nil {
			m.Close()
			return nil, err
		}
		return m, nil
	}
	if file == dcp.MetadataName {
		// A Distributed Checkpoint named by its .metadata: its directory.
		file = ""
		m.single = false
	}
	if file != "" && isPyTorch(file) {
		m.NoConfig = "a single file was given, so there is no config.json to check it against"
		f, err := openPyTorch(fsys, file)
		if err != nil {
			return nil, err
		}
		if err := m.joinPyTorch([]*pytorch.File{f}); err != nil {
			m.Close()
			return nil, err
		}
		return m, nil
	}
	if file != "" {
		m.NoConfig = "a single file was given, so there is no config.json to check it against"
		f, err := openSafetensors(fsys, file)
		if err != nil {
			return nil, err
		}
		return m, m.join([]*safetensors.File{f})
	}
	// The config, model.safetensors and the index are asked for at once:
	// over a network each is a round trip, and all three are needed in
	// the usual case (the index is looked for beside model.safetensors
	// too, for the warning below).
	var (
		cf, idx          source.File
		cfg              []byte
		f                *safetensors.File
		cerr, serr, ierr error
	)
	par.All(
		func() { cf, cfg, cerr = source.ReadAll(fsys, ConfigName, MaxConfigSize) },
		func() { f, serr = openSafetensors(fsys, SingleName) },
		func() { idx, ierr = fsys.Open(IndexName) },
	)
	if ierr == nil {
		defer idx.Close()
	}
	switch {
	case errors.Is(cerr, fs.ErrNotExist):
		m.NoConfig = "there is no config.json in " + fsys.String()
	case cerr != nil:
		if f != nil {
			f.Close()
		}
		return nil, cerr
	default:
		m.Config, m.ConfigName, m.ConfigFile = cfg, cf.Name(), cf
	}
	// As transformers' from_pretrained and the Hub: model.safetensors if
	// there is one, else the index and its shards.
	err := serr
	if errors.Is(err, fs.ErrNotExist) && m.Config == nil {
		// A directory of llama.cpp's: one GGUF model, no config.json.
		if name, ok := findGGUF(fsys); ok {
			m.NoConfig = ""
			if err := m.openGGUF(name); err != nil {
				m.Close()
				return nil, err
			}
			return m, nil
		}
	}
	switch {
	case err == nil:
		if ierr == nil {
			m.warnings = append(m.warnings, IndexName+" ignored: "+SingleName+" is there, and transformers loads it first")
		}
		return m, m.join([]*safetensors.File{f})
	case !errors.Is(err, fs.ErrNotExist):
		m.Close()
		return nil, err
	}
	raw, err := readOpen(idx, ierr, MaxIndexSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// As transformers: pytorch_model.bin, or its index, when there
		// are no safetensors weights.
		err := m.openPyTorchDir()
		if errors.Is(err, fs.ErrNotExist) && !errors.Is(err, pytorch.ErrFormat) {
			// A PyTorch Distributed Checkpoint: .metadata and .distcp files.
			if derr := m.openDCPDir(); !isDCPNotExist(derr) {
				err = derr
			}
		}
		if err == nil {
			return m, nil
		}
		m.Close()
		if errors.Is(err, fs.ErrNotExist) && !errors.Is(err, pytorch.ErrFormat) {
			return nil, fmt.Errorf("%s: %w", fsys, ErrNoWeights)
		}
		return nil, err
	case err != nil:
		m.Close()
		return nil, err
	}
	return m, m.openIndexed(raw)
}

// readOpen reads the whole of f, opened with error err, as
// source.ReadFile reads a file it opens: refusing one over limit.
func readOpen(f source.File, err error, limit int64) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if f.Size() > limit {
		return nil, &source.TooLargeError{Name: f.Name(), Size: f.Size(), Limit: limit}
	}
	buf := make([]byte, f.Size())
	if n, err := f.ReadAt(buf, 0); n < len(buf) {
		if err == nil || err == io.EOF {
			err = fmt.Errorf("%s: read %d of %d bytes: %w", f.Name(), n, len(buf), io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	return buf, nil
}

func join(fsys source.FS, name string) string {
	s := fsys.String()
	if strings.HasSuffix(s, "/") {
		return s + name
	}
	return filepath.Join(s, name)
}

// openSafetensors and openPyTorch open a file of a source.FS with its
// format's parser (the file is closed if the parser fails).
var (
	openSafetensors = opener(safetensors.NewFile)
	openPyTorch     = opener(pytorch.NewFile)
)

func opener[T any](parse func(source.File) (T, error)) func(source.FS, string) (T, error) {
	return func(fsys source.FS, name string) (T, error) {
		return source.OpenWith(fsys, name, func(f source.File) (T, error) {
			t, err := parse(f)
			return t, Diagnose(f, err)
		})
	}
}

// maxOpeners bounds the shards opened at once: a remote source then has
// as many requests in flight (the Hub's JavaScript client reads 20 at
// once), as many as remote.Options.MaxConnsPerHost allows by default. A
// header-only check of 160 shards over 20 ms of latency is then five
// round trips, not ten.
const maxOpeners = 32

// openIndexed opens every shard an index names and checks the index
// against them (rules I1 to I7 of safetensors/RULES.md).
func (m *Model) openIndexed(raw []byte) error {
	idx, files, err := parseOpening(m.Source, join(m.Source, IndexName), raw, openSafetensors)
	if err != nil {
		m.Close()
		return diagnoseIndex(join(m.Source, IndexName), err)
	}
	m.Index = idx
	if err := m.join(files); err != nil {
		return err
	}
	if err := m.checkIndex(idx); err != nil {
		m.Close()
		return err
	}
	idx.Weights = nil
	return nil
}

// parseOpening parses the index raw (named name in messages) and opens
// the shards it names, each as soon as the index first names it: the
// index of a large checkpoint takes as long to read as its shards'
// headers, and the two then share the cores. If the index is invalid,
// its error is returned and the shards opened meanwhile are closed;
// otherwise it is finish's.
func parseOpening[F io.Closer](fsys source.FS, name string, raw []byte, open func(source.FS, string) (F, error)) (*safetensors.Index, []F, error) {
	o := newShardOpener(fsys, open)
	idx, err := safetensors.ParseIndexEach(name, raw, o.start)
	if err != nil {
		o.abandon()
		return nil, nil, err
	}
	files, err := o.finish(idx)
	if err != nil {
		return nil, nil, err
	}
	return idx, files, nil
}

// shardOpener opens shards, maxOpeners at once, as they are named.
// start and finish (or abandon) are called on one goroutine.
type shardOpener[F io.Closer] struct {
	fsys    source.FS
	open    func(source.FS, string) (F, error)
	limit   *par.Limit
	opening map[string]*openedShard[F] // by shard name: one per shard file
}

type openedShard[F io.Closer] struct {
	f   F
	err error
}

func newShardOpener[F io.Closer](fsys source.FS, open func(source.FS, string) (F, error)) *shardOpener[F] {
	return &shardOpener[F]{fsys: fsys, open: open, limit: par.NewLimit(maxOpeners), opening: map[string]*openedShard[F]{}}
}

// start begins opening shard, unless it is already.
func (o *shardOpener[F]) start(shard string) {
	if _, ok := o.opening[shard]; ok {
		return
	}
	r := &openedShard[F]{}
	o.opening[shard] = r
	o.limit.Go(func() { r.f, r.err = o.open(o.fsys, shard) })
}

// abandon waits for the opens under way and closes what they opened.
func (o *shardOpener[F]) abandon() {
	o.limit.Wait()
	for _, r := range o.opening {
		if r.err == nil {
			r.f.Close()
		}
	}
}

// finish opens the shards of idx not yet started, waits for them all,
// and checks rule I1 (every shard exists), then, in name order, each
// shard's own error; on error it closes what it opened.
func (o *shardOpener[F]) finish(idx *safetensors.Index) ([]F, error) {
	for _, s := range idx.Shards {
		o.start(s)
	}
	o.limit.Wait()
	files := make([]F, len(idx.Shards))
	errs := make([]error, len(idx.Shards))
	for i, s := range idx.Shards {
		files[i], errs[i] = o.opening[s].f, o.opening[s].err
	}
	err := idx.MissingShards(func(s string) bool {
		i, _ := slices.BinarySearch(idx.Shards, s)
		return !errors.Is(errs[i], fs.ErrNotExist)
	})
	if err = cmp.Or(err, cmp.Or(errs...)); err != nil {
		o.abandon()
		return nil, err
	}
	return files, nil
}

// checkIndex checks the joined tensors against the index (rules I2 to
// I7) and keeps its warnings.
func (m *Model) checkIndex(idx *safetensors.Index) error {
	listing, err := m.Source.List()
	if err != nil && !errors.Is(err, source.ErrNotListable) {
		return err
	}
	warnings, err := idx.Check(m.tensors, listing)
	if err != nil {
		return err
	}
	m.warnings = append(m.warnings, warnings...)
	return nil
}

// join takes ownership of files; on error it closes them.
func (m *Model) join(files []*safetensors.File) error {
	for _, f := range files {
		m.Files = append(m.Files, f.Source())
		m.warnings = append(m.warnings, f.Warnings()...)
	}
	tensors, err := safetensors.Join(files)
	if err != nil {
		m.Close()
		return err
	}
	m.setTensors(tensors)
	return nil
}

// maxOthers bounds the other files OpenOthers opens.
const maxOthers = 256

// wellKnown are the files a model repository usually holds besides its
// weights, tried where the source cannot list its files.
var wellKnown = []string{
	IndexName, "generation_config.json", "tokenizer.json", "tokenizer_config.json",
	"special_tokens_map.json", "tokenizer.model", "vocab.json", "merges.txt",
	"added_tokens.json", "chat_template.jinja", "preprocessor_config.json",
}

// OpenOthers opens the model's files other than config and weights: every
// regular file beside them (at most maxOthers), or, where the source
// cannot list its files, those of wellKnown that exist. Files that cannot
// be opened as regular files are skipped. A single-file model has none.
func (m *Model) OpenOthers() error {
	if m.single {
		return nil
	}
	names, err := m.Source.List()
	if errors.Is(err, source.ErrNotListable) {
		names, err = wellKnown, nil
	}
	if err != nil {
		return err
	}
	taken := map[string]bool{}
	for _, f := range m.AllFiles() {
		taken[baseName(f.Name())] = true
	}
	for _, n := range names {
		if taken[n] || len(m.Others) >= maxOthers {
			continue
		}
		f, err := m.Source.Open(n)
		if err != nil {
			continue
		}
		m.Others = append(m.Others, f)
	}
	return nil
}

// AllFiles returns config.json, the weight files and the others, sorted
// by name.
func (m *Model) AllFiles() []source.File {
	all := append([]source.File(nil), m.Files...)
	if m.ConfigFile != nil {
		all = append(all, m.ConfigFile)
	}
	all = append(all, m.Others...)
	slices.SortFunc(all, func(a, b source.File) int { return strings.Compare(a.Name(), b.Name()) })
	return all
}

func baseName(name string) string { return path.Base(filepath.ToSlash(name)) }

// Tensors returns every tensor of every file, sorted by name.
func (m *Model) Tensors() []*tensor.Tensor { return m.tensors }

// Tensor returns the named tensor, or nil.
func (m *Model) Tensor(name string) *tensor.Tensor {
	if i := m.TensorIndex(name); i >= 0 {
		return m.tensors[i]
	}
	return nil
}

// TensorIndex returns the named tensor's index in [Model.Tensors], or -1.
func (m *Model) TensorIndex(name string) int {
	if m.byName != nil {
		if i, ok := m.byName[name]; ok {
			return i
		}
		return -1
	}
	i, ok := slices.BinarySearchFunc(m.tensors, name, func(t *tensor.Tensor, n string) int { return strings.Compare(t.Name, n) })
	if !ok {
		return -1
	}
	return i
}

// setTensors sets the model's tensors. Sorted by name, as every format
// gives them, they are found by binary search: a map of half a million
// names cost 26 MB; otherwise by a map.
func (m *Model) setTensors(ts []*tensor.Tensor) {
	m.tensors, m.byName = ts, nil
	if !slices.IsSortedFunc(ts, func(a, b *tensor.Tensor) int { return strings.Compare(a.Name, b.Name) }) {
		m.byName = make(map[string]int, len(ts))
		for i, t := range ts {
			m.byName[t.Name] = i
		}
	}
}

// Warnings returns the files' warnings and the index's, the source's
// (a [source.Warner]), and, where weight files come from a server that
// sends no validator, that a change there cannot be detected.
func (m *Model) Warnings() []string {
	out := m.warnings
	if w, ok := m.Source.(source.Warner); ok {
		out = append(slices.Clip(out), w.Warnings()...)
	}
	if w := unversioned(m.Files); len(w) > 0 {
		out = append(slices.Clip(out), w...)
	}
	return out
}

// unversioned says which of files cannot be told from a replaced file
// ([source.Versioned] without a validator), and which only by a weak
// ETag: a warning for each kind there is.
func unversioned(files []source.File) []string {
	var blind, weak []string
	for _, f := range files {
		if v, ok := f.(source.Versioned); ok {
			switch v.Validator() {
			case "":
				blind = append(blind, f.Name())
			case "weak ETag":
				weak = append(weak, f.Name())
			}
		}
	}
	const why = "the server sends neither an ETag nor Last-Modified, so a file replaced there while in use cannot be detected (one of the same size would be read as a mix of both)"
	const whyWeak = "the server sends only a weak ETag (W/\"…\") and no Last-Modified; a weak ETag cannot make a range request conditional (If-Range and If-Match take only strong ones), so a replaced file is detected only by comparing each answer's weak ETag and size with the first's: a new version the server deems equivalent and gives the same weak ETag would be read as a mix of both"
	say := func(names []string, why string) string {
		switch len(names) {
		case 0:
			return ""
		case 1:
			return names[0] + ": " + why
		}
		return fmt.Sprintf("%d of %d weight files (%s, …): %s", len(names), len(files), names[0], why)
	}
	return slices.DeleteFunc([]string{say(blind, why), say(weak, whyWeak)}, func(s string) bool { return s == "" })
}

// Close closes every file.
func (m *Model) Close() error {
	err := source.CloseAll(m.ConfigFile, slices.Concat(m.Files, m.Others)...)
	for _, c := range m.closers {
		c.Close() // the files it opened are closed above
	}
	return err
}

// FromShapes returns a model of tensors that have names, dtypes and
// shapes and no bytes (their File is nil: nothing may read them), as
// config (config.json's bytes) implies them: what an adapter's check
// needs of its base when the base is given as its config.json alone.
func FromShapes(loc string, config []byte, ts []*tensor.Tensor) *Model {
	m := &Model{Location: loc, Format: FormatShapes, Config: config, ConfigName: ConfigName}
	m.setTensors(ts)
	return m
}
