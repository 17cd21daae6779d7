package safetensors

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fsmount/fsmount/tensor"
)

// Index is a parsed model.safetensors.index.json.
type Index struct {
	// Path is the index file.
	Path string
	// TotalSize is metadata.total_size, the byte count of all tensors, or
	// nil when the index does not say.
	TotalSize *uint64
	// Weights is the weight map: each tensor name and the shard file
	// that holds it, sorted by name. A model drops it once the shards are
	// checked against it.
	Weights []Weight
	// Shards are the distinct shard file names, sorted.
	Shards []string

	found func(shard string) // ParseIndexEach's, while parsing
}

// Weight is one entry of an index's weight map.
type Weight struct {
	Name  string
	Shard string // one of Index.Shards
}

// Shard returns the shard the weight map names for a tensor, and whether
// it names one.
func (idx *Index) Shard(name string) (string, bool) {
	i, ok := slices.BinarySearchFunc(idx.Weights, name, func(w Weight, n string) int { return strings.Compare(w.Name, n) })
	if !ok {
		return "", false
	}
	return idx.Weights[i].Shard, true
}

// ParseIndex parses the bytes of an index file; name is used in
// messages. Shard names must be plain file names in the index's
// directory; a duplicate tensor name is an error. raw is overwritten
// (the names are decoded over it): the caller's, to drop once parsed.
func ParseIndex(name string, raw []byte) (*Index, error) { return ParseIndexEach(name, raw, nil) }

// ParseIndexEach is ParseIndex calling found (unless nil) with each
// shard name, the first time the weight map gives it and only if it is
// a plain file name, while the rest of the index is still being read: a
// caller opens the shards meanwhile (a 500,000-tensor index is 40 MB of
// JSON, and the shards' own headers as much again). found is called on
// the caller's goroutine; a name it was given may still belong to an
// index that turns out invalid.
func ParseIndexEach(name string, raw []byte, found func(shard string)) (*Index, error) {
	idx := &Index{Path: name, found: found}
	err := idx.parse(raw)
	idx.found = nil
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, formatErr(name, CodeInvalidIndex, "", "%s, at byte %d", se.msg, se.pos)
		}
		return nil, formatErr(name, CodeInvalidIndex, "", "%v", err)
	}
	for _, w := range idx.Weights {
		if !plainFileName(w.Shard) {
			return nil, formatErr(name, CodeInvalidIndex, w.Name, "tensor %q: shard %q is not a file name in the model directory", w.Name, w.Shard)
		}
	}
	slices.Sort(idx.Shards)
	return idx, nil
}

// plainFileName reports whether a shard's name is a file in the index's
// directory: no path, not empty, not "." or "..".
func plainFileName(shard string) bool {
	return shard != "" && shard != "." && shard != ".." && !strings.ContainsAny(shard, "/\x00")
}

// parse reads {"metadata": {"total_size": N, …}, "weight_map": {…}}.
func (idx *Index) parse(raw []byte) error {
	if !utf8.Valid(raw) {
		return errors.New("not UTF-8")
	}
	s := &scanner{data: raw}
	if !s.consume('{') {
		return s.errorf("an index is a JSON object, found %s", s.describeNext())
	}
	err := s.members(func() error {
		key, err := s.key()
		if err != nil {
			return err
		}
		switch key {
		case "weight_map":
			if idx.Weights != nil {
				return s.errorf("two weight_maps")
			}
			return idx.parseWeightMap(s)
		case "metadata":
			return idx.parseMetadata(s)
		}
		return s.skipValue()
	})
	if err != nil {
		return err
	}
	if s.peek(); s.pos < len(s.data) {
		return s.errorf("trailing characters after the JSON object")
	}
	if idx.Weights == nil {
		return errors.New("no weight_map")
	}
	return nil
}

