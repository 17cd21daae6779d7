//go:build debugbuf

package remote

// debugBuf: built with -tags debugbuf, a misuse of a chunk buffer panics
// (see misuse), as in tests.
const debugBuf = true
