package remote

import (
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/fsmount/fsmount/source"
)

// FS is a directory on an HTTP(S) server: its files are read with range
// requests under one base URL. It cannot list (web servers do not); a
// model's file names come from its index. An FS is safe for concurrent use.
type FS struct {
	base    *url.URL // ends in "/"
	display string
	opts    Options
	client  *client
	mem     *memCache
	disk    *diskCache // nil without a disk cache
	bufs    *bufPool   // the arrays of full-size chunks
	maxRun  int64      // chunks per request at most

	pinned     atomic.Int64  // bytes of first chunks pinned by open files
	background chan struct{} // slots for background readahead requests
	warnings   []string
	store      Store // the conventions of a store (NewStore)
}

var (
	_ source.FS     = (*FS)(nil)
	_ source.Warner = (*FS)(nil)
)

// pinBudget bounds the first chunks that open files keep in memory, so
// that opening many shards and then reading their headers needs no second
// request even when the memory cache is small.
const pinBudget = 256 << 20

// New returns the FS of the directory at baseURL (http or https; a
// missing final slash is added). Opening it sends no request.
func New(baseURL string, opts Options) (*FS, error) {
	return newStoreFS(baseURL, opts, Store{})
}

func newStoreFS(baseURL string, opts Options, st Store) (*FS, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{Code: CodeBadLocation, URL: redact(baseURL),
			Detail: "not an http:// or https:// URL with a host"}
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, &Error{Code: CodeBadLocation, URL: u.Redacted(), Detail: "a directory URL cannot have a query or fragment"}
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	named := opts.CacheDir != ""
	opts = opts.withDefaults()
	f := &FS{
		base:       u,
		display:    u.Redacted(),
		opts:       opts,
		client:     newClient(opts, originOf(u), st),
		mem:        newMemCache(opts.MemCacheSize),
		bufs:       newBufPool(opts.ChunkSize),
		maxRun:     max(16<<20/opts.ChunkSize, 1),
		background: make(chan struct{}, 4),
		store:      st,
	}
	if st.Name != "" {
		f.display = st.Name
	}
	if opts.CacheSize > 0 && opts.CacheDir == "" {
		f.warnings = append(f.warnings, "no disk cache: none of XDG_CACHE_HOME, HOME and XDG_RUNTIME_DIR is set, so chunks are kept in memory only (--cache-dir DIR names one)")
	} else if opts.CacheSize > 0 {
		f.disk, err = openDiskCache(opts.CacheDir, opts.CacheSize)
		if err != nil && !named {
			// The default, which the user did not choose (a system user's
			// HOME such as /nonexistent, a directory another user took
			// first): no disk cache, and the report says why.
			f.warnings = append(f.warnings, fmt.Sprintf("no disk cache: the default directory %s cannot be used (%v), so chunks are kept in memory only (--cache-dir DIR names one)", opts.CacheDir, err))
		} else if err != nil {
			return nil, &Error{Code: CodeBadLocation, URL: f.display, Detail: err.Error() + " (--cache-dir names another, --cache-size 0 turns it off)"}
		}
	}
	return f, nil
}

// Warnings returns what a report should say about how the FS reads
// (source.Warner): that it has no disk cache where no directory for one
// was found.
func (f *FS) Warnings() []string { return f.warnings }

// String returns the base URL, without credentials.
func (f *FS) String() string { return f.display }

// List returns source.ErrNotListable.
func (f *FS) List() ([]string, error) { return nil, source.ErrNotListable }

// Close closes idle connections. Open files keep working.
func (f *FS) Close() error {
	if f.disk != nil {
		f.disk.flush()
	}
	f.bufs.trim()
	f.client.tr.CloseIdleConnections()
	return nil
}

// URL returns the URL of the named file.
func (f *FS) URL(name string) string {
	return f.fileURL(name).String()
}

func (f *FS) fileURL(name string) *url.URL {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := *f.base
	u.Path = f.base.Path + name
	u.RawPath = f.base.EscapedPath() + strings.Join(segs, "/")
	return &u
}

// Open opens the named file (a slash-separated path under the base URL)
// with one request: a ranged GET of its first chunk, whose answer gives
// the size (from Content-Range), the ETag and Last-Modified, and whose
// bytes are kept (the length prefix and usually the whole header of a
// safetensors file). A missing file gives an error matching
// fs.ErrNotExist.
func (f *FS) Open(name string) (source.File, error) {
	file, err := f.OpenFile(name)
	if err != nil {
		return nil, err
	}
	return file, nil
}

// OpenFile is [FS.Open] returning the concrete type.
func (f *FS) OpenFile(name string) (*File, error) {
	if !fs.ValidPath(name) || name == "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	u := f.fileURL(name)
	file := &File{
		fsys:     f,
		url:      u.String(),
		display:  f.nameOf(u, name),
		inflight: map[int64]*call{},
		ver:      version{size: -1},
	}
	// The first chunk lands in one of the pool's arrays: a fresh
	// mebibyte per file, zeroed by the runtime, was most of the CPU a
	// header-only check of many shards spent.
	first := f.bufs.get(f.opts.ChunkSize)
	res, err := f.client.fetch(file.display, file.url, 0, spanOf(first.data), &file.ver, nil)
	if err != nil {
		first.release()
		return nil, err
	}
	if res.n != int(min(file.ver.size, f.opts.ChunkSize)) {
		first.release()
		return nil, &Error{Code: CodeShortBody, URL: file.display, Detail: "first chunk cut short"}
	}
	file.dataURL = res.finalURL
	cs := f.opts.ChunkSize
	file.chunks = (file.ver.size + cs - 1) / cs
	file.key = versionOf(file.url, file.ver.etag, file.ver.size, cs)
	// Without a strong ETag nothing tells a later process that the file
	// on the server still has these bytes (a weak one promises only an
	// equivalent file; RFC 9111 3.4 combines parts of a file only under a
	// strong validator): keep such files out of the disk cache.
	file.disk = f.disk != nil && file.ver.strongETag() != ""
	head := first
	if res.n < len(first.data) {
		// A file shorter than a chunk: its bytes alone, not the array.
		head = newBuf(append([]byte(nil), first.data[:res.n]...))
		first.release()
	}
	if file.ver.size > 0 {
		if f.pinned.Add(int64(len(head.data))) <= pinBudget {
			file.head = head.ref()
		} else {
			f.pinned.Add(-int64(len(head.data)))
		}
		// Not to the disk cache: every process that opens the file gets
		// its first chunk with the open's request.
		f.mem.put(chunkKey{file.key, 0}, head)
	}
	head.release()
	return file, nil
}

// nameOf names the file at u, name under the base, in messages.
func (f *FS) nameOf(u *url.URL, name string) string {
	if f.store.Name != "" {
		return f.store.Name + name
	}
	return u.Redacted()
}

// redact hides the password of a URL that may not parse.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	if i := strings.Index(raw, "@"); i >= 0 {
		return "…" + raw[i:]
	}
	return raw
}