// parseWeightMap reads the weight map into idx.Weights. The names go to
// one string for the whole map and each shard name is made once: half a
// million entries are a few allocations, not a map of half a million
// strings. A name listed twice is found once the names are sorted (as
// writers write them: then in one pass), and reported as a reader in file
// order would, before an error after its second appearance.
func (idx *Index) parseWeightMap(s *scanner) error {
	if !s.consume('{') {
		return s.errorf("weight_map must be an object, found %s", s.describeNext())
	}
	// Made at their bounds, so that they never grow: an entry has four
	// '"'. The names are written over the index's own bytes, each where
	// the index has already been read (a decoded name is never longer
	// than its JSON): 40 MB of fresh memory fewer for 500,000 tensors.
	n := bytes.Count(s.data[s.pos:], []byte{'"'})/4 + 1
	var (
		names  = s.data[s.pos:s.pos] // every name, one after the other
		ends   = make([]int, 0, n)   // where each name ends in names
		pos    = make([]int, 0, n)   // where each entry starts in the file
		shards = make([]int32, 0, n) // each entry's shard, in idx.Shards
		shard  []byte
		byName = map[string]int32{}
	)
	err := func() error {
		for first := true; ; first = false {
			ok, err := s.more('}', first)
			if err != nil || !ok {
				return err
			}
			at, start := len(names), s.pos
			if names, err = s.appendKey(names); err != nil {
				names = names[:at]
				return err
			}
			if s.peek() != '"' {
				return s.errorf("weight_map: tensor %q: shard must be a string, found %s", names[at:], s.describeNext())
			}
			if shard, err = s.appendStr(shard[:0]); err != nil {
				return err
			}
			k, ok := byName[string(shard)]
			if !ok {
				k = int32(len(idx.Shards))
				idx.Shards = append(idx.Shards, string(shard))
				byName[idx.Shards[k]] = k
				if idx.found != nil && plainFileName(idx.Shards[k]) {
					idx.found(idx.Shards[k])
				}
			}
			ends, pos, shards = append(ends, len(names)), append(pos, start), append(shards, k)
		}
	}()
	all := string(names)
	ws := make([]Weight, len(ends))
	from := 0
	for i, end := range ends {
		ws[i] = Weight{all[from:end], idx.Shards[shards[i]]}
		from = end
	}
	cmpWeight := func(a, b int) int { return strings.Compare(ws[a].Name, ws[b].Name) }
	// order is the entries sorted by name; nil where they are already
	// (as writers write them).
	var order []int
	at := func(r int) int { return r }
	sorted := slices.IsSortedFunc(ws, func(a, b Weight) int { return strings.Compare(a.Name, b.Name) })
	if !sorted {
		order = make([]int, len(ws))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, cmpWeight)
		at = func(r int) int { return order[r] }
	}
	dup := -1
	for r := 1; r < len(ws); r++ {
		i := at(r)
		// Within equal names, in file order: the first repeat is the
		// second appearance; the earliest of those is reported.
		if ws[at(r-1)].Name == ws[i].Name && (r == 1 || ws[at(r-2)].Name != ws[i].Name) && (dup < 0 || pos[i] < pos[dup]) {
			dup = i
		}
	}
	if dup >= 0 {
		s.pos = pos[dup]
		return s.errorf("weight_map lists tensor %q twice", ws[dup].Name)
	}
	if err != nil {
		return err
	}
	if sorted {
		idx.Weights = ws
		return nil
	}
	idx.Weights = make([]Weight, len(ws))
	for r, i := range order {
		idx.Weights[r] = ws[i]
	}
	return nil
}

func (idx *Index) parseMetadata(s *scanner) error {
	if s.peek() == 'n' {
		return s.literal()
	}
	if !s.consume('{') {
		return s.errorf("metadata must be an object, found %s", s.describeNext())
	}
	for first := true; ; first = false {
		ok, err := s.more('}', first)
		if err != nil || !ok {
			return err
		}
		key, err := s.key()
		if err != nil {
			return err
		}
		if key != "total_size" {
			if err := s.skipValue(); err != nil {
				return err
			}
			continue
		}
		// Writers emit a number; some emit it as a string.
		var num []byte
		pos := s.pos
		if s.peek() == '"' {
			str, err := s.str()
			if err != nil {
				return err
			}
			num = []byte(str)
		} else if num, err = s.number(); err != nil {
			return err
		}
		v, ok := parseUint(num)
		if !ok {
			s.pos = pos
			return s.errorf("metadata.total_size %s is not a byte count", num)
		}
		idx.TotalSize = &v
	}
}

// shardName is the usual shard naming, model-00001-of-00003.safetensors.
var shardName = regexp.MustCompile(`^(.*?)[_-](\d{5,6})-of-(\d{5,6})\.safetensors$`)

// binShardName is PyTorch's, pytorch_model-00001-of-00003.bin.
var binShardName = regexp.MustCompile(`^(.*?)[_-](\d{5,6})-of-(\d{5,6})\.bin$`)

