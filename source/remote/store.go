package remote

import "net/http"

// Store adapts the reader to a store that speaks HTTP with conventions of
// its own, such as S3 (package source/s3): it signs every request, reads
// the store's error answers, and asks for a version with If-Match. The
// chunks, caches, readahead, retries and timeouts stay this package's.
type Store struct {
	// Name names the FS in messages instead of its base URL (for S3,
	// s3://BUCKET/PREFIX/); a file is named Name followed by its path.
	Name string
	// Sign, if not nil, is called on every request to the base URL's
	// origin just before it is sent (every attempt, and every hop of a
	// redirect to that origin): it adds the store's authentication. A
	// redirect to another origin is followed unsigned. It must not keep
	// the request.
	Sign func(*http.Request) error
	// Explain, if not nil, is given every answer whose status the reader
	// does not take (anything but 200, 206 and 416) with display, the
	// file's name in messages; it may read the body. It returns the error
	// to report, or nil for the reader's own. An [*Error] with a code that
	// is retried (unavailable, timeout) is retried as usual.
	Explain func(resp *http.Response, display string) error
	// IfMatch sends a version's ETag in If-Match rather than If-Range: the
	// store answers 412 for another version, which is a [CodeChanged]
	// error.
	IfMatch bool
}

// NewStore is [New] for a directory of a [Store].
func NewStore(baseURL string, opts Options, st Store) (*FS, error) {
	return newStoreFS(baseURL, opts, st)
}
