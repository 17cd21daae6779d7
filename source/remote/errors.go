package remote

import (
	"errors"
	"io/fs"
	"strconv"

	"github.com/fsmount/fsmount/source"
)

// Code is the stable identifier of a failure. Codes never change between
// releases; scripts may match on them.
type Code string

// The error table: every error this package returns is an [*Error] with
// one of these codes.
const (
	CodeBadLocation     Code = "bad_location"      // the URL or hf:// location cannot be used, or redirects to a scheme other than http(s)
	CodeNotFound        Code = "not_found"         // 404 or 410: matches fs.ErrNotExist
	CodeDenied          Code = "denied"            // 401 or 403: missing or refused credentials
	CodeStatus          Code = "bad_status"        // any other status the reader cannot use
	CodeUnavailable     Code = "unavailable"       // 5xx, 429 or a network error, still failing after the retries
	CodeTimeout         Code = "timeout"           // no connection, no response or a stalled body within the time allowed
	CodeRangeIgnored    Code = "range_ignored"     // the server answered a range request with the whole file
	CodeBadContentRange Code = "bad_content_range" // Content-Range missing, malformed or not the range asked for; a Content-Length or Content-Encoding that does not fit it
	CodeShortBody       Code = "short_body"        // the body ended before its length, still after the retries
	CodeChanged         Code = "changed"           // the file on the server is not the one opened (ETag or size)
	CodeTooLarge        Code = "too_large"         // a size beyond what the reader accepts
	CodeClosed          Code = "closed"            // the file was closed
)

// Sentinels, one per code, for errors.Is: an *Error matches the sentinel
// of its own code.
var (
	ErrBadLocation     = &Error{Code: CodeBadLocation}
	ErrNotFound        = &Error{Code: CodeNotFound}
	ErrDenied          = &Error{Code: CodeDenied}
	ErrStatus          = &Error{Code: CodeStatus}
	ErrUnavailable     = &Error{Code: CodeUnavailable}
	ErrTimeout         = &Error{Code: CodeTimeout}
	ErrRangeIgnored    = &Error{Code: CodeRangeIgnored}
	ErrBadContentRange = &Error{Code: CodeBadContentRange}
	ErrShortBody       = &Error{Code: CodeShortBody}
	ErrChanged         = &Error{Code: CodeChanged}
	ErrTooLarge        = &Error{Code: CodeTooLarge}
	ErrClosed          = &Error{Code: CodeClosed}
)

// Error is a failure to read a remote file. URL never carries a password
// or a token.
type Error struct {
	Code   Code
	URL    string // the file's URL (the one opened, not a redirect target)
	Status int    // the HTTP status, when one was received
	Detail string // what happened, with the numbers
	Err    error  // the underlying error, if any
}

func (e *Error) Error() string {
	msg := "remote: " + string(e.Code)
	if e.URL != "" {
		msg = e.URL + ": " + msg
	}
	if e.Status != 0 {
		msg += " (HTTP " + strconv.Itoa(e.Status) + ")"
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes an Error match the sentinel of its code, and a not_found
// error match fs.ErrNotExist.
func (e *Error) Is(target error) bool {
	if target == fs.ErrNotExist {
		return e.Code == CodeNotFound
	}
	if target == source.ErrChanged {
		return e.Code == CodeChanged
	}
	t, ok := target.(*Error)
	return ok && t.URL == "" && t.Code == e.Code
}

// CodeOf returns the code of the first *Error in err's chain, or "".
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// retryable reports whether a fetch that failed with err may succeed when
// tried again.
func retryable(err error) bool {
	switch CodeOf(err) {
	case CodeUnavailable, CodeTimeout, CodeShortBody:
		return true
	}
	return false
}
