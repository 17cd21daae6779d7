package pytorch

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/source"
)

// FuzzPickle: the unpickler and the naming of its tensors, on any
// stream as a data.pkl whose every storage is as long as its id says.
// No input panics, overflows the stack or hangs; a refusal is a
// pickleErr (or a stream cut short) made into one line naming the file;
// what the stream allocates from values it holds stays in its budget.
// The corpus (testdata/fuzz/FuzzPickle) holds data.pkl of checkpoints
// torch wrote and the hostile streams of the tests.
func FuzzPickle(f *testing.F) {
	f.Add([]byte("\x80\x02}q\x00.")) // {}
	f.Fuzz(func(t *testing.T, b []byte) {
		ss := newStorages(0)
		u := &unpickler{data: b, text: string(b), persistent: func(pid any) (any, error) { return ss.resolve(pid, false) }}
		root, err := u.load()
		if u.spent > allocBudget(len(b)) {
			t.Fatalf("allocated %d bytes from a stream of %d, past its budget", u.spent, len(b))
		}
		pf := &File{src: source.NewReaderFile("data.pkl", bytes.NewReader(b), int64(len(b)))}
		if err != nil {
			var pe *pickleErr
			if !errors.As(err, &pe) && !errors.Is(err, errNeedMore) {
				t.Fatalf("not a pickle error: %v", err)
			}
			checkLine(t, pf.pickleError("data.pkl", err))
			return
		}
		ss.setIDs(pf.src.Name())
		err = pf.name(root, len(b), len(ss.order), func(st *storage) (int64, int64) {
			return 0, int64(min(satMul(st.numel, st.dtype.BlockBytes()), 1<<62))
		})
		if err != nil {
			checkLine(t, err)
			return
		}
		for _, tt := range pf.tensors {
			if tt.Length < 0 || tt.Offset < 0 {
				t.Fatalf("%s: offset %d, length %d", tt.Name, tt.Offset, tt.Length)
			}
		}
	})
}

// checkLine fails unless err is a FormatError of one line naming the file.
func checkLine(t *testing.T, err error) {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("not a FormatError: %v", err)
	}
	if s := err.Error(); strings.Contains(s, "\n") || !strings.HasPrefix(s, "data.pkl") {
		t.Fatalf("not one line naming the file: %q", s)
	}
}
