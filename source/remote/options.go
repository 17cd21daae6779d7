package remote

import (
	"os"
	"path/filepath"
	"time"
)

// Options tune a remote [FS]. The zero value means the defaults below;
// New fills in every zero field.
type Options struct {
	// Token is sent as "Authorization: Bearer <Token>" to the base URL's
	// origin (scheme, host and port) only, never to a redirect target or
	// any other host. ParseLocation sets it from HF_TOKEN for locations on
	// the Hub endpoint.
	Token string

	// ChunkSize is the unit of fetching and caching, and the size of the
	// first request of every file (which covers a safetensors header of up
	// to ChunkSize-8 bytes). Default 1 MiB; rounded up to 64 KiB.
	ChunkSize int64
	// MaxReadahead caps the readahead that grows while a file is read
	// sequentially. Default 32 MiB; negative disables readahead.
	MaxReadahead int64
	// MemCacheSize bounds the in-memory chunk cache, shared by the files
	// of one FS. Default 64 MiB.
	MemCacheSize int64
	// CacheDir is the on-disk chunk cache. Default [DefaultCacheDir]; if
	// that is "" there is no disk cache (FS.Warnings says so). New refuses
	// a directory that anyone but the user can change.
	CacheDir string
	// CacheSize bounds the on-disk cache, evicting least recently used
	// chunks. Default 2 GiB; negative disables the disk cache.
	CacheSize int64

	// MaxRetries is how many times a failed request is retried (5xx, 429,
	// network errors, short bodies, timeouts). Default 4; negative: none.
	MaxRetries int
	// RetryBase is the first backoff; it doubles per retry up to
	// RetryMax. Defaults 250 ms and 8 s.
	RetryBase, RetryMax time.Duration
	// MaxRetryAfter caps the wait a 429 or 503's Retry-After asks for.
	// Default 10 s.
	MaxRetryAfter time.Duration

	// ConnectTimeout bounds dialing (and a TLS handshake). Default 10 s.
	ConnectTimeout time.Duration
	// ResponseTimeout bounds the wait for a response's headers. Default 30 s.
	ResponseTimeout time.Duration
	// StallTimeout bounds the wait for the next bytes of a body: a body
	// that stalls that long is abandoned (and retried). Default 20 s.
	StallTimeout time.Duration
	// ReadTimeout bounds one fetch with all its retries, so a read of a
	// server that is down fails within it. Default 2 min.
	ReadTimeout time.Duration

	// MaxConnsPerHost bounds the connections to one host. Default 32.
	MaxConnsPerHost int
	// UserAgent is sent with every request. Default "fsmount".
	UserAgent string
}

// Default values of [Options].
const (
	DefaultChunkSize    = 1 << 20
	DefaultMaxReadahead = 32 << 20
	DefaultMemCacheSize = 64 << 20
	DefaultCacheSize    = 2 << 30
)

// DefaultCacheDir is $XDG_CACHE_HOME/fsmount, else ~/.cache/fsmount, else
// $XDG_RUNTIME_DIR/fsmount (a private directory, emptied at logout), else
// "": no disk cache. Never a shared directory such as /tmp/fsmount, whose
// name anyone can take first.
func DefaultCacheDir() string {
	for _, d := range []struct{ env, sub string }{
		{"XDG_CACHE_HOME", "fsmount"},
		{"HOME", ".cache/fsmount"},
		{"XDG_RUNTIME_DIR", "fsmount"},
	} {
		if v := os.Getenv(d.env); filepath.IsAbs(v) {
			return filepath.Join(v, d.sub)
		}
	}
	return ""
}

// WithTimeout returns o bounded by d, as a command line's --timeout asks:
// ReadTimeout is d, so a read that the server does not serve within d,
// retries included, fails; and ConnectTimeout, ResponseTimeout and
// StallTimeout are cut to d where they (or their defaults) are longer.
// A d of zero or less leaves o as it is.
func (o Options) WithTimeout(d time.Duration) Options {
	if d <= 0 {
		return o
	}
	def := Options{}.withDefaults()
	cut := func(v *time.Duration, dv time.Duration) {
		if *v <= 0 {
			*v = dv
		}
		*v = min(*v, d)
	}
	o.ReadTimeout = d
	cut(&o.ConnectTimeout, def.ConnectTimeout)
	cut(&o.ResponseTimeout, def.ResponseTimeout)
	cut(&o.StallTimeout, def.StallTimeout)
	return o
}

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() Options {
	def := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.ChunkSize, DefaultChunkSize)
	const align = 64 << 10
	if o.ChunkSize < align {
		o.ChunkSize = align
	}
	o.ChunkSize = (o.ChunkSize + align - 1) / align * align
	o.ChunkSize = min(o.ChunkSize, 64<<20)
	def(&o.MaxReadahead, DefaultMaxReadahead)
	o.MaxReadahead = min(o.MaxReadahead, 256<<20)
	def(&o.MemCacheSize, DefaultMemCacheSize)
	if o.MemCacheSize < 0 {
		o.MemCacheSize = 0
	}
	def(&o.CacheSize, DefaultCacheSize)
	if o.CacheDir == "" {
		o.CacheDir = DefaultCacheDir()
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = 4
	}
	o.MaxRetries = min(o.MaxRetries, 20)
	defDur(&o.RetryBase, 250*time.Millisecond)
	defDur(&o.RetryMax, 8*time.Second)
	defDur(&o.MaxRetryAfter, 10*time.Second)
	defDur(&o.ConnectTimeout, 10*time.Second)
	defDur(&o.ResponseTimeout, 30*time.Second)
	defDur(&o.StallTimeout, 20*time.Second)
	defDur(&o.ReadTimeout, 2*time.Minute)
	if o.MaxConnsPerHost <= 0 {
		o.MaxConnsPerHost = 32
	}
	if o.UserAgent == "" {
		o.UserAgent = "fsmount"
	}
	return o
}
