package safetensors

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScannerStrings(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{`"plain"`, "plain", true},
		{`"caf\u00e9"`, "café", true},
		{`"\ud83d\ude00"`, "😀", true},
		{`"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t", true},
		{`"\u0000"`, "\x00", true},
		{`"\ud800"`, "", false},       // lone high surrogate
		{`"\udc00x"`, "", false},      // lone low surrogate
		{`"\ud800\u0041"`, "", false}, // high surrogate, then not a low one
		{`"\x"`, "", false},
		{`"\u12"`, "", false},
		{"\"a\tb\"", "", false}, // raw control character
		{`"unterminated`, "", false},
	} {
		s := scanner{data: []byte(c.in)}
		got, err := s.str()
		if !c.ok {
			assert.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
}

func TestScannerNumbers(t *testing.T) {
	for in, want := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "1e9": true, "1E+9": true, "-1.5e-3": true,
		"01": false, "-": false, "1.": false, ".5": false, "1e": false, "+1": false,
	} {
		s := scanner{data: []byte(in)}
		_, err := s.number()
		ok := err == nil && s.pos == len(in)
		assert.Equal(t, want, ok, in)
	}
	for in, want := range map[string]uint64{"0": 0, "18446744073709551615": 1<<64 - 1} {
		v, ok := parseUint([]byte(in))
		assert.True(t, ok)
		assert.Equal(t, want, v)
	}
	for _, in := range []string{"18446744073709551616", "-1", "1.0", "1e3", ""} {
		_, ok := parseUint([]byte(in))
		assert.False(t, ok, in)
	}
}

// FuzzScanner checks the scanner against encoding/json: both must accept
// and reject the same documents (lone surrogates aside, which serde and we
// reject and encoding/json replaces), and decode strings alike.
func FuzzScanner(f *testing.F) {
	for _, seed := range []string{`{"a":[1,2,{"b":null}],"c":"d"}`, `[true,false,-1.5e3]`, `"x\u00e9"`, `{}`, `[`, `{"a" 1}`, `[1,]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// The scanner runs on headers already checked to be UTF-8.
		if strings.Contains(string(in), `\u`) || !utf8.Valid(in) {
			return
		}
		s := scanner{data: in}
		err := s.skipValue()
		ours := err == nil && s.peek() == 0 && s.pos == len(in)
		if theirs := json.Valid(in); ours != theirs {
			t.Fatalf("scanner says %v, encoding/json says %v for %q (err %v)", ours, theirs, in, err)
		}
		if len(in) > 0 && in[0] == '"' {
			var want string
			if json.Unmarshal(in, &want) == nil {
				s := scanner{data: in}
				got, err := s.str()
				if err != nil || got != want {
					t.Fatalf("str(%q) = %q, %v; encoding/json: %q", in, got, err, want)
				}
			}
		}
	})
}
