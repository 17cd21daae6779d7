package safetensors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

const (
	// MaxHeaderSize is the reference's cap on the JSON header length.
	MaxHeaderSize = 100_000_000
	prefixLen     = 8
	metadataKey   = "__metadata__"
)

// entry is one tensor as the header declares it, before validation.
type entry struct {
	name   string
	dtype  DType
	shape  []uint64
	begin  uint64
	end    uint64
	keyPos int64 // byte offset of the entry's key in the header, for messages
}

// headerParser reads the header JSON token by token, so that duplicate keys
// are seen (encoding/json's Unmarshal keeps the last one silently) and no
// value is ever decoded into a structure sized by the input.
type headerParser struct {
	file string
	dec  *json.Decoder
}

// parseHeader decodes the header into entries, in the order they appear,
// and the optional __metadata__ map. It implements rule 5 (and rejects
// duplicate names); the offset rules are applied by validate.
func parseHeader(file string, hdr []byte) ([]entry, map[string]string, error) {
	p := &headerParser{file: file, dec: json.NewDecoder(bytes.NewReader(hdr))}
	p.dec.UseNumber()
	if err := p.expectDelim('{', "the header must be a JSON object"); err != nil {
		return nil, nil, err
	}
	var (
		entries []entry
		meta    map[string]string
		seen    = make(map[string]struct{})
		sawMeta bool
	)
	for p.dec.More() {
		pos := p.dec.InputOffset()
		name, err := p.key()
		if err != nil {
			return nil, nil, err
		}
		if name == metadataKey {
			if sawMeta {
				return nil, nil, p.errAt(pos, "", "duplicate key %q", metadataKey)
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
		e.keyPos = pos
		entries = append(entries, e)
	}
	if err := p.expectDelim('}', "unterminated header object"); err != nil {
		return nil, nil, err
	}
	// The reference accepts JSON whitespace after the object (writers pad
	// the header to align the data) and nothing else: NUL padding is
	// "trailing characters".
	off := p.dec.InputOffset()
	if i := bytes.IndexFunc(hdr[off:], func(r rune) bool {
		return r != ' ' && r != '\t' && r != '\n' && r != '\r'
	}); i >= 0 {
		return nil, nil, p.errAt(off+int64(i), "", "trailing characters after the JSON object (%q)", hdr[off+int64(i)])
	}
	return entries, meta, nil
}

func (p *headerParser) errAt(pos int64, tensor, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return formatErr(p.file, CodeInvalidJSON, tensor, "%s, at byte %d", msg, prefixLen+pos)
}

// token reads the next token, turning syntax errors into FormatErrors.
func (p *headerParser) token() (json.Token, error) {
	tok, err := p.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, formatErr(p.file, CodeInvalidJSON, "", "%v, at byte %d", se, prefixLen+se.Offset)
		}
		return nil, formatErr(p.file, CodeInvalidJSON, "", "%v, at byte %d", err, prefixLen+p.dec.InputOffset())
	}
	return tok, nil
}

func (p *headerParser) expectDelim(d json.Delim, msg string) error {
	pos := p.dec.InputOffset()
	tok, err := p.token()
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return p.errAt(pos, "", "%s, found %s", msg, describe(tok))
	}
	return nil
}

func (p *headerParser) key() (string, error) {
	tok, err := p.token()
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", p.errAt(p.dec.InputOffset(), "", "expected an object key, found %s", describe(tok))
	}
	return s, nil
}

func (p *headerParser) metadata() (map[string]string, error) {
	pos := p.dec.InputOffset()
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	if tok == nil { // "__metadata__": null is accepted, as serde's Option is.
		return nil, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, p.errAt(pos, "", "%s must be an object of strings, found %s", metadataKey, describe(tok))
	}
	meta := make(map[string]string)
	for p.dec.More() {
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		if _, dup := meta[k]; dup {
			return nil, p.errAt(p.dec.InputOffset(), "", "duplicate key %q in %s", k, metadataKey)
		}
		vpos := p.dec.InputOffset()
		tok, err := p.token()
		if err != nil {
			return nil, err
		}
		v, ok := tok.(string)
		if !ok {
			return nil, p.errAt(vpos, "", "%s value for %q must be a string, found %s (arbitrary JSON is not allowed)", metadataKey, k, describe(tok))
		}
		meta[k] = v
	}
	return meta, p.expectDelim('}', "unterminated "+metadataKey)
}

