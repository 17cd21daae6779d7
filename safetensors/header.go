package safetensors

import (
	"errors"

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
}

// headerParser reads the header's JSON with a scanner, so that duplicate
// keys are seen (encoding/json keeps the last one silently) and no value
// is ever decoded into a structure sized by the input.
type headerParser struct {
	file string
	s    scanner
}

// parseHeader decodes the header into entries, in the order they appear,
// and the optional __metadata__ map. It implements rule S5 (and rejects
// duplicate names); the offset rules are applied by validate.
func parseHeader(file string, hdr []byte) ([]entry, map[string]string, error) {
	p := &headerParser{file: file, s: scanner{data: hdr}}
	entries, meta, err := p.parse()
	var se *syntaxError
	if errors.As(err, &se) {
		return nil, nil, formatErr(file, CodeInvalidJSON, "", "%s, at byte %d", se.msg, prefixLen+se.pos)
	}
	return entries, meta, err
}

func (p *headerParser) parse() ([]entry, map[string]string, error) {
	s := &p.s
	if !s.consume('{') {
		return nil, nil, s.errorf("the header must be a JSON object, found %s", s.describeNext())
	}
	var (
		entries []entry
		meta    map[string]string
		seen    = make(map[string]struct{})
		sawMeta bool
	)
	for first := true; ; first = false {
		ok, err := s.more('}', first)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		pos := s.pos
		name, err := s.str()
		if err != nil {
			return nil, nil, err
		}
		if !s.consume(':') {
			return nil, nil, s.errorf("expected ':', found %s", s.describeNext())
		}
		if name == metadataKey {
			if sawMeta {
				s.pos = pos
				return nil, nil, s.errorf("duplicate key %q", metadataKey)
			}
			sawMeta = true
			if meta, err = p.metadata(); err != nil {
				return nil, nil, err
			}
			continue
		}
		if _, dup := seen[name]; dup {
			return nil, nil, formatErr(p.file, CodeDuplicateName, name,
				"tensor %q appears twice in the header (second time at byte %d)", name, prefixLen+pos)
		}
		seen[name] = struct{}{}
		e, err := p.tensor(name)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, e)
	}
	// The reference accepts JSON whitespace after the object (writers pad
	// the header to align the data) and nothing else: NUL padding is
	// "trailing characters".
	if s.peek(); s.pos < len(s.data) {
		return nil, nil, s.errorf("trailing characters after the JSON object (%q)", s.data[s.pos])
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
		k, err := s.str()
		if err != nil {
			return nil, err
		}
		// A key given twice keeps its last value, as serde's HashMap in
		// the reference does: metadata is free text, not a tensor.
		if !s.consume(':') {
			return nil, s.errorf("expected ':', found %s", s.describeNext())
		}
		if s.peek() != '"' {
			return nil, s.errorf("%s value for %q must be a string, found %s (arbitrary JSON is not allowed)", metadataKey, k, s.describeNext())
		}
		if meta[k], err = s.str(); err != nil {
			return nil, err
		}
	}
}

func (p *headerParser) tensor(name string) (entry, error) {
	s := &p.s
	e := entry{name: name}
	pos := s.pos
	if !s.consume('{') {
		return e, s.errorf("tensor %q must be an object, found %s", name, s.describeNext())
	}
	var haveDType, haveShape, haveOffsets bool
	for first := true; ; first = false {
		ok, err := s.more('}', first)
		if err != nil {
			return e, err
		}
		if !ok {
			break
		}
		kpos := s.pos
		k, err := s.str()
		if err != nil {
			return e, err
		}
		if !s.consume(':') {
			return e, s.errorf("expected ':', found %s", s.describeNext())
		}
		var dup bool
		switch k {
		case "dtype":
			dup, haveDType = haveDType, true
			if !dup {
				err = p.dtype(&e)
			}
		case "shape":
			dup, haveShape = haveShape, true
			if !dup {
				e.shape, err = p.uints(name, "shape", -1)
			}
		case "data_offsets":
			dup, haveOffsets = haveOffsets, true
			if !dup {
				var offs []uint64
				if offs, err = p.uints(name, "data_offsets", 2); err == nil {
					e.begin, e.end = offs[0], offs[1]
				}
			}
		default:
			// The reference ignores unknown fields in a tensor entry,
			// after reading them with serde_json's recursion limit; the
			// header and the entry are the two containers open.
			err = s.skipValueWithin(2, serdeDepth)
		}
		if dup {
			s.pos = kpos
			return e, s.errorf("tensor %q: duplicate field %q", name, k)
		}
		if err != nil {
			return e, err
		}
	}
	for _, f := range []struct {
		have  bool
		field string
	}{{haveDType, "dtype"}, {haveShape, "shape"}, {haveOffsets, "data_offsets"}} {
		if !f.have {
			s.pos = pos
			return e, s.errorf("tensor %q: missing field %q", name, f.field)
		}
	}
	return e, nil
}

func (p *headerParser) dtype(e *entry) error {
	s := &p.s
	if s.peek() != '"' {
		return s.errorf("tensor %q: dtype must be a string, found %s", e.name, s.describeNext())
	}
	pos := s.pos
	name, err := s.str()
	if err != nil {
		return err
	}
	var ok bool
	if e.dtype, ok = ParseDType(name); !ok {
		s.pos = pos
		return s.errorf("tensor %q: unknown dtype %q", e.name, name)
	}
	return nil
}

// uints reads an array of unsigned 64-bit integers; want >= 0 requires
// exactly that many.
func (p *headerParser) uints(name, field string, want int) ([]uint64, error) {
	s := &p.s
	if !s.consume('[') {
		return nil, s.errorf("tensor %q: %s must be an array, found %s", name, field, s.describeNext())
	}
	out := make([]uint64, 0, 4)
	for first := true; ; first = false {
		ok, err := s.more(']', first)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		c := s.peek()
		if c != '-' && (c < '0' || c > '9') {
			return nil, s.errorf("tensor %q: %s holds %s, not an integer", name, field, s.describeNext())
		}
		pos := s.pos
		num, err := s.number()
		if err != nil {
			return nil, err
		}
		v, ok := parseUint(num)
		if !ok {
			s.pos = pos
			return nil, s.errorf("tensor %q: %s value %s is not an unsigned 64-bit integer", name, field, num)
		}
		if want >= 0 && len(out) == want {
			s.pos = pos
			return nil, s.errorf("tensor %q: %s must hold exactly %d integers", name, field, want)
		}
		out = append(out, v)
	}
	if want >= 0 && len(out) != want {
		return nil, s.errorf("tensor %q: %s must hold exactly %d integers, found %d", name, field, want, len(out))
	}
	return out, nil
}
