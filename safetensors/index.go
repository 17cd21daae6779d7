package safetensors

import (
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
	// WeightMap maps each tensor name to the shard file that holds it.
	WeightMap map[string]string
	// Shards are the distinct shard file names, sorted.
	Shards []string
}

// ParseIndex parses the bytes of an index file; name is used in
// messages. Shard names must be plain file names in the index's
// directory; a duplicate tensor name is an error.
func ParseIndex(name string, raw []byte) (*Index, error) {
	idx := &Index{Path: name}
	if err := idx.parse(raw); err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, formatErr(name, CodeInvalidIndex, "", "%s, at byte %d", se.msg, se.pos)
		}
		return nil, formatErr(name, CodeInvalidIndex, "", "%v", err)
	}
	seen := map[string]bool{}
	for tn, shard := range idx.WeightMap {
		if shard == "" || shard == "." || shard == ".." || strings.ContainsAny(shard, "/\x00") {
			return nil, formatErr(name, CodeInvalidIndex, tn, "tensor %q: shard %q is not a file name in the model directory", tn, shard)
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
	lists := make([][]*tensor.Tensor, len(files))
	for i, f := range files {
		lists[i] = f.tensors
	}
	all, dup, i, j := tensor.Join(lists)
	if dup != nil {
		prev, f := files[i], files[j]
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
// is then not checked).
func (idx *Index) Check(tensors []*tensor.Tensor, listing []string) ([]string, error) {
	byName := make(map[string]*tensor.Tensor, len(tensors))
	for _, t := range tensors {
		byName[t.Name] = t
	}
	// I2: every tensor the weight map names is in its shard.
	names := make([]string, 0, len(idx.WeightMap))
	for n := range idx.WeightMap {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		shard := idx.WeightMap[n]
		if t := byName[n]; t == nil || baseName(t.File.Name()) != shard {
			return nil, formatErr(idx.Path, CodeAbsentTensor, n, "tensor %q is mapped to %s, which does not hold it", n, shard)
		}
	}
	// I3: every tensor of a shard is in the weight map, mapped to it.
	var total uint64
	for _, t := range tensors {
		if _, ok := idx.WeightMap[t.Name]; !ok {
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
