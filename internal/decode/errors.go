package decode

import (
	"errors"
	"fmt"

	"github.com/fsmount/fsmount/tensor"
)

// UnsupportedError is a type, or a tensor layout, this package does not
// turn into numbers. Its message starts with "not decoded: ", so that a
// view can print it as the one line of its content.
type UnsupportedError struct {
	DType  tensor.DType
	Reason string
}

func (e *UnsupportedError) Error() string {
	return "not decoded: " + e.DType.String() + ": " + e.Reason
}

// ErrUnsupported is matched (errors.Is) by every *UnsupportedError.
var ErrUnsupported = errors.New("not decoded")

func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

// LengthError is a byte or element count that is not a whole number of
// the type's blocks, or a destination too short for the source.
type LengthError struct {
	DType tensor.DType
	What  string
	Got   uint64
	Want  uint64
}

func (e *LengthError) Error() string {
	return fmt.Sprintf("decode %s: %s: got %d, want %d", e.DType, e.What, e.Got, e.Want)
}

// ShortReadError is a tensor read that returned fewer bytes than asked.
type ShortReadError struct {
	Name   string
	Offset int64 // file offset of the read
	Want   int
	Got    int
	Err    error
}

func (e *ShortReadError) Error() string {
	msg := fmt.Sprintf("%s: read %d bytes at offset %d, got %d", e.Name, e.Want, e.Offset, e.Got)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *ShortReadError) Unwrap() error { return e.Err }

// ShapeError is a scale companion whose shape or block size does not fit
// its weight.
type ShapeError struct {
	Weight, Scale string
	Reason        string
}

func (e *ShapeError) Error() string {
	return "decode " + e.Weight + " with scale " + e.Scale + ": " + e.Reason
}
