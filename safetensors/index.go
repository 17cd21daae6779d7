package safetensors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
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
	bad := func(format string, args ...any) error {
		return formatErr(path, CodeInvalidIndex, "", format, args...)
	}
	var top struct {
		Metadata  map[string]json.RawMessage `json:"metadata"`
		WeightMap json.RawMessage            `json:"weight_map"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, bad("not an index: %v", err)
	}
	if top.WeightMap == nil {
		return nil, bad("no weight_map")
	}
	idx := &Index{Path: path}
	if idx.WeightMap, err = stringMapNoDup(top.WeightMap); err != nil {
		return nil, bad("weight_map: %v", err)
	}
	if ts, ok := top.Metadata["total_size"]; ok && string(ts) != "null" {
		// Writers emit a number; some emit it as a string.
		s := strings.Trim(string(bytes.TrimSpace(ts)), `"`)
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, bad("metadata.total_size %s is not a byte count", ts)
		}
		idx.TotalSize = &v
	}
	seen := map[string]bool{}
	for name, shard := range idx.WeightMap {
		if shard == "" || shard == "." || shard == ".." || strings.ContainsAny(shard, "/\x00") {
			return nil, bad("tensor %q: shard %q is not a file name in the model directory", name, shard)
		}
		if !seen[shard] {
			seen[shard] = true
			idx.Shards = append(idx.Shards, shard)
		}
	}
	slices.Sort(idx.Shards)
	return idx, nil
}

// stringMapNoDup decodes a JSON object of strings, rejecting duplicate
// keys, which encoding/json would silently collapse.
func stringMapNoDup(raw json.RawMessage) (map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	m := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		if tok, err = dec.Token(); err != nil {
			return nil, err
		}
		v, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("%q: shard must be a string", k)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("tensor %q is listed twice", k)
		}
		m[k] = v
	}
	return m, nil
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