// MissingShards applies rule I1: every shard the index names exists.
// exists reports whether a shard is there.
func (idx *Index) MissingShards(exists func(shard string) bool) error {
	var missing []string
	for _, s := range idx.Shards {
		if !exists(s) {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	first := missing[:min(3, len(missing))]
	more := ""
	if len(missing) > len(first) {
		more = ", …"
	}
	return formatErr(idx.Path, CodeMissingShard, "", "%d of the %d shards it names %s missing: %s%s",
		len(missing), len(idx.Shards), plural(uint64(len(missing)), "is", "are"), strings.Join(first, ", "), more)
}

// Join merges the tensors of several files into one list sorted by name,
// applying rule I4: no tensor is stored in two files.
func Join(files []*File) ([]*tensor.Tensor, error) {
	all, dup, prev, f := tensor.JoinFiles(files, (*File).Tensors)
	if dup != nil {
		return nil, formatErr(f.Name(), CodeDuplicateTensor, dup.Name, "tensor %q is stored in both %s and %s",
			dup.Name, baseName(prev.Name()), baseName(f.Name()))
	}
	return all, nil
}

// baseName is the last element of a path or URL.
func baseName(name string) string { return path.Base(filepath.ToSlash(name)) }

// Check applies rules I2, I3 and I5 to the joined tensors of the shards,
// and returns the warnings of I6 and I7. listing is the names of the
// files beside the index, or nil where the source cannot list them (I7
// is then not checked). The tensors and the weight map, both sorted by
// name, are walked side by side: no map of their names is made.
func (idx *Index) Check(tensors []*tensor.Tensor, listing []string) ([]string, error) {
	byName := func(a, b *tensor.Tensor) int { return strings.Compare(a.Name, b.Name) }
	if !slices.IsSortedFunc(tensors, byName) {
		tensors = slices.SortedFunc(slices.Values(tensors), byName)
	}
	// I2: every tensor the weight map names is in its shard.
	var file, base string // the last tensor's file, and its base name
	j := 0
	for _, w := range idx.Weights {
		for j < len(tensors) && tensors[j].Name < w.Name {
			j++
		}
		if j < len(tensors) && tensors[j].Name == w.Name {
			if n := tensors[j].File.Name(); n != file {
				file, base = n, baseName(n)
			}
			if base == w.Shard {
				continue
			}
		}
		return nil, formatErr(idx.Path, CodeAbsentTensor, w.Name, "tensor %q is mapped to %s, which does not hold it", w.Name, w.Shard)
	}
	// I3: every tensor of a shard is in the weight map, mapped to it.
	var total uint64
	j = 0
	for _, t := range tensors {
		for j < len(idx.Weights) && idx.Weights[j].Name < t.Name {
			j++
		}
		if j == len(idx.Weights) || idx.Weights[j].Name != t.Name {
			return nil, formatErr(t.File.Name(), CodeUnlistedTensor, t.Name, "tensor %q is not listed in %s", t.Name, baseName(idx.Path))
		}
		total += uint64(t.Length)
	}
	// I5: metadata.total_size is the tensor bytes, not the file sizes.
	if idx.TotalSize != nil && *idx.TotalSize != total {
		return nil, formatErr(idx.Path, CodeTotalSize, "", "metadata.total_size is %d, the tensors hold %d bytes", *idx.TotalSize, total)
	}
	var warnings []string
	// I6: shard names follow the usual pattern (a warning only). A
	// PyTorch index (pytorch_model.bin.index.json) names .bin shards.
	ext, pattern := ".safetensors", shardName
	if strings.HasSuffix(idx.Path, ".bin.index.json") {
		ext, pattern = ".bin", binShardName
	}
	var odd []string
	for _, s := range idx.Shards {
		m := pattern.FindStringSubmatch(s)
		if m == nil {
			odd = append(odd, s)
			continue
		}
		if n, _ := strconv.Atoi(m[3]); n != len(idx.Shards) {
			odd = append(odd, s)
		}
	}
	if len(odd) > 0 {
		warnings = append(warnings, fmt.Sprintf("%d of %d shard names do not follow NAME-00001-of-%05d%s (first: %s)", len(odd), len(idx.Shards), len(idx.Shards), ext, odd[0]))
	}
	// I7: no safetensors file in the directory is left out.
	var unused []string
	for _, p := range listing {
		if !strings.HasSuffix(p, ext) {
			continue
		}
		if _, ok := slices.BinarySearch(idx.Shards, p); !ok {
			unused = append(unused, p)
		}
	}
	if len(unused) > 0 {
		warnings = append(warnings, fmt.Sprintf("%d %s %s in the directory %s not named by the index (first: %s)",
			len(unused), ext, plural(uint64(len(unused)), "file", "files"), plural(uint64(len(unused)), "is", "are"), unused[0]))
	}
	return warnings, nil
}
