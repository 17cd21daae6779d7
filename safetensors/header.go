package safetensors

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/fsmount/fsmount/tensor"
)

const (
	// MaxHeaderSize is the reference's cap on the JSON header length.
	MaxHeaderSize = 100_000_000
	prefixLen     = 8
	metadataKey   = "__metadata__"
)

// entry is one tensor as the header declares it, before validation.
type entry struct {
	name  string
	dtype tensor.DType
	shape []uint64
	begin uint64
	end   uint64
	pos   int // of its name in the header, for a duplicate's message
	rank  int // its place among the entries sorted by name
}

// headerParser reads the header's JSON with a scanner, so that duplicate
// keys are seen (encoding/json keeps the last one silently) and no value
// is ever decoded into a structure sized by the input. The names and
// shapes of the entries are kept in two arenas, one string and one array
// for the whole header: a 500,000-tensor checkpoint is then a few
// allocations per shard, not three per tensor.
//
// The names are written over the header's own bytes, each where the
// header has already been read (a decoded name is never longer than its
// JSON), and a parser's buffers (the header's, the entries', the arenas)
// are reused by the next file's parser (parsers): opening 48 shards of
// 1.2 MB headers then touches a few headers' worth of fresh memory, not
// 48 (its first touch, a page fault each 4 KB, was most of the cost).
type headerParser struct {
	file    string
	s       scanner
	buf     []byte   // the header, read into it
	names   []byte   // every name, one after the other, over buf's start
	ends    []int    // where each entry's name ends in names
	shapes  []uint64 // every shape, one after the other
	dims    []int    // where each entry's shape ends in shapes
	entries []entry
	order   []int32  // rankNames'
	scratch []uint64 // data_offsets
	key     []byte   // a field name or a dtype
}

// parsers holds the parsers of files done with, for their buffers.
var parsers sync.Pool

// maxPooledHeader bounds the header buffer a pooled parser keeps: a
// rare huge header is not held for the next file.
const maxPooledHeader = 16 << 20

// getParser returns a parser whose header buffer holds n bytes.
func getParser(file string, n uint64) *headerParser {
	p, _ := parsers.Get().(*headerParser)
	if p == nil {
		p = &headerParser{}
	}
	p.file = file
	if uint64(cap(p.buf)) < n {
		p.buf = make([]byte, n)
	}
	p.buf = p.buf[:n]
	return p
}

// put gives the parser back once nothing it parsed is used: the entries'
// names and shapes are copies (fill), the header buffer is overwritten.
func (p *headerParser) put() {
	if cap(p.buf) > maxPooledHeader {
		p.buf = nil
	}
	clear(p.entries[:cap(p.entries)]) // no hold on the last file's names
	*p = headerParser{buf: p.buf, ends: p.ends[:0], shapes: p.shapes[:0], dims: p.dims[:0], entries: p.entries[:0],
		order: p.order[:0], scratch: p.scratch[:0], key: p.key[:0]}
	parsers.Put(p)
}

// parseHeader decodes the header hdr (p.buf, which it overwrites) into
// entries, in the order they appear, and the optional __metadata__ map.
// It implements rule S5 (and rejects duplicate names); the offset rules
// are applied by validate. The entries are p's, valid until p.put.
func (p *headerParser) parseHeader(hdr []byte) ([]entry, map[string]string, error) {
	// The arenas are made at their bounds, so that they never grow: the
	// names are shorter than the header, and an entry has at least ten
	// '"' (its name, three field names and the dtype).
	n := bytes.Count(hdr, []byte{'"'})/10 + 1
	p.s = scanner{data: hdr}
	p.names = hdr[:0]
	p.ends = grown(p.ends[:0], n)
	p.shapes = grown(p.shapes[:0], 2*n)
	p.dims = grown(p.dims[:0], n)
	p.entries = grown(p.entries[:0], n)
	entries, meta, err := p.parse()
	var se *syntaxError
	if errors.As(err, &se) {
		return nil, nil, formatErr(p.file, CodeInvalidJSON, "", "%s, at byte %d", se.msg, prefixLen+se.pos)
	}
	return entries, meta, err
}

// grown returns s (empty) with room for n elements.
func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s
}

