package gguf

import (
	"strings"
	"testing"
)

// textOf returns a value's whole text, failing t on a read error.
func textOf(t testing.TB, v Value) string {
	t.Helper()
	b, err := v.AppendText(nil)
	if err != nil {
		t.Fatalf("text of %s: %v", v.describe(), err)
	}
	return string(b)
}

// linesOf returns the lines of a value's text.
func linesOf(t testing.TB, v Value) []string {
	t.Helper()
	s := textOf(t, v)
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// index returns element i of an array, failing t if it cannot be read.
func index(t testing.TB, v Value, i int) Value {
	t.Helper()
	e, err := v.Index(i)
	if err != nil {
		t.Fatalf("Index(%d) of %s: %v", i, v.describe(), err)
	}
	return e
}

// anyOf is Value.Any with arrays read as []any; it panics on a read
// error (the tests' files are in memory).
func anyOf(v Value) any {
	if v.Type() != TypeArray {
		return v.Any()
	}
	elems, err := v.Elems()
	if err != nil {
		panic(err)
	}
	out := make([]any, len(elems))
	for i, e := range elems {
		out[i] = anyOf(e)
	}
	return out
}

// sameValue reports whether two values hold the same type and elements
// (arrays of different files compare by what they hold).
func sameValue(a, b Value) bool {
	if a.Type() != b.Type() || a.Len() != b.Len() {
		return false
	}
	if a.Type() != TypeArray {
		return a.bits == b.bits && a.str == b.str
	}
	ea, _ := a.ElemType()
	eb, _ := b.ElemType()
	if ea != eb || a.TextSize() != b.TextSize() {
		return false
	}
	xa, erra := a.Elems()
	xb, errb := b.Elems()
	if erra != nil || errb != nil {
		return false
	}
	for i := range xa {
		if !sameValue(xa[i], xb[i]) {
			return false
		}
	}
	return true
}
