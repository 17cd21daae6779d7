package fusefs

import (
	"fmt"
	"strconv"
	"strings"
)

// reserved are the names the tree itself uses (treeNames); a tensor path
// component equal to one of them is escaped, so that no header can shadow
// them.
var reserved = func() map[string]bool {
	m := make(map[string]bool, len(treeNames))
	for _, n := range treeNames {
		m[n] = true
	}
	return m
}()

const (
	maxComponent = 255       // NAME_MAX
	chunkLen     = 240       // payload of a continued component
	continued    = "%+"      // suffix of a component continued in a child
	modelPrefix  = "model."  // dropped from tensor names
	weightSuffix = "weight"  // a final part that is dropped
	escModel     = "%6Dodel" // "model" kept, escaped, on a collision
	escWeight    = "%77eight"
)

// escapePart turns one part of a name (a tensor's, a metadata key, a
// model file's) into one or more path components. The escape is
// reversible (see unescapeComponents): '%', '/', and the control bytes
// (below 0x20, and 0x7f) are percent-encoded, so that no listing
// written to a terminal carries an escape sequence or a line break from
// a file; the empty part is "%"; ".", "..", and reserved names get their
// first byte encoded; a part longer than NAME_MAX is split into
// components ending in "%+", each continued in a subdirectory.
func escapePart(p string) []string { return appendEscaped(nil, p) }

// mustEscape reports whether a byte of a name is percent-encoded.
func mustEscape(c byte) bool { return c == '%' || c == '/' || c < 0x20 || c == 0x7f }

// appendEscaped appends the components of escapePart(p) to dst.
func appendEscaped(dst []string, p string) []string { return escapeInto(dst, p, true) }

// escapeFileName is escapePart for a name of files/, where the tree's own
// names are not reserved (config.json is the model's).
func escapeFileName(p string) []string { return escapeInto(nil, p, false) }

func escapeInto(dst []string, p string, reserve bool) []string {
	guard := func(s string) string { return guardName(s, reserve) }
	plain := len(p) <= maxComponent
	for i := 0; plain && i < len(p); i++ {
		plain = !mustEscape(p[i])
	}
	if plain {
		return append(dst, guard(p)) // the common case: nothing to encode
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if c := p[i]; mustEscape(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	s := b.String()
	if len(s) <= maxComponent {
		return append(dst, guard(s))
	}
	out := dst
	for len(s) > maxComponent {
		cut := chunkLen
		// Never split a %XX escape.
		if i := strings.LastIndexByte(s[cut-2:cut], '%'); i >= 0 {
			cut = cut - 2 + i
		}
		out = append(out, guard(s[:cut])+continued)
		s = s[cut:]
	}
	return append(out, guard(s))
}

// guardName escapes the components that would otherwise mean something
// else: "", "." and "..", and with reserve the tree's own names.
func guardName(s string, reserve bool) string {
	switch {
	case s == "":
		return "%"
	case s == "." || s == ".." || reserve && reserved[s]:
		return fmt.Sprintf("%%%02X", s[0]) + s[1:]
	}
	return s
}

// unescapeComponents reverses escapePart: it joins continued components
// and decodes the escapes.
func unescapeComponents(comps []string) (string, error) {
	var joined strings.Builder
	for i, c := range comps {
		if strings.HasSuffix(c, continued) {
			joined.WriteString(strings.TrimSuffix(c, continued))
			continue
		}
		if i != len(comps)-1 {
			return "", fmt.Errorf("component %q is not the last and not continued", c)
		}
		joined.WriteString(c)
	}
	s := joined.String()
	if s == "%" {
		return "", nil
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			out.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("truncated escape in %q", s)
		}
		c, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		out.WriteByte(byte(c))
		i += 2
	}
	return out.String(), nil
}

// tensorPaths maps every tensor name to its path in the tree:
// a leading "model." is dropped, the name is split on ".", and a final
// "weight" is dropped so that the module's directory holds its weight.
// Where dropping makes two names meet, those names keep every part, with
// the dropped ones escaped, so that every tensor has exactly one path.
func tensorPaths(names []string) map[string][]string {
	list := tensorPathList(names)
	out := make(map[string][]string, len(names))
	for i, n := range names {
		out[n] = list[i]
	}
	return out
}

// tensorPathList is tensorPaths as a list: the path of names[i] at i.
func tensorPathList(names []string) [][]string {
	type cand struct {
		rest           string // the name without "model."
		key            string // the candidate path, joined by "."
		stripped, drop bool
	}
	cands := make([]cand, len(names))
	count := make(map[string]int, len(names))
	for i, n := range names {
		rest, stripped := strings.CutPrefix(n, modelPrefix)
		key, drop := rest, false
		if k, ok := strings.CutSuffix(rest, "."+weightSuffix); ok {
			key, drop = k, true
		}
		cands[i] = cand{rest, key, stripped, drop}
		count[key]++
	}
	out := make([][]string, len(names))
	for i := range names {
		c := cands[i]
		parts := strings.Split(c.key, ".")
		comps := make([]string, 0, len(parts)+2)
		collides := count[c.key] > 1 && (c.stripped || c.drop)
		if collides && c.stripped {
			// Spell the name out in full, marking what the short form
			// drops.
			comps = append(comps, escModel)
		}
		for _, p := range parts {
			comps = appendEscaped(comps, p)
		}
		if collides && c.drop {
			comps = append(comps, escWeight)
		}
		out[i] = comps
	}
	return out
}