// parse reads the header. A name given twice is found once the names
// are sorted (no map of every name is built); it is reported as the
// parser reading in order would, before any error found after its
// second appearance.
func (p *headerParser) parse() ([]entry, map[string]string, error) {
	entries, meta, err := p.parseEntries()
	p.fill(entries)
	if dup := p.rankNames(entries); dup >= 0 {
		e := &entries[dup]
		return nil, nil, formatErr(p.file, CodeDuplicateName, e.name,
			"tensor %q appears twice in the header (second time at byte %d)", e.name, prefixLen+e.pos)
	}
	if err != nil {
		return nil, nil, err
	}
	return entries, meta, nil
}

// fill gives each entry its name and shape, cut from the arenas. A shape
// is capped at its length, so appending to one never writes into the
// next.
func (p *headerParser) fill(entries []entry) {
	names := string(p.names)
	shapes := slices.Clone(p.shapes)
	nameAt, shapeAt := 0, 0
	for i := range entries {
		e := &entries[i]
		e.name = names[nameAt:p.ends[i]]
		nameAt = p.ends[i]
		if i < len(p.dims) {
			e.shape = shapes[shapeAt:p.dims[i]:p.dims[i]]
			shapeAt = p.dims[i]
		}
	}
}

// rankNames sorts the entries' names, sets each entry's rank, and
// returns the entry that repeats an earlier name at the smallest
// position in the header, or -1.
func (p *headerParser) rankNames(entries []entry) int {
	order := grown(p.order[:0], len(entries))[:len(entries)]
	p.order = order
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(strings.Compare(entries[a].name, entries[b].name), cmp.Compare(a, b))
	})
	dup := -1
	for r, i := range order {
		entries[i].rank = r
		if r > 0 && entries[order[r-1]].name == entries[i].name && (dup < 0 || entries[i].pos < entries[dup].pos) {
			// Within equal names, in header order: the first repeat is
			// the second appearance.
			if r == 1 || entries[order[r-2]].name != entries[i].name {
				dup = int(i)
			}
		}
	}
	return dup
}

// parseEntries reads the header's object. On an error, the entries read
// so far are returned with it, the one being read included once its name
// is read.
func (p *headerParser) parseEntries() ([]entry, map[string]string, error) {
	s := &p.s
	if !s.consume('{') {
		return nil, nil, s.errorf("the header must be a JSON object, found %s", s.describeNext())
	}
	var (
		entries = p.entries[:0]
		meta    map[string]string
		sawMeta bool
	)
	for first := true; ; first = false {
		ok, err := s.more('}', first)
		if err != nil {
			return entries, nil, err
		}
		if !ok {
			break
		}
		pos := s.pos
		at := len(p.names)
		if p.names, err = s.appendKey(p.names); err != nil {
			p.names = p.names[:at]
			return entries, nil, err
		}
		if string(p.names[at:]) == metadataKey {
			p.names = p.names[:at]
			if sawMeta {
				s.pos = pos
				return entries, nil, s.errorf("duplicate key %q", metadataKey)
			}
			sawMeta = true
			if meta, err = p.metadata(); err != nil {
				return entries, nil, err
			}
			continue
		}
		p.ends = append(p.ends, len(p.names))
		entries = append(entries, entry{pos: pos})
		if err := p.tensor(&entries[len(entries)-1], p.names[at:]); err != nil {
			return entries, nil, err
		}
	}
	// The reference accepts JSON whitespace after the object (writers pad
	// the header to align the data) and nothing else: NUL padding is
	// "trailing characters".
	if s.peek(); s.pos < len(s.data) {
		return entries, nil, s.errorf("trailing characters after the JSON object (%q)", s.data[s.pos])
	}
	return entries, meta, nil
}

func (p *headerParser) metadata() (map[string]string, error) {
	s := &p.s
	if s.peek() == 'n' { // "__metadata__": null is accepted, as serde's Option is.
		return nil, s.literal()
	}
	if !s.consume('{') {
		return nil, s.errorf("%s must be an object of strings, found %s", metadataKey, s.describeNext())
	}
	meta := make(map[string]string)
	for first := true; ; first = false {
		ok, err := s.more('}', first)
		if err != nil || !ok {
			return meta, err
		}
		// A key given twice keeps its last value, as serde's HashMap in
		// the reference does: metadata is free text, not a tensor.
		k, err := s.key()
		if err != nil {
			return nil, err
		}
		if s.peek() != '"' {
			return nil, s.errorf("%s value for %q must be a string, found %s (arbitrary JSON is not allowed)", metadataKey, k, s.describeNext())
		}
		if meta[k], err = s.str(); err != nil {
			return nil, err
		}
	}
}

