// Package formaterr is the one pattern of the format packages' typed
// errors (gguf, safetensors, pytorch, dcp). Each of them has:
//
//   - a Code type, a string that is itself an error, one constant per
//     rule, so that errors.Is(err, gguf.CodeDuplicateKey) asks whether
//     err broke that rule (constants, not variables anyone could
//     reassign), and codes stay stable between releases;
//   - ErrFormat, which every FormatError matches, so that
//     errors.Is(err, pkg.ErrFormat) tells a refused file from an I/O
//     error;
//   - FormatError, naming the file, the code, the tensor concerned and
//     what was found, in one line.
//
// Each package keeps its own exported types (its codes are its API, and
// its message its own wording); this package holds the matching rule
// and the way a message is joined, which they share. It imports nothing
// but the standard library.
package formaterr

import "strings"

// Is is a FormatError's Is method: it matches the package's errFormat
// and the error's own code.
func Is[C comparable](target, errFormat error, code C) bool {
	if target == errFormat {
		return true
	}
	c, ok := target.(C)
	return ok && c == code
}

// Join joins the parts of a message that are not empty with ": ", as
// "file: what: tensor: detail".
func Join(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(p)
	}
	return b.String()
}
