package pytorch

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// maxPickle bounds the pickle read into memory: data.pkl of a
// 37,000-tensor checkpoint is a few MB.
const maxPickle = 64 << 20

// File is a validated PyTorch checkpoint.
type File struct {
	src      source.File
	data     source.File // the tensors' File: src, or src behind a check (lazy.go)
	kind     string      // "zip" or "legacy"
	tensors  []*tensor.Tensor
	warnings []string
}

// Close closes the source file.
func (f *File) Close() error { return f.src.Close() }

// Name returns the source file's name.
func (f *File) Name() string { return f.src.Name() }

// Source returns the source file.
func (f *File) Source() source.File { return f.src }

// Tensors returns the tensors, sorted by name.
func (f *File) Tensors() []*tensor.Tensor { return f.tensors }

// Legacy reports whether the file is in the format of PyTorch before 1.6.
func (f *File) Legacy() bool { return f.kind == "legacy" }

// Warnings returns what was skipped (values that are not tensors).
func (f *File) Warnings() []string { return f.warnings }

// Open opens and validates the local file at path.
func Open(path string) (*File, error) {
	return source.OpenLocalWith(path, NewFile)
}

// legacyMagic is the legacy format's first pickle: protocol 2, the magic
// number 0x1950a86a20f9469cfc6c as a LONG1, STOP.
var legacyMagic = []byte{0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e}

