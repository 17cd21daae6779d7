package safetensors

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a minimal JSON reader over bytes already known to be UTF-8.
// encoding/json cannot report duplicate keys and its token API allocates
// for every token; the header of a 37,000-tensor checkpoint holds half a
// million tokens, so this reader walks the bytes directly. It accepts
// exactly RFC 8259 JSON, as serde_json does, including its rejection of
// lone UTF-16 surrogates in \u escapes.
type scanner struct {
	data []byte
	pos  int
}

// syntaxError is a JSON syntax error at a byte offset of the scanned data.
type syntaxError struct {
	pos int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

func (s *scanner) errorf(format string, args ...any) error {
	return &syntaxError{s.pos, fmt.Sprintf(format, args...)}
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the next byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

func (s *scanner) describeNext() string {
	switch c := s.peek(); {
	case c == 0:
		return "the end of the header"
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		r, _ := utf8.DecodeRune(s.data[s.pos:])
		return fmt.Sprintf("%q", r)
	}
}

// consume skips whitespace and then c, reporting whether it was there.
func (s *scanner) consume(c byte) bool {
	if s.peek() == c {
		s.pos++
		return true
	}
	return false
}

// more is called inside a container after an element (or at its start,
// with first set): it consumes a ',' and reports whether another element
// follows, or reports false at the closing byte, which it consumes.
func (s *scanner) more(close byte, first bool) (bool, error) {
	c := s.peek()
	if c == close {
		s.pos++
		return false, nil
	}
	if first {
		return true, nil
	}
	if c != ',' {
		return false, s.errorf("expected ',' or '%c', found %s", close, s.describeNext())
	}
	s.pos++
	return true, nil
}

// str reads a string value.
func (s *scanner) str() (string, error) {
	if s.peek() != '"' {
		return "", s.errorf("expected a string, found %s", s.describeNext())
	}
	start := s.pos + 1
	// Fast path: no escapes.
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.pos = i + 1
			return string(s.data[start:i]), nil
		case c == '\\':
			out, err := s.strSlow(make([]byte, 0, 64), start)
			return string(out), err
		case c < 0x20:
			s.pos = i
			return "", s.errorf("control character %#02x in a string", c)
		}
	}
	s.pos = len(s.data)
	return "", s.errorf("unterminated string")
}

// appendStr reads a string value and appends its bytes to dst, which it
// returns (with anything appended on an error).
func (s *scanner) appendStr(dst []byte) ([]byte, error) {
	if s.peek() != '"' {
		return dst, s.errorf("expected a string, found %s", s.describeNext())
	}
	start := s.pos + 1
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.pos = i + 1
			return append(dst, s.data[start:i]...), nil
		case c == '\\':
			return s.strSlow(dst, start)
		case c < 0x20:
			s.pos = i
			return dst, s.errorf("control character %#02x in a string", c)
		}
	}
	s.pos = len(s.data)
	return dst, s.errorf("unterminated string")
}

// members calls member for each member of the object whose '{' was just
// consumed, up to its '}': member reads the key and the value.
func (s *scanner) members(member func() error) error {
	for first := true; ; first = false {
		ok, err := s.more('}', first)
		if err != nil || !ok {
			return err
		}
		if err := member(); err != nil {
			return err
		}
	}
}

// key reads an object's key and the ':' after it.
func (s *scanner) key() (string, error) {
	k, err := s.str()
	if err == nil {
		err = s.colon()
	}
	return k, err
}

// appendKey is [scanner.key] appending the key's bytes to dst, as
// [scanner.appendStr].
func (s *scanner) appendKey(dst []byte) ([]byte, error) {
	dst, err := s.appendStr(dst)
	if err == nil {
		err = s.colon()
	}
	return dst, err
}

// colon consumes the ':' after an object's key.
func (s *scanner) colon() error {
	if !s.consume(':') {
		return s.errorf("expected ':', found %s", s.describeNext())
	}
	return nil
}

