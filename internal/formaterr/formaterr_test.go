package formaterr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fsmount/fsmount/internal/formaterr"
)

type code string

func (c code) Error() string { return string(c) }

type other string

func (c other) Error() string { return string(c) }

var errFormat = errors.New("not valid")

type formatError struct{ c code }

func (e *formatError) Error() string        { return string(e.c) }
func (e *formatError) Is(target error) bool { return formaterr.Is(target, errFormat, e.c) }

func TestIs(t *testing.T) {
	err := fmt.Errorf("opening: %w", &formatError{"bad_magic"})
	assert.ErrorIs(t, err, errFormat)
	assert.ErrorIs(t, err, code("bad_magic"))
	assert.NotErrorIs(t, err, code("truncated"))
	assert.NotErrorIs(t, err, other("bad_magic"), "a code of another package")
	assert.NotErrorIs(t, err, errors.New("not valid"))
}

func TestJoin(t *testing.T) {
	for _, tt := range []struct {
		parts []string
		want  string
	}{
		{[]string{"a.gguf", "bad_magic (not a GGUF file)", "", "found \"GGML\""}, `a.gguf: bad_magic (not a GGUF file): found "GGML"`},
		{[]string{"", "truncated", "blk.0", ""}, "truncated: blk.0"},
		{[]string{"", ""}, ""},
		{nil, ""},
	} {
		assert.Equal(t, tt.want, formaterr.Join(tt.parts...))
	}
}
