package check

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape makes s safe to print on one line of a terminal or a text file:
// every character that moves the cursor, breaks the line, changes the
// terminal's state or reorders the text is written as a visible escape,
// and a backslash as `\\`, so that the original is recoverable. It
// escapes
//
//   - C0 controls as `\n`, `\r`, `\t` or `\x1b`, DEL as `\x7f`;
//   - C1 controls (U+0080–U+009F), the line and paragraph separators
//     U+2028 and U+2029, the bidi controls U+061C, U+200E, U+200F,
//     U+202A–U+202E and U+2066–U+2069, and U+FEFF as `\u2028`;
//   - bytes that are not UTF-8 as `\xff`.
//
// Everything else, including non-ASCII letters and symbols, is kept. The
// JSON report needs no such step: encoding/json escapes for itself.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case !needsEscape(r, n):
			b.WriteString(s[i : i+n])
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r < 0x20, r == '\\', r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r <= 0x9f: // C1
		return true
	}
	switch r {
	case 0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0xfeff:
		return true
	}
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
