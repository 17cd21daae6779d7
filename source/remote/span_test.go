package remote

import (
	"bytes"
	"testing"
)

// TestSpanSlice checks span.slice against slicing the joined bytes, for
// every range of a span with an empty piece and pieces of several sizes.
func TestSpanSlice(t *testing.T) {
	s := span{[]byte("abc"), nil, []byte("d"), []byte("efgh")}
	whole := bytes.Join(s, nil)
	if s.len() != len(whole) {
		t.Fatalf("len %d, want %d", s.len(), len(whole))
	}
	for from := 0; from <= len(whole); from++ {
		for to := from; to <= len(whole); to++ {
			got := s.slice(from, to)
			if j := bytes.Join(got, nil); !bytes.Equal(j, whole[from:to]) || got.len() != to-from {
				t.Fatalf("slice(%d, %d) = %q", from, to, j)
			}
			for _, p := range got {
				if len(p) == 0 {
					t.Fatalf("slice(%d, %d) holds an empty piece", from, to)
				}
			}
		}
	}
	// The pieces share the span's arrays: a fetch fills the chunks.
	s.slice(4, 6)[0][0] = 'X'
	if s[3][0] != 'X' {
		t.Fatal("slice copied")
	}
}