// NewFile validates src as a checkpoint torch.save wrote: a ZIP archive
// (PyTorch 1.6 and later), or the legacy format. Only the central
// directory, the local headers of the storages and the pickle are read;
// the source stays open, owned by the caller until File.Close.
func NewFile(src source.File) (*File, error) {
	name := src.Name()
	// A local file's head is read a page at a time (see windowReader), a
	// remote one's in a short first request.
	headLen := int64(512)
	if !source.IsRemote(src) {
		headLen = headWindow
	}
	head := make([]byte, headLen)
	n, err := src.ReadAt(head, 0)
	if n < len(head) && err != nil && err != io.EOF {
		return nil, err
	}
	head = head[:n]
	f := &File{src: src, data: src}
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")):
		f.kind = "zip"
		err = f.readZip(head)
	case bytes.HasPrefix(head, legacyMagic):
		f.kind = "legacy"
		err = f.readLegacy()
	case len(head) >= 262 && bytes.Equal(head[257:262], []byte("ustar")):
		return nil, formatErr(name, CodeLegacyTar, "", "a tar archive: the format of PyTorch before 0.4, not read; load and re-save it with a recent torch")
	default:
		return nil, formatErr(name, CodeNotPyTorch, "", "not a PyTorch checkpoint: %s", guess(head))
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// guess says what a file that is not a checkpoint starts like.
func guess(head []byte) string {
	switch {
	case len(head) == 0:
		return "the file is empty"
	case bytes.HasPrefix(head, []byte("GGUF")):
		return "it is a GGUF file"
	case len(head) >= 9 && head[8] == '{':
		return "it looks like a safetensors file"
	case head[0] == 0x80:
		return "a pickle that is not torch.save's"
	}
	return fmt.Sprintf("it starts with %s, neither a ZIP archive nor torch.save's legacy pickle", printable(string(head[:min(len(head), 8)])))
}

// entry is a storage's record of the archive: its data's byte range in
// the file.
type entry struct {
	name     string
	off      int64
	size     int64
	stored   bool
	rec      *record
	st       *storage
	resolved bool
}

func newEntry(r *record) entry {
	return entry{name: r.name, size: int64(r.usize), stored: r.method == zipStore, rec: r}
}

// readZip reads the archive torch.save writes: ARCHIVE/data.pkl, the
// storages ARCHIVE/data/KEY, ARCHIVE/byteorder, ARCHIVE/version.
//
// The central directory is read by readDirectory (zipdir.go), through
// the windows of a local file; the storages are taken in its order,
// which is the file's for torch.save's archives, so nothing is sorted
// or looked up by record name but each storage's key.
func (f *File) readZip(head []byte) error {
	name := f.src.Name()
	var ra io.ReaderAt = f.src
	var wr *windowReader
	if !source.IsRemote(f.src) {
		wr = newWindowReader(f.src, f.src.Size(), head)
		ra = wr
	}
	recs, err := readDirectory(ra, f.src.Size())
	if err != nil {
		return formatErr(name, CodeCorruptArchive, "", "a ZIP archive whose central directory cannot be read (%v); truncated or damaged", err)
	}
	prefix := ""
	hasCode, hasBytecode, hasConstants := false, false, false
	for i := range recs {
		dir, rest, ok := strings.Cut(recs[i].name, "/")
		if !ok {
			continue
		}
		if prefix == "" && rest == "data.pkl" {
			prefix = dir
		}
		switch {
		case strings.HasPrefix(rest, "code/"):
			hasCode = true
		case rest == "bytecode.pkl":
			hasBytecode = true
		case rest == "constants.pkl":
			hasConstants = true
		}
	}
	switch {
	case hasBytecode:
		return formatErr(name, CodeTorchScript, "", "a TorchScript archive for the lite interpreter (torch.jit._save_for_lite_interpreter): a program, not a checkpoint of weights; not read")
	case hasCode || hasConstants:
		return formatErr(name, CodeTorchScript, "", "a TorchScript archive (torch.jit.save): a program, not a checkpoint of weights; not read")
	case prefix == "":
		return formatErr(name, CodeMissingRecord, "", "a ZIP archive without the data.pkl torch.save writes; not a PyTorch checkpoint")
	}
	// The records beside the storages, the last of each name (as a
	// lookup by name would find).
	var pkl, byteorder, alignment *record
	for i := range recs {
		r := &recs[i]
		if len(r.name) <= len(prefix) || r.name[len(prefix)] != '/' || r.name[:len(prefix)] != prefix {
			continue
		}
		switch r.name[len(prefix)+1:] {
		case "data.pkl":
			pkl = r
		case "byteorder":
			byteorder = r
		case ".storage_alignment":
			alignment = r
		}
	}
	if wr != nil && pkl.method == zipStore && pkl.usize <= maxPickle {
		// data.pkl, and the small records after it, in one read.
		e := newEntry(pkl)
		if f.resolve(wr, &e) == nil {
			wr.preload(e.off, int(e.size)+4096)
		}
	}
	if byteorder != nil {
		b, err := f.readEntry(ra, byteorder, 16)
		if err != nil {
			return err
		}
		if string(b) == "big" {
			return formatErr(name, CodeBigEndian, "", "written on a big-endian machine (its byteorder record says big); only little-endian checkpoints are read")
		}
	}
	raw, err := f.readEntry(ra, pkl, maxPickle)
	if err != nil {
		return err
	}
	// Each storage has a record: their number sizes the storages' map.
	storages := newStorages(len(recs))
	u := &unpickler{data: raw, text: string(raw), persistent: func(pid any) (any, error) {
		return storages.resolve(pid, false)
	}}
	// The stack's first size: a state dict's SETITEMS holds two values
	// for each tensor, and a tensor takes some 150 bytes of the stream.
	u.stack = make([]any, 0, min(max(len(raw)/64, 16), 2048))
	root, err := u.load()
	if err != nil {
		return f.pickleError(prefix+"/data.pkl", err)
	}
	// The storages' records, in the archive's order: stored, inside the
	// file, not sharing bytes.
	dataPrefix := prefix + "/data/"
	ents := make([]entry, 0, len(storages.order))
	for i := range recs {
		r := &recs[i]
		if !strings.HasPrefix(r.name, dataPrefix) {
			continue
		}
		st := storages.m[r.name[len(dataPrefix):]]
		if st == nil {
			continue
		}
		if st.found {
			return formatErr(name, CodeCorruptArchive, "", "storage record %s appears twice in the central directory; a damaged or crafted archive", printable(r.name))
		}
		st.found = true
		e := newEntry(r)
		if !e.stored {
			return formatErr(name, CodeCompressed, "", "storage record %s is compressed; torch.save stores storages uncompressed, so they can be read in place — re-save the file with torch.save", printable(e.name))
		}
		e.st = st
		ents = append(ents, e)
	}
	if len(ents) < len(storages.order) {
		missing := ""
		for _, st := range storages.order {
			if !st.found && (missing == "" || st.key < missing) {
				missing = st.key
			}
		}
		return formatErr(name, CodeMissingRecord, "", "storage %s named by data.pkl has no record %s/data/%s in the archive", printable(missing), printable(prefix), printable(missing))
	}
	ranges := make([]*entry, len(ents))
	for i := range ents {
		ranges[i] = &ents[i]
	}
	var lazy []lazyEntry
	if wr != nil && canWrap(f.src) {
		align, ok := f.storageAlignment(ra, alignment)
		if ok {
			if lazy, err = f.predict(ranges, wr, align); err != nil {
				return err
			}
		}
	}
	if lazy == nil {
		if err := f.resolveAll(ranges, wr); err != nil {
			return err
		}
	}
	if err := checkOverlap(name, ranges); err != nil {
		return err
	}
	for i := range ents {
		ents[i].st.off, ents[i].st.size = ents[i].off, ents[i].size
	}
	if len(lazy) > 0 {
		f.data = newLazyFile(f.src, lazy)
	}
	storages.setIDs(name)
	return f.name(root, len(raw), len(storages.order), func(st *storage) (int64, int64) { return st.off, st.size })
}

// resolve reads an entry's local header through ra, checks it is its
// record's, and finds where its data starts and that it lies in the
// file.
func (f *File) resolve(ra io.ReaderAt, e *entry) error {
	b := make([]byte, localHeaderLen+len(e.name))
	if err := readAtFull(ra, b, e.rec.hdr); err != nil {
		return formatErr(f.src.Name(), CodeCorruptArchive, "", "record %s: its local header cannot be read (%v); truncated or damaged", printable(e.name), err)
	}
	d, err := parseLocal(b, e.name)
	if err != nil {
		return formatErr(f.src.Name(), CodeCorruptArchive, "", "record %s: its local header at %d is not its central directory's (%v); a damaged or crafted archive", printable(e.name), e.rec.hdr, err)
	}
	off := e.rec.hdr + d
	if e.rec.csize != e.rec.usize || e.size < 0 || off > f.src.Size() || e.size > f.src.Size()-off {
		return formatErr(f.src.Name(), CodeCorruptArchive, "", "record %s: its %d bytes at %d do not lie in the file's %d; truncated or damaged", printable(e.name), e.size, off, f.src.Size())
	}
	e.off, e.resolved = off, true
	return nil
}

// storageAlignment returns the alignment of the storages' data: what the
// .storage_alignment record says, or 64 without one. ok is false when
// the record is not a power of two up to 64 KB (nothing is predicted
// then: every local header is read).
func (f *File) storageAlignment(ra io.ReaderAt, r *record) (int64, bool) {
	if r == nil {
		return defaultAlignment, true
	}
	b, err := f.readEntry(ra, r, 16)
	if err != nil {
		return 0, false
	}
	a, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || a <= 0 || a > 1<<16 || a&(a-1) != 0 {
		return 0, false
	}
	return a, true
}

// predict sets each storage's offset as torch.save lays it out (see
// lazy.go) and returns the entries whose local header is left to check
// before a storage's bytes are read. es are in the archive's order. It
// checks at open the local headers a window already holds, and those of
// the first storage, the first whose header lies past 4 GB and the
// first larger than 4 GB (each a branch of the layout rule); if one of
// them is not where the rule puts it, it returns nil, and the caller
// reads every header.
func (f *File) predict(es []*entry, wr *windowReader, align int64) ([]lazyEntry, error) {
	lazy := make([]lazyEntry, 0, len(es))
	var buf []byte
	sampledFirst, sampledFar, sampledLarge := false, false, false
	for _, e := range es {
		hdr := e.rec.hdr
		data, ok := predictData(hdr, e.size, len(e.name), align)
		if !ok {
			return nil, nil
		}
		sample := false
		switch n := localHeaderLen + len(e.name); {
		case !sampledFirst:
			sampledFirst, sample = true, true
		case hdr >= zip64Limit && !sampledFar:
			sampledFar, sample = true, true
		case e.size >= zip64Limit && !sampledLarge:
			sampledLarge, sample = true, true
		case wr.holds(hdr, n):
			sample = true
		}
		if !sample {
			lazy = append(lazy, lazyEntry{name: e.name, hdr: hdr, data: data})
		} else {
			// Read through the windows: the same bytes as the file's.
			n := localHeaderLen + len(e.name)
			if cap(buf) < n {
				buf = make([]byte, n)
			}
			b := buf[:n]
			if k, err := wr.ReadAt(b, hdr); k < n {
				return nil, formatErr(f.src.Name(), CodeCorruptArchive, "", "record %s: its local header cannot be read (%v); truncated or damaged", printable(e.name), err)
			}
			d, err := parseLocal(b, e.name)
			if err != nil {
				return nil, formatErr(f.src.Name(), CodeCorruptArchive, "", "record %s: its local header at %d is not its central directory's (%v); a damaged or crafted archive", printable(e.name), hdr, err)
			}
			if hdr+d != data {
				return nil, nil // not torch.save's layout: every header is read
			}
		}
		if e.rec.csize != e.rec.usize || e.size < 0 || data > f.src.Size() || e.size > f.src.Size()-data {
			return nil, formatErr(f.src.Name(), CodeCorruptArchive, "", "record %s: its %d bytes at %d do not lie in the file's %d; truncated or damaged", printable(e.name), e.size, data, f.src.Size())
		}
		e.off, e.resolved = data, true
	}
	return lazy, nil
}

// resolvers bounds the local headers read at once: each is a small read
// at its own place in the file, a round trip for a remote one.
const resolvers = 16

// resolveAll resolves entries, given in the archive's order: a local
// file's in turn, through wr, which reads a run of small storages and
// the local headers among and after them at once; a remote file's
// several at a time (each a round trip), the first error in es's order
// returned.
func (f *File) resolveAll(es []*entry, wr *windowReader) error {
	if wr != nil {
		for i, e := range es {
			wr.aheadFor(es, i)
			if err := f.resolve(wr, e); err != nil {
				return err
			}
		}
		return nil
	}
	errs := par.Each(len(es), resolvers, func(i int) error { return f.resolve(f.src, es[i]) })
	return cmp.Or(errs...)
}

// readEntry reads a small stored record whole, through ra: the bytes of
// a window when one holds them, not to be written to.
func (f *File) readEntry(ra io.ReaderAt, r *record, limit int64) ([]byte, error) {
	ent := newEntry(r)
	e := &ent
	if !e.stored {
		return nil, formatErr(f.src.Name(), CodeCompressed, "", "record %s is compressed; torch.save stores its records uncompressed", printable(e.name))
	}
	if e.size > limit {
		return nil, formatErr(f.src.Name(), CodeLimit, "", "record %s is %d bytes, more than the %d read", printable(e.name), e.size, limit)
	}
	if err := f.resolve(ra, e); err != nil {
		return nil, err
	}
	b, err := readView(ra, e.off, int(e.size))
	if err != nil {
		return nil, fmt.Errorf("%s: reading %s: %w", f.src.Name(), e.name, err)
	}
	return b, nil
}

// checkOverlap refuses storages that share bytes of the file.
func checkOverlap(name string, es []*entry) error {
	// torch.save writes the storages in the order of its directory: the
	// entries come sorted by offset, and are sorted only if not.
	byOff := func(a, b *entry) int { return cmpInt(a.off, b.off) }
	sorted := es
	if !slices.IsSortedFunc(es, byOff) {
		sorted = slices.Clone(es)
		slices.SortFunc(sorted, byOff)
	}
	for i := 1; i < len(sorted); i++ {
		a, b := sorted[i-1], sorted[i]
		if a.off+a.size > b.off {
			return formatErr(name, CodeOverlap, "", "storages %s and %s share bytes %d to %d of the file; a damaged or crafted archive", printable(a.name), printable(b.name), b.off, min(a.off+a.size, b.off+b.size))
		}
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// storages are the storages a stream names, by key and in the order
// named, cut from a slab.
type storages struct {
	m     map[string]*storage
	order []*storage
	slab  []storage
}

// newStorages returns an empty set, sized for hint storages (a count of
// records read, never a count the stream claims).
func newStorages(hint int) *storages {
	hint = min(hint, maxStack)
	return &storages{m: make(map[string]*storage, hint), order: make([]*storage, 0, hint)}
}

// resolve resolves torch.save's persistent id of a storage:
// ("storage", storage_type, key, location, numel), and in the legacy
// format a sixth item, a view's metadata (None).
func (ss *storages) resolve(pid any, legacy bool) (any, error) {
	t, ok := pid.(*pyTuple)
	if !ok || len(t.items) < 5 {
		return nil, perr(CodeInvalidPickle, "a persistent id that is %s, not a storage's", describe(pid))
	}
	if s, _ := t.items[0].(*pyStr); s == nil || s.s != "storage" {
		return nil, perr(CodeInvalidPickle, "a persistent id of a %s, not a storage", describe(t.items[0]))
	}
	g, ok := t.items[1].(*pyGlobal)
	if !ok || g.kind != gStorage && g.kind != gDType {
		return nil, perr(CodeInvalidPickle, "a storage of type %s", describe(t.items[1]))
	}
	var key string
	switch k := t.items[2].(type) {
	case *pyStr:
		key, ok = k.s, true
	case int64:
		key, ok = strconv.FormatInt(k, 10), true
	default:
		ok = false
	}
	numel, ok2 := asUint(t.items[4])
	if !ok || !ok2 || key == "" || len(key) > 256 {
		return nil, perr(CodeInvalidPickle, "a storage id with key %s and size %s", describe(t.items[2]), describe(t.items[4]))
	}
	if legacy && len(t.items) >= 6 && t.items[5] != nil {
		return nil, perr(CodeUnsupported, "a storage view (a pre-1.0 feature) is not read")
	}
	if g.dtype == tensor.C64 {
		return nil, perr(CodeUnsupported, "a storage of %s (complex) is not read", g.name)
	}
	if st, ok := ss.m[key]; ok {
		if st.dtype != g.dtype {
			return nil, perr(CodeInvalidPickle, "storage %s is named with two types, %s and %s", printable(key), st.typeName, g.name)
		}
		return st, nil
	}
	if len(ss.m) >= maxStack {
		return nil, perr(CodeLimit, "more than %d storages", maxStack)
	}
	if len(ss.slab) == cap(ss.slab) {
		ss.slab = make([]storage, 0, slabLen)
	}
	ss.slab = append(ss.slab, storage{key: key, dtype: g.dtype, typeName: g.name, numel: numel})
	st := &ss.slab[len(ss.slab)-1]
	ss.m[key] = st
	ss.order = append(ss.order, st)
	return st, nil
}

// setIDs sets each storage's id, the Storage of its tensors ("pytorch_model.bin:3"
// for the storage of key 3 of file), all cut from one string.
func (ss *storages) setIDs(file string) {
	base := baseName(file)
	n := 0
	for _, st := range ss.order {
		n += len(base) + 1 + len(st.key)
	}
	var b strings.Builder
	b.Grow(n)
	for _, st := range ss.order {
		b.WriteString(base)
		b.WriteByte(':')
		b.WriteString(st.key)
	}
	all, at := b.String(), 0
	for _, st := range ss.order {
		k := len(base) + 1 + len(st.key)
		st.id = all[at : at+k]
		at += k
	}
}

func (f *File) pickleError(record string, err error) error {
	var pe *pickleErr
	if errors.As(err, &pe) {
		return formatErr(f.src.Name(), pe.code, "", "%s: %s", record, pe.msg)
	}
	if errors.Is(err, errNeedMore) {
		return formatErr(f.src.Name(), CodeInvalidPickle, "", "%s: the pickle stream ends before its STOP; truncated", record)
	}
	return err
}

// name walks the unpickled value and makes a tensor of each pyTensor in
// it, named by its path of dict keys and list indices ("model.layers.0.
// mlp.up_proj.weight" for a state dict; "state.0.exp_avg" for an
// optimizer's). Each container is visited once, so a stream that reuses
// one many times (through its memo) costs no more than it is long.
// where gives a storage's file offset and byte length; nStorages, the
// number of storages, sizes the tensors made (most have one storage each).
func (f *File) name(root any, pickleLen, nStorages int, where func(*storage) (int64, int64)) error {
	// A tensor named by the stream costs it at least a few bytes (a
	// memoized tensor referenced again: BINGET and a key), so their count
	// is bounded by its length, and the tensors made never grow faster
	// than the file.
	w := &walker{f: f, where: where, seen: map[any]bool{}, file: f.src.Name(),
		maxTensors: min(pickleLen/4+1024, maxStack), pickleLen: pickleLen}
	// Storages named by the stream but used by no tensor could make the
	// hint larger than the tensors: it is capped, and the slab grows in
	// small steps past it.
	hint := min(nStorages, w.maxTensors, 1<<12)
	w.slab = make([]tensor.Tensor, 0, hint)
	f.tensors = make([]*tensor.Tensor, 0, hint)
	if err := w.walk(root, "", 0); err != nil {
		return err
	}
	if len(f.tensors) == 0 {
		return formatErr(f.src.Name(), CodeNoTensors, "", "holds no tensor (its pickle is %s%s)", describe(root), w.skippedNote())
	}
	if w.skipped > 0 {
		f.warnings = append(f.warnings, fmt.Sprintf("%s: %d values that are not tensors skipped (first: %s)", baseName(f.src.Name()), w.skipped, w.firstSkipped))
	}
	slices.SortFunc(f.tensors, func(a, b *tensor.Tensor) int { return strings.Compare(a.Name, b.Name) })
	// A name given twice sorts next to itself.
	for i := 1; i < len(f.tensors); i++ {
		if name := f.tensors[i].Name; name == f.tensors[i-1].Name {
			return formatErr(f.src.Name(), CodeDuplicate, name, "tensor %s is named twice", printable(name))
		}
	}
	return nil
}

type walker struct {
	f            *File
	maxTensors   int // a bound from the pickle's length (see name)
	pickleLen    int
	where        func(*storage) (int64, int64)
	seen         map[any]bool
	file         string // the file's name
	visits       int
	named        int64     // bytes of the names joined, against allocBudget(pickleLen)
	gathered     *gathered // the non-contiguous tensors' budget, once one is made
	skipped      int
	firstSkipped string
	slab         []tensor.Tensor // the tensors made, in one allocation or a few
}

func (w *walker) skippedNote() string {
	if w.skipped == 0 {
		return ""
	}
	return fmt.Sprintf(", with %d other values, first %s", w.skipped, w.firstSkipped)
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// join joins a name's prefix and key, charging the name made: a stream
// can give one long key (memoized) to many values, and the path of each
// is a new string.
func (w *walker) join(prefix, key string) (string, error) {
	if prefix != "" {
		w.named += int64(len(prefix) + 1 + len(key))
		if w.named > allocBudget(w.pickleLen) {
			return "", w.f.pickleError("the pickle", overBudget(w.pickleLen))
		}
	}
	return join(prefix, key), nil
}

func (w *walker) walk(v any, path string, depth int) error {
	w.visits++
	if w.visits > maxVisits {
		return formatErr(w.f.src.Name(), CodeLimit, "", "the pickle holds more than %d values", maxVisits)
	}
	if depth > maxDepth {
		return formatErr(w.f.src.Name(), CodeLimit, "", "the pickle nests containers more than %d deep (at %s)", maxDepth, printable(path))
	}
	switch t := v.(type) {
	case *pyTensor:
		return w.add(t, path)
	case *pyDict, *pyList, *pyTuple:
		if w.seen[t] {
			return nil
		}
		w.seen[t] = true
	}
	switch t := v.(type) {
	case *pyDict:
		for i, k := range t.keys {
			var key string
			switch kk := k.(type) {
			case *pyStr:
				key = kk.s
			case int64:
				key = strconv.FormatInt(kk, 10)
			default:
				if w.skipped == 0 { // the first is named, the others counted
					w.skip(join(path, "?"), t.vals[i])
				} else {
					w.skipped++
				}
				continue
			}
			name, err := w.join(path, key)
			if err != nil {
				return err
			}
			if err := w.walk(t.vals[i], name, depth+1); err != nil {
				return err
			}
		}
	case *pyList:
		return w.walkItems(t.items, path, depth)
	case *pyTuple:
		return w.walkItems(t.items, path, depth)
	default:
		w.skip(path, v)
	}
	return nil
}

// walkItems walks a list's or a tuple's items, named by their index.
func (w *walker) walkItems(items []any, path string, depth int) error {
	for i, it := range items {
		name, err := w.join(path, strconv.Itoa(i))
		if err != nil {
			return err
		}
		if err := w.walk(it, name, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) skip(path string, v any) {
	if w.skipped == 0 {
		w.firstSkipped = printable(path) + " (" + describe(v) + ")"
	}
	w.skipped++
}

func (w *walker) add(pt *pyTensor, name string) error {
	file := w.file
	if len(w.f.tensors) >= w.maxTensors {
		return formatErr(file, CodeLimit, "", "the pickle names more than %d tensors, more than its %d bytes can describe", w.maxTensors, w.pickleLen)
	}
	if name == "" {
		name = "tensor"
	}
	st := pt.st
	es := st.dtype.BlockBytes() // every storage type has whole bytes per element
	// numel, and the span of storage elements the tensor reaches.
	numel, span := uint64(1), uint64(1)
	for i, d := range pt.shape {
		hi, lo := bits.Mul64(numel, d)
		if hi != 0 {
			return formatErr(file, CodeInvalidTensor, name, "tensor %s: shape %s overflows", printable(name), tensor.FormatShape(pt.shape))
		}
		numel = lo
		if d == 0 {
			continue
		}
		hi, reach := bits.Mul64(d-1, pt.strides[i])
		if hi != 0 || span+reach < span {
			return formatErr(file, CodeInvalidTensor, name, "tensor %s: strides %s overflow", printable(name), tensor.FormatShape(pt.strides))
		}
		span += reach
	}
	if numel == 0 {
		span = 0
	}
	off, size := w.where(st)
	endEl := pt.offset + span
	hi, endByte := bits.Mul64(endEl, es)
	if endEl < pt.offset || hi != 0 || endByte > uint64(size) {
		return formatErr(file, CodeShortStorage, name, "tensor %s %s needs %d bytes of storage %s from element %d, which holds %d", printable(name),
			tensor.FormatShape(pt.shape), satMul(span, es), printable(st.key), pt.offset, size)
	}
	if len(w.slab) == cap(w.slab) {
		w.slab = make([]tensor.Tensor, 0, slabLen)
	}
	w.slab = append(w.slab, tensor.Tensor{Name: name, DType: st.dtype, Shape: pt.shape, File: w.f.data,
		Offset: off + int64(pt.offset*es), Length: int64(numel * es),
		Storage: st.id})
	t := &w.slab[len(w.slab)-1]
	if numel > 0 && !contiguous(pt.shape, pt.strides) {
		// A view whose elements overlap (a stride of 0, an expanded
		// tensor) would be served larger than its storage: refused, so
		// that nothing served grows faster than the file.
		if numel > span {
			return formatErr(file, CodeUnsupported, name, "tensor %s %s with strides %s repeats elements of its storage (an expanded view); not read",
				printable(name), tensor.FormatShape(pt.shape), tensor.FormatShape(pt.strides))
		}
		t.Strides = pt.strides
		if w.gathered == nil {
			w.gathered = newGathered(w.f.src.Size())
		}
		t.File = newStrided(w.f.data, w.gathered, t.Offset, es, pt.shape, pt.strides, numel)
		t.StorageOffset = t.Offset
		t.Offset = 0
	} else {
		t.StorageOffset = t.Offset
	}
	w.f.tensors = append(w.f.tensors, t)
	return nil
}

func satMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return ^uint64(0)
	}
	return lo
}

// contiguous reports whether strides are the row-major ones of shape
// (a dimension of size 1 may have any stride).
func contiguous(shape, strides []uint64) bool {
	want := uint64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] != 1 && strides[i] != want {
			return false
		}
		want *= shape[i]
	}
	return true
}

func baseName(name string) string {
	if i := strings.LastIndexAny(name, "/\\"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// Join merges the tensors of several files (the shards of one
// checkpoint) into one list sorted by name; a tensor name in two files
// is an error.
func Join(files []*File) ([]*tensor.Tensor, error) {
	all, dup, prev, f := tensor.JoinFiles(files, (*File).Tensors)
	if dup != nil {
		return nil, formatErr(f.Name(), CodeDuplicate, dup.Name, "tensor %s is stored in both %s and %s", printable(dup.Name), baseName(prev.Name()), baseName(f.Name()))
	}
	return all, nil
}
