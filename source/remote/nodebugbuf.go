//go:build !debugbuf

package remote

// debugBuf is false in a production build: a misuse of a chunk buffer is
// logged once (see misuse). Build with -tags debugbuf to make it panic.
const debugBuf = false