func (p *headerParser) tensor(name string) (entry, error) {
	e := entry{name: name}
	pos := p.dec.InputOffset()
	tok, err := p.token()
	if err != nil {
		return e, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return e, p.errAt(pos, name, "tensor %q must be an object, found %s", name, describe(tok))
	}
	var haveDType, haveShape, haveOffsets bool
	for p.dec.More() {
		k, err := p.key()
		if err != nil {
			return e, err
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
				offs, err = p.uints(name, "data_offsets", 2)
				if err == nil {
					e.begin, e.end = offs[0], offs[1]
				}
			}
		default:
			// The reference ignores unknown fields in a tensor entry.
			err = p.skipValue()
		}
		if dup {
			return e, p.errAt(p.dec.InputOffset(), name, "tensor %q: duplicate field %q", name, k)
		}
		if err != nil {
			return e, err
		}
	}
	if err := p.expectDelim('}', "unterminated tensor entry"); err != nil {
		return e, err
	}
	for _, f := range []struct {
		have  bool
		field string
	}{{haveDType, "dtype"}, {haveShape, "shape"}, {haveOffsets, "data_offsets"}} {
		if !f.have {
			return e, p.errAt(pos, name, "tensor %q: missing field %q", name, f.field)
		}
	}
	return e, nil
}

func (p *headerParser) dtype(e *entry) error {
	pos := p.dec.InputOffset()
	tok, err := p.token()
	if err != nil {
		return err
	}
	s, ok := tok.(string)
	if !ok {
		return p.errAt(pos, e.name, "tensor %q: dtype must be a string, found %s", e.name, describe(tok))
	}
	if e.dtype, ok = ParseDType(s); !ok {
		return p.errAt(pos, e.name, "tensor %q: unknown dtype %q", e.name, s)
	}
	return nil
}

// uints reads an array of unsigned 64-bit integers; want >= 0 requires
// exactly that many.
func (p *headerParser) uints(name, field string, want int) ([]uint64, error) {
	pos := p.dec.InputOffset()
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, p.errAt(pos, name, "tensor %q: %s must be an array, found %s", name, field, describe(tok))
	}
	out := []uint64{}
	for p.dec.More() {
		vpos := p.dec.InputOffset()
		tok, err := p.token()
		if err != nil {
			return nil, err
		}
		num, ok := tok.(json.Number)
		if !ok {
			return nil, p.errAt(vpos, name, "tensor %q: %s holds %s, not an integer", name, field, describe(tok))
		}
		// ParseUint rejects exactly what serde rejects for u64: a sign,
		// a fraction, an exponent, and values of 2^64 and above.
		v, perr := strconv.ParseUint(string(num), 10, 64)
		if perr != nil {
			return nil, p.errAt(vpos, name, "tensor %q: %s value %s is not an unsigned 64-bit integer", name, field, num)
		}
		out = append(out, v)
		if want >= 0 && len(out) > want {
			return nil, p.errAt(vpos, name, "tensor %q: %s must hold exactly %d integers", name, field, want)
		}
	}
	if want >= 0 && len(out) != want {
		return nil, p.errAt(pos, name, "tensor %q: %s must hold exactly %d integers, found %d", name, field, want, len(out))
	}
	return out, p.expectDelim(']', "unterminated "+field)
}

// skipValue consumes one JSON value of any depth without building it.
func (p *headerParser) skipValue() error {
	depth := 0
	for {
		tok, err := p.token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		return fmt.Sprintf("%q", string(v))
	case string:
		return fmt.Sprintf("string %q", v)
	case json.Number:
		return "number " + string(v)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprintf("%v", tok)
}