func (p *headerParser) tensor(e *entry, name []byte) error {
	s := &p.s
	pos := s.pos
	if !s.consume('{') {
		return s.errorf("tensor %q must be an object, found %s", name, s.describeNext())
	}
	var haveDType, haveShape, haveOffsets bool
	err := s.members(func() error {
		kpos := s.pos
		var k string
		var err error
		if p.key, err = s.appendKey(p.key[:0]); err != nil {
			return err
		}
		switch string(p.key) { // no copy: the three fields are constants
		case "dtype", "shape", "data_offsets":
			k = string(p.key)
		}
		var dup bool
		switch k {
		case "dtype":
			dup, haveDType = haveDType, true
			if !dup {
				err = p.dtype(e, name)
			}
		case "shape":
			dup, haveShape = haveShape, true
			if !dup {
				p.shapes, err = p.uints(p.shapes, name, "shape", -1)
				p.dims = append(p.dims, len(p.shapes))
			}
		case "data_offsets":
			dup, haveOffsets = haveOffsets, true
			if !dup {
				if p.scratch, err = p.uints(p.scratch[:0], name, "data_offsets", 2); err == nil {
					e.begin, e.end = p.scratch[0], p.scratch[1]
				}
			}
		default:
			k = string(p.key)
			// The reference ignores unknown fields in a tensor entry,
			// after reading them with serde_json's recursion limit; the
			// header and the entry are the two containers open.
			err = s.skipValueWithin(2, serdeDepth)
		}
		if dup {
			s.pos = kpos
			return s.errorf("tensor %q: duplicate field %q", name, k)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, f := range []struct {
		have  bool
		field string
	}{{haveDType, "dtype"}, {haveShape, "shape"}, {haveOffsets, "data_offsets"}} {
		if !f.have {
			s.pos = pos
			return s.errorf("tensor %q: missing field %q", name, f.field)
		}
	}
	return nil
}

func (p *headerParser) dtype(e *entry, tname []byte) error {
	s := &p.s
	if s.peek() != '"' {
		return s.errorf("tensor %q: dtype must be a string, found %s", tname, s.describeNext())
	}
	pos := s.pos
	var err error
	if p.key, err = s.appendStr(p.key[:0]); err != nil {
		return err
	}
	var ok bool
	if e.dtype, ok = dtypeByName[string(p.key)]; !ok {
		s.pos = pos
		return s.errorf("tensor %q: unknown dtype %q", tname, p.key)
	}
	return nil
}

// uints appends an array of unsigned 64-bit integers to out; want >= 0
// requires exactly that many.
func (p *headerParser) uints(out []uint64, name []byte, field string, want int) ([]uint64, error) {
	s := &p.s
	start := len(out)
	if !s.consume('[') {
		return out, s.errorf("tensor %q: %s must be an array, found %s", name, field, s.describeNext())
	}
	for first := true; ; first = false {
		ok, err := s.more(']', first)
		if err != nil {
			return out, err
		}
		if !ok {
			break
		}
		c := s.peek()
		if c != '-' && (c < '0' || c > '9') {
			return out, s.errorf("tensor %q: %s holds %s, not an integer", name, field, s.describeNext())
		}
		pos := s.pos
		num, err := s.number()
		if err != nil {
			return out, err
		}
		v, ok := parseUint(num)
		if !ok {
			s.pos = pos
			return out, s.errorf("tensor %q: %s value %s is not an unsigned 64-bit integer", name, field, num)
		}
		if want >= 0 && len(out)-start == want {
			s.pos = pos
			return out, s.errorf("tensor %q: %s must hold exactly %d integers", name, field, want)
		}
		out = append(out, v)
	}
	if want >= 0 && len(out)-start != want {
		return out, s.errorf("tensor %q: %s must hold exactly %d integers, found %d", name, field, want, len(out)-start)
	}
	return out, nil
}
