package safetensors

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Index is a parsed model.safetensors.index.json.
type Index struct {
	// Path is the index file.
	Path string
	// TotalSize is metadata.total_size, the byte count of all tensors, or
	// nil when the index does not say.
	TotalSize *uint64
	// WeightMap maps each tensor name to the shard file that holds it.
	WeightMap map[string]string
	// Shards are the distinct shard file names, sorted.
	Shards []string
}

// ParseIndex reads an index file. Shard names must be plain file names in
// the index's directory; a duplicate tensor name is an error.
func ParseIndex(path string) (*Index, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	idx := &Index{Path: path}
	if err := idx.parse(raw); err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, formatErr(path, CodeInvalidIndex, "", "%s, at byte %d", se.msg, se.pos)
		}
		return nil, formatErr(path, CodeInvalidIndex, "", "%v", err)
	}
	seen := map[string]bool{}
	for name, shard := range idx.WeightMap {
		if shard == "" || shard == "." || shard == ".." || strings.ContainsAny(shard, "/\x00") {
			return nil, formatErr(path, CodeInvalidIndex, name, "tensor %q: shard %q is not a file name in the model directory", name, shard)
		}
		if !seen[shard] {
			seen[shard] = true
			idx.Shards = append(idx.Shards, shard)
		}
	}
	slices.Sort(idx.Shards)
	return idx, nil
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
	for first := true; ; first = false {
		ok, err := s.more('}', first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		if !s.consume(':') {
			return s.errorf("expected ':', found %s", s.describeNext())
		}
		switch key {
		case "weight_map":
			if idx.WeightMap != nil {
				return s.errorf("two weight_maps")
			}
			err = idx.parseWeightMap(s)
		case "metadata":
			err = idx.parseMetadata(s)
		default:
			err = s.skipValue()
		}
		if err != nil {
			return err
		}
	}
	if s.peek(); s.pos < len(s.data) {
		return s.errorf("trailing characters after the JSON object")
	}
	if idx.WeightMap == nil {
		return errors.New("no weight_map")
	}
	return nil
}

func (idx *Index) parseWeightMap(s *scanner) error {
	if !s.consume('{') {
		return s.errorf("weight_map must be an object, found %s", s.describeNext())
	}
	idx.WeightMap = map[string]string{}
	for first := true; ; first = false {
		ok, err := s.more('}', first)
		if err != nil || !ok {
			return err
		}
		pos := s.pos
		name, err := s.str()
		if err != nil {
			return err
		}
		if !s.consume(':') {
			return s.errorf("expected ':', found %s", s.describeNext())
		}
		if s.peek() != '"' {
			return s.errorf("weight_map: tensor %q: shard must be a string, found %s", name, s.describeNext())
		}
		shard, err := s.str()
		if err != nil {
			return err
		}
		if _, dup := idx.WeightMap[name]; dup {
			s.pos = pos
			return s.errorf("weight_map lists tensor %q twice", name)
		}
		idx.WeightMap[name] = shard
	}
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
		key, err := s.str()
		if err != nil {
			return err
		}
		if !s.consume(':') {
			return s.errorf("expected ':', found %s", s.describeNext())
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

// openIndexed opens every shard an index names and checks the index
// against them (rules I1 to I7 of safetensors-rules.md).
func openIndexed(dir, path string) (*Checkpoint, error) {
	idx, err := ParseIndex(path)
	if err != nil {
		return nil, err
	}
	// I1: every shard exists (and, below, passes rules 1-11).
	var missing []string
	for _, s := range idx.Shards {
		if _, err := os.Stat(filepath.Join(dir, s)); err != nil {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		first := missing[:min(3, len(missing))]
		more := ""
		if len(missing) > len(first) {
			more = ", …"
		}
		return nil, formatErr(path, CodeMissingShard, "", "%d of the %d shards it names %s missing: %s%s",
			len(missing), len(idx.Shards), plural(uint64(len(missing)), "is", "are"), strings.Join(first, ", "), more)
	}
	files := make([]*File, 0, len(idx.Shards))
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, s := range idx.Shards {
		f, err := Open(filepath.Join(dir, s))
		if err != nil {
			closeAll()
			return nil, err
		}
		files = append(files, f)
	}
	// I4 is checked while joining the shards.
	c, err := newCheckpoint(dir, files, idx)
	if err != nil {
		return nil, err
	}
	if err := c.checkIndex(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Checkpoint) checkIndex() error {
	idx := c.Index
	// I2: every tensor the weight map names is in its shard.
	names := make([]string, 0, len(idx.WeightMap))
	for n := range idx.WeightMap {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		shard := idx.WeightMap[n]
		if t := c.byName[n]; t == nil || filepath.Base(t.file.Name) != shard {
			return formatErr(idx.Path, CodeAbsentTensor, n, "tensor %q is mapped to %s, which does not hold it", n, shard)
		}
	}
	// I3: every tensor of a shard is in the weight map, mapped to it.
	var total uint64
	for _, t := range c.tensors {
		if _, ok := idx.WeightMap[t.Name]; !ok {
			return formatErr(t.file.Name, CodeUnlistedTensor, t.Name, "tensor %q is not listed in %s", t.Name, filepath.Base(idx.Path))
		}
		total += uint64(t.Size())
	}
	// I5: metadata.total_size is the tensor bytes, not the file sizes.
	if idx.TotalSize != nil && *idx.TotalSize != total {
		return formatErr(idx.Path, CodeTotalSize, "", "metadata.total_size is %d, the tensors hold %d bytes", *idx.TotalSize, total)
	}
	// I6: shard names follow the usual pattern (a warning only).
	var odd []string
	for _, s := range idx.Shards {
		m := shardName.FindStringSubmatch(s)
		if m == nil {
			odd = append(odd, s)
			continue
		}
		if n, _ := strconv.Atoi(m[3]); n != len(idx.Shards) {
			odd = append(odd, s)
		}
	}
	if len(odd) > 0 {
		c.warnings = append(c.warnings, fmt.Sprintf("%d of %d shard names do not follow NAME-00001-of-%05d.safetensors (first: %s)", len(odd), len(idx.Shards), len(idx.Shards), odd[0]))
	}
	// I7: no safetensors file in the directory is left out.
	all, _ := filepath.Glob(filepath.Join(filepath.Dir(idx.Path), "*.safetensors"))
	var unused []string
	for _, p := range all {
		if _, ok := slices.BinarySearch(idx.Shards, filepath.Base(p)); !ok {
			unused = append(unused, filepath.Base(p))
		}
	}
	if len(unused) > 0 {
		c.warnings = append(c.warnings, fmt.Sprintf("%d .safetensors %s in the directory %s not named by the index (first: %s)",
			len(unused), plural(uint64(len(unused)), "file", "files"), plural(uint64(len(unused)), "is", "are"), unused[0]))
	}
	return nil
}
