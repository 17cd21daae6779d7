package source_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fsmount/fsmount/source"
)

// closeFile is a File that counts its Close calls and returns err.
type closeFile struct {
	source.File
	closed int
	err    error
}

func (f *closeFile) Close() error { f.closed++; return f.err }

func TestCloseAll(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	for _, tt := range []struct {
		name string
		errs []error // one file each; the first is f
		nilF bool    // f is nil
		want error
	}{
		{"one file", []error{nil}, false, nil},
		{"nil first", []error{nil, nil}, true, nil},
		{"error of f", []error{first, second}, false, first},
		{"error of a later one", []error{nil, nil, second}, false, second},
		{"first error of several", []error{nil, first, second}, true, first},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := make([]*closeFile, len(tt.errs))
			rest := make([]source.File, 0, len(tt.errs))
			for i, err := range tt.errs {
				files[i] = &closeFile{File: source.NewReaderFile("f", strings.NewReader(""), 0), err: err}
				rest = append(rest, files[i])
			}
			var f source.File = rest[0]
			if tt.nilF {
				f = nil
			}
			err := source.CloseAll(f, rest[1:]...)
			if tt.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.want)
			}
			for i, c := range files {
				want := 1
				if i == 0 && tt.nilF {
					want = 0
				}
				assert.Equal(t, want, c.closed, "file %d", i)
			}
		})
	}
}