// strSlow appends the string starting at start, escapes decoded, to out.
func (s *scanner) strSlow(out []byte, start int) ([]byte, error) {
	i := start
	for i < len(s.data) {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return out, nil
		case c < 0x20:
			s.pos = i
			return out, s.errorf("control character %#02x in a string", c)
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(s.data) {
			break
		}
		esc := s.data[i+1]
		i += 2
		switch esc {
		case '"', '\\', '/':
			out = append(out, esc)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s.data, i)
			if !ok {
				s.pos = i
				return out, s.errorf("invalid \\u escape")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+1 < len(s.data) && s.data[i] == '\\' && s.data[i+1] == 'u' {
					r2, ok = hex4(s.data, i+2)
				}
				dec := utf16.DecodeRune(r, r2)
				if !ok || dec == utf8.RuneError {
					s.pos = i
					return out, s.errorf("lone UTF-16 surrogate in a \\u escape")
				}
				i += 6
				r = dec
			}
			out = utf8.AppendRune(out, r)
		default:
			s.pos = i - 1
			return out, s.errorf("invalid escape '\\%c'", esc)
		}
	}
	s.pos = len(s.data)
	return out, s.errorf("unterminated string")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number reads a JSON number and returns its text.
func (s *scanner) number() ([]byte, error) {
	s.ws()
	start, i := s.pos, s.pos
	digits := func() int {
		n := 0
		for i < len(s.data) && s.data[i] >= '0' && s.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s.data) && s.data[i] == '-' {
		i++
	}
	switch {
	case i < len(s.data) && s.data[i] == '0':
		i++
	case digits() == 0:
		s.pos = i
		return nil, s.errorf("invalid number")
	}
	if i < len(s.data) && s.data[i] == '.' {
		i++
		if digits() == 0 {
			s.pos = i
			return nil, s.errorf("invalid number")
		}
	}
	if i < len(s.data) && (s.data[i] == 'e' || s.data[i] == 'E') {
		i++
		if i < len(s.data) && (s.data[i] == '+' || s.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			s.pos = i
			return nil, s.errorf("invalid number")
		}
	}
	s.pos = i
	return s.data[start:i], nil
}

// parseUint parses the text of a JSON number as an unsigned 64-bit
// integer, rejecting a sign, a fraction, an exponent and overflow, as
// serde does for u64.
func parseUint(num []byte) (uint64, bool) {
	var v uint64
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, len(num) > 0
}

// skipValue consumes one value of any depth. Nesting is tracked in a
// slice that grows with the input, never on the call stack.
func (s *scanner) skipValue() error { return s.skipValueWithin(0, 0) }

// serdeDepth is serde_json's recursion limit: its reader counts down from
// 128 on entering each array or object and fails when it reaches 0, so at
// most 127 containers may be open at once, the header object included.
const serdeDepth = 127

// skipValueWithin is skipValue for a value inside open enclosing
// containers; with limit > 0, more than limit open containers in all is an
// error, as serde_json's "recursion limit exceeded".
func (s *scanner) skipValueWithin(open, limit int) error {
	var stack []byte
	for {
		// A value.
		switch c := s.peek(); c {
		case '{', '[':
			s.pos++
			close := byte('}')
			if c == '[' {
				close = ']'
			}
			if limit > 0 && open+len(stack)+1 > limit {
				s.pos--
				return s.errorf("recursion limit exceeded: more than %d nested arrays and objects (serde_json's limit, which the reference applies)", limit)
			}
			if s.consume(close) {
				break
			}
			stack = append(stack, close)
			if close == '}' {
				if _, err := s.key(); err != nil {
					return err
				}
			}
			continue
		case '"':
			if _, err := s.str(); err != nil {
				return err
			}
		case 't', 'f', 'n':
			if err := s.literal(); err != nil {
				return err
			}
		default:
			if _, err := s.number(); err != nil {
				return s.errorf("expected a value, found %s", s.describeNext())
			}
		}
		// After a value: close containers or move to the next element.
		for {
			if len(stack) == 0 {
				return nil
			}
			close := stack[len(stack)-1]
			if s.consume(close) {
				stack = stack[:len(stack)-1]
				continue
			}
			if !s.consume(',') {
				return s.errorf("expected ',' or '%c', found %s", close, s.describeNext())
			}
			if close == '}' {
				if _, err := s.key(); err != nil {
					return err
				}
			}
			break
		}
	}
}

func (s *scanner) literal() error {
	for _, lit := range []string{"true", "false", "null"} {
		if len(s.data)-s.pos >= len(lit) && string(s.data[s.pos:s.pos+len(lit)]) == lit {
			s.pos += len(lit)
			return nil
		}
	}
	return s.errorf("invalid literal")
}
