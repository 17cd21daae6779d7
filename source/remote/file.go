package remote

import (
	"io"
	"io/fs"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/source"
)

// File is an open remote file. Its bytes are fetched in aligned chunks
// when read, through the FS's caches; every request after the first
// carries If-Range with the ETag the first one saw (or, from a server that
// sends none, its Last-Modified), and every answer's size, ETag and
// Last-Modified are compared with the first's, so a file replaced on the
// server gives a [CodeChanged] error, never a mix of two versions (see
// [File.Validator]).
// A File is safe for concurrent use.
type File struct {
	fsys    *FS
	url     string // what requests go to first
	display string // the URL in messages, without credentials
	ver     version
	key     string // chunkKey.version
	disk    bool   // whether this file's chunks go to the disk cache
	chunks  int64  // number of chunks
	head    *buf   // the first chunk, pinned while open (nil if over budget)

	mu       sync.Mutex
	dataURL  string // the URL that answered last (a redirect target)
	inflight map[int64]*call
	closed   bool
	lastEnd  int64 // end of the previous read, to detect sequential reads
	streak   int   // sequential reads in a row
	dropped  int64 // chunks below this one left the memory cache (streaming)
}

// call is one fetch of the chunks [first, first+n) in flight; readers
// of those chunks wait for it instead of fetching them again. The chunks
// are published as they arrive, in order, so that a reader of the first
// one need not wait for the whole run.
//
// The call holds a reference to each of its parts until every reader
// registered as waiting for it has had it and no more can register:
// readers register under File.mu while the chunk is in flight, and
// publish takes a chunk that the memory cache keeps out of flight as it
// arrives (one the memory cache refused stays in flight until the call
// ends, for readers that come late). A long run thus holds the chunks its readers have yet to
// take, not all it brought until it ends: arrays go back to the pool as
// a stream goes on, and the pool needs fewer fresh ones.
type call struct {
	first   int64
	n       int64          // grows while the call is being set up, under File.mu
	waiters atomic.Int64   // registered waits not yet done
	want    []atomic.Int32 // registered waits not yet done, per part

	mu       sync.Mutex
	cond     sync.Cond
	parts    []*buf // the chunks, parts[:arrived] final; nil once given back
	arrived  int64
	loose    []bool // the parts out of flight: no reader can register
	ended    bool
	released bool  // the call's references to parts are given back
	err      error // why the chunks from arrived on did not come
}

// newCall returns a call starting at chunk first, of at most max chunks.
func newCall(first, max int64) *call {
	c := &call{first: first, want: make([]atomic.Int32, max), loose: make([]bool, max)}
	c.cond.L = &c.mu
	return c
}

// register records a reader that will wait for chunk i (under File.mu,
// while the chunk is in flight with c).
func (c *call) register(i int64) {
	c.want[i-c.first].Add(1)
	c.waiters.Add(1)
}

// wait returns chunk first+j once it has arrived, with a reference the
// caller must release, or the call's error. Each registered waiter calls
// it exactly once.
func (c *call) wait(j int64) (*buf, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.arrived <= j && !c.ended {
		c.cond.Wait()
	}
	var b *buf
	if c.arrived > j {
		b = c.parts[j].ref()
		if c.want[j].Add(-1) == 0 && c.loose[j] {
			c.dropLocked(j)
		}
	}
	if c.waiters.Add(-1) == 0 && c.ended {
		c.releaseLocked()
	}
	if b == nil {
		return nil, c.err
	}
	return b, nil
}

// dropLocked gives back the call's reference to part j, once.
func (c *call) dropLocked(j int64) {
	if !c.released && c.parts[j] != nil {
		c.parts[j].release()
		c.parts[j] = nil
	}
}

// releaseLocked gives back the call's references to its parts, once.
func (c *call) releaseLocked() {
	if !c.released {
		c.released = true
		releaseAll(c.parts)
	}
}

// A File is not a source.Checker: asking the server costs a request, so
// a change shows as a read error matching source.ErrChanged instead, and
// Revalidate asks explicitly.
var (
	_ source.File    = (*File)(nil)
	_ source.Lender  = (*File)(nil)
	_ source.Trimmer = (*File)(nil)
)

// Trim gives back the chunk arrays its FS keeps for reuse
// (source.Trimmer); those cached or being read stay.
func (f *File) Trim() { f.fsys.bufs.trim() }

// IsRemote reports true: the file's bytes cost requests (source.Remote).
func (f *File) IsRemote() bool { return true }

// Name returns the file's URL.
func (f *File) Name() string { return f.display }

// Size returns the size the server reported when the file was opened.
func (f *File) Size() int64 { return f.ver.size }

// ModTime returns the Last-Modified time of the first response (the zero
// time if the server sent none).
func (f *File) ModTime() time.Time { return f.ver.modTime }

// Mode returns 0444: remote files are read-only.
func (f *File) Mode() fs.FileMode { return 0o444 }

// ETag returns the ETag of the version opened, "" if the server sent none.
func (f *File) ETag() string { return f.ver.etag }

// Validator returns what tells the version opened from a file replaced on
// the server (source.Versioned): "ETag" (a strong one, sent in If-Range,
// or If-Match for a [Store]); "Last-Modified" (the server sent no strong
// ETag; a file replaced within the same second as the one opened, at the
// same size, passes for it); "weak ETag" (the server sent only W/"…":
// RFC 9110 lets a weak ETag go neither in If-Range nor in If-Match for
// ranges, so no request is conditional on it, and it is only compared
// with every answer's: a replaced file is detected when the server gives
// it a new weak ETag, not when it deems the new bytes equivalent and keeps
// the old one); or "" (none of them: a file replaced at the same size
// cannot be detected).
func (f *File) Validator() string {
	switch {
	case f.ver.strongETag() != "":
		return "ETag"
	case f.ver.lastMod != "":
		return "Last-Modified"
	case f.ver.etag != "":
		return "weak ETag"
	}
	return ""
}

// Close releases the pinned first chunk. Reads after Close fail.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	if f.head != nil {
		f.fsys.pinned.Add(-int64(len(f.head.data)))
		f.head.release()
		f.head = nil
	}
	return nil
}

// Revalidate asks the server for the file's first byte and compares the
// answer's ETag, Last-Modified and size with the version opened. It returns nil if they
// match, a [CodeChanged] error if not, and the failure if the server could
// not be asked.
func (f *File) Revalidate() error {
	v := f.ver
	var b [1]byte
	if v.size == 0 {
		// Nothing to ask a range of; probe as Open does.
		v = version{size: -1}
		if _, err := f.fsys.client.fetch(f.display, f.url, 0, spanOf(b[:]), &v, nil); err != nil {
			return err
		}
		if v.size != 0 || v.etag != f.ver.etag || v.lastMod != f.ver.lastMod {
			return &Error{Code: CodeChanged, URL: f.display, Detail: "the file is no longer empty, or has another ETag or Last-Modified"}
		}
		return nil
	}
	_, err := f.fsys.client.fetch(f.display, f.url, 0, spanOf(b[:]), &v, nil)
	return err
}

// ReadAt reads len(p) bytes at off, fetching the chunks it needs that are
// in neither cache with one request per run of missing chunks, and
// starting readahead when reads are sequential.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.display, Err: fs.ErrInvalid}
	}
	if off >= f.ver.size {
		return 0, io.EOF
	}
	end := min(off+int64(len(p)), f.ver.size)
	n := 0
	err := f.each(off, end, func(parts []piece) {
		for _, part := range parts {
			n += copy(p[n:end-off], part.bytes(off+int64(n), end))
			part.buf.release()
		}
	})
	if err != nil {
		return n, err
	}
	if end < off+int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}

// Lend returns the bytes [off, off+n) as slices of the chunks that hold
// them, without copying (source.Lender); they stay intact until release
// is called. A range past the end is cut at it.
func (f *File) Lend(off int64, n int) (pieces [][]byte, release func(), err error) {
	if off < 0 || n < 0 {
		return nil, nil, &fs.PathError{Op: "read", Path: f.display, Err: fs.ErrInvalid}
	}
	end := min(off+int64(n), f.ver.size)
	if off >= end {
		return nil, func() {}, nil
	}
	var held []*buf
	err = f.each(off, end, func(parts []piece) {
		for _, part := range parts {
			pieces = append(pieces, part.bytes(off, end))
			held = append(held, part.buf)
		}
	})
	if err != nil {
		releaseAll(held) // what earlier runs of chunks brought
		return nil, nil, err
	}
	var once sync.Once
	return pieces, func() { once.Do(func() { releaseAll(held) }) }, nil
}

// each hands use the chunks of [off, end), at most maxRun at a time (so
// that a huge read never means a huge request buffer on top of it), each
// with a reference use must release; it starts readahead when reads are
// sequential.
func (f *File) each(off, end int64, use func([]piece)) error {
	cs := f.fsys.opts.ChunkSize
	ra := f.readahead(off, end)
	for pos := off; pos < end; {
		stop := min(end, (pos/cs+f.fsys.maxRun)*cs)
		extra := int64(0)
		if stop == end {
			extra = ra
		}
		parts, err := f.chunksFor(pos/cs, (stop-1)/cs, extra)
		if err != nil {
			return err
		}
		use(parts)
		pos = stop
	}
	return nil
}

// readahead records a read of [off, end) and returns how many chunks to
// fetch beyond it: none for the first two reads in a row (a header's
// length prefix and its JSON), then one chunk, doubling per sequential
// read up to MaxReadahead.
func (f *File) readahead(off, end int64) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if off == f.lastEnd {
		f.streak = min(f.streak+1, 64)
	} else {
		f.streak = 1
	}
	f.lastEnd = end
	if f.streak >= 3 {
		f.dropBehind(off)
	}
	if f.streak < 3 || f.fsys.opts.MaxReadahead <= 0 {
		return 0
	}
	cs := f.fsys.opts.ChunkSize
	bytes := min(cs<<min(f.streak-3, 20), f.fsys.opts.MaxReadahead)
	return (bytes + cs - 1) / cs
}

// streamLag is how many chunks behind a sequential reader stay in the
// memory cache, for the kernel's reads that arrive out of order.
const streamLag = 8

// dropBehind takes the chunks a sequential reader at off has left
// streamLag chunks behind out of the memory cache: the kernel keeps what
// it read in its page cache (and the disk cache has it), so holding it
// too only makes the daemon's heap, and the fresh pages it faults in
// while a tensor streams, larger.
func (f *File) dropBehind(off int64) {
	upto := off/f.fsys.opts.ChunkSize - streamLag
	for i := max(f.dropped, 1); i < upto; i++ { // chunk 0 holds the header
		f.fsys.mem.remove(chunkKey{f.key, i})
	}
	f.dropped = max(f.dropped, upto)
}

// piece is one chunk's bytes, referenced, and the file offset they start
// at.
type piece struct {
	off int64
	buf *buf
}

// bytes returns the piece's part of the file's bytes [from, to).
func (p piece) bytes(from, to int64) []byte {
	lo := max(from-p.off, 0)
	data := p.buf.bytes()
	hi := min(to-p.off, int64(len(data)))
	return data[lo:hi]
}

// chunksFor returns chunks first..last, fetching what is missing, each
// with a reference the caller must release; the extra chunks after last
// are the readahead window, whose missing chunks are fetched ahead: in the
// same request as the read's own last chunks where it fetches those, else
// in background requests of [File.aheadUnit] chunks.
//
// The window slides with the reader: every read looks over the whole of
// it, past the chunks cached or in flight, so that requests stay in
// flight while the reader consumes what earlier ones brought, rather than
// the next one starting only once the reader has caught up with the last.
// Background requests cover whole units, aligned to unit boundaries, and
// a unit is asked for once the window covers all of it: a reader does not
// pull one small request per read behind it, and a store that keeps an
// object in parts (SeaweedFS in 4 MiB chunks, S3 in the parts of its
// upload) serves aligned ranges with less work: reading a 300 MiB tensor
// in 16 MiB requests aligned to 16 MiB cost SeaweedFS about a third less
// CPU than in the same requests 1 MiB off.
func (f *File) chunksFor(first, last, extra int64) ([]piece, error) {
	cs := f.fsys.opts.ChunkSize
	parts := make([]piece, last-first+1)
	from := make([]*call, last-first+1) // the call each missing chunk comes with
	var mine []*call                    // calls this read starts
	var ahead []*call                   // readahead left to the background

	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, &Error{Code: CodeClosed, URL: f.display}
	}
	var run *call
	runAhead := false // whether run is a background one
	limit := min(last+extra, f.chunks-1)
	unit := f.aheadUnit(extra)
scan:
	for i := first; i <= limit; i++ {
		wanted := i <= last
		if wanted {
			if b := f.cached(i); b != nil {
				parts[i-first] = piece{i * cs, b}
				run = nil
				continue
			}
		} else if f.isCached(i) {
			run = nil
			continue
		}
		if c := f.inflight[i]; c != nil {
			if !wanted {
				// Readahead in flight: look past it, so that the next
				// run is fetched while this one arrives.
				run = nil
				i = c.first + c.n - 1
				continue
			}
			from[i-first] = c
			c.register(i)
			run = nil
			continue
		}
		switch {
		case wanted && (run == nil || run.n >= f.fsys.maxRun):
			run, runAhead = newCall(i, f.fsys.maxRun), false
			mine = append(mine, run)
		case !wanted && run != nil && !runAhead && run.n < f.fsys.maxRun && i%unit != 0:
			// Readahead extends this read's last request, up to the
			// next unit boundary.
		case !wanted && (run == nil || run.n >= f.fsys.maxRun || i%unit == 0):
			// A new background request, for the rest of this unit,
			// once the window covers it.
			if min((i/unit+1)*unit, f.chunks)-1 > limit {
				break scan
			}
			select {
			case f.fsys.background <- struct{}{}:
			default:
				break scan
			}
			run, runAhead = newCall(i, f.fsys.maxRun), true
			ahead = append(ahead, run)
		}
		run.n++
		f.inflight[i] = run
		if wanted {
			from[i-first] = run
			run.register(i)
		}
	}
	f.mu.Unlock()

	for _, c := range ahead {
		par.Go(func() {
			defer func() { <-f.fsys.background }()
			f.fill(c)
		})
	}
	// This read's own requests run beside it too: it waits only for the
	// chunks it wants, not for the readahead that extends them.
	for _, c := range mine {
		par.Go(func() { f.fill(c) })
	}
	var err error
	for j, c := range from {
		if c == nil {
			continue
		}
		i := first + int64(j)
		b, cerr := c.wait(i - c.first)
		if cerr != nil {
			if err == nil {
				err = cerr
			}
			continue
		}
		parts[j] = piece{i * cs, b}
	}
	if err != nil {
		for _, p := range parts {
			if p.buf != nil {
				p.buf.release()
			}
		}
		return nil, err
	}
	return parts, nil
}

// aheadUnit is the chunks of one background readahead request for a
// window of extra chunks: half the window, within [1, maxRun]. Background
// requests are aligned to it.
func (f *File) aheadUnit(extra int64) int64 {
	return max(1, min(extra/2, f.fsys.maxRun))
}

// cached returns chunk i from the pinned head or the memory cache, with a
// reference the caller must release, or nil.
func (f *File) cached(i int64) *buf {
	if i == 0 && f.head != nil {
		return f.head.ref()
	}
	return f.fsys.mem.get(chunkKey{f.key, i})
}

// isCached reports whether cached(i) would find chunk i.
func (f *File) isCached(i int64) bool {
	return i == 0 && f.head != nil || f.fsys.mem.has(chunkKey{f.key, i})
}

// chunkLen is the length of chunk i (the last one may be short).
func (f *File) chunkLen(i int64) int64 {
	cs := f.fsys.opts.ChunkSize
	return min(cs, f.ver.size-i*cs)
}

// fill fetches the chunks of c: from the disk cache where it has them,
// else with one request per run still missing, into an array per chunk,
// publishing each as it arrives. A file without a validator for If-Range
// (a strong ETag or Last-Modified) publishes a run only once it is whole:
// a retry of it starts over, rewriting the run's arrays, which readers
// must not be reading.
func (f *File) fill(c *call) {
	cs := f.fsys.opts.ChunkSize
	parts := make([]*buf, c.n)
	c.mu.Lock()
	c.parts = parts
	c.mu.Unlock()
	progressive := f.ver.validator() != ""
	var err error
	for j := int64(0); j < c.n && err == nil; {
		i := c.first + j
		if f.disk && f.fsys.disk.has(chunkKey{f.key, i}) {
			b := f.fsys.bufs.get(f.chunkLen(i))
			if f.fsys.disk.get(chunkKey{f.key, i}, cs, b.data) {
				parts[j] = b
				f.publish(c, j+1, false)
				j++
				continue
			}
			b.release()
		}
		// A run of chunks missing from disk.
		k := j + 1
		for ; k < c.n && !(f.disk && f.fsys.disk.has(chunkKey{f.key, c.first + k})); k++ {
		}
		// Each chunk's array is taken from the pool when its bytes
		// arrive (see span), so that a long run holds arrays only for
		// what has arrived.
		sizes := make([]int, k-j)
		for m := j; m < k; m++ {
			sizes[m-j] = int(f.chunkLen(c.first + m))
		}
		base := j
		run := lazySpan(sizes, func(m int) []byte {
			parts[base+int64(m)] = f.fsys.bufs.get(int64(sizes[m]))
			return parts[base+int64(m)].data
		})
		var progress func(n int)
		if progressive {
			base := j
			progress = func(n int) { f.publish(c, base+int64(n)/cs, f.disk) }
		}
		err = f.fetch(i*cs, run, progress)
		if err == nil {
			f.publish(c, k, f.disk)
		}
		j = k
	}
	f.finish(c, err)
}

// publish makes c's chunks up to (not including) upto available: to its
// waiters, the memory cache and, if toDisk, the disk cache; and takes
// those the memory cache keeps out of flight, giving back the call's
// reference to each that no registered reader waits for.
//
// The caches get the chunks before the waiters do, so that a reader who
// has its bytes finds them cached, and a flush of the disk cache after a
// read waits for them (putting is quick: the disk cache only queues).
func (f *File) publish(c *call, upto int64, toDisk bool) {
	c.mu.Lock()
	from := c.arrived
	c.mu.Unlock()
	if upto <= from {
		return
	}
	kept := make([]bool, upto-from)
	for j := from; j < upto; j++ {
		k := chunkKey{f.key, c.first + j}
		kept[j-from] = f.fsys.mem.put(k, c.parts[j])
		if toDisk {
			f.fsys.disk.put(k, f.fsys.opts.ChunkSize, c.parts[j])
		}
	}
	// Out of flight: a reader that wants one of them now finds it in
	// the memory cache, or fetches it again if that dropped it.
	f.mu.Lock()
	for j := from; j < upto; j++ {
		if kept[j-from] && f.inflight[c.first+j] == c {
			delete(f.inflight, c.first+j)
		}
	}
	f.mu.Unlock()
	c.mu.Lock()
	c.arrived = upto
	for j := from; j < upto; j++ {
		if kept[j-from] {
			c.loose[j] = true
			if c.want[j].Load() == 0 {
				c.dropLocked(j)
			}
		}
	}
	c.cond.Broadcast()
	c.mu.Unlock()
}

// finish ends c, with err for the chunks that did not arrive, and forgets
// it as in flight.
func (f *File) finish(c *call, err error) {
	f.mu.Lock()
	for j := range c.n {
		if f.inflight[c.first+j] == c {
			delete(f.inflight, c.first+j)
		}
	}
	f.mu.Unlock()
	c.mu.Lock()
	c.ended, c.err = true, err
	c.cond.Broadcast()
	if c.waiters.Load() == 0 {
		c.releaseLocked()
	}
	c.mu.Unlock()
}

// fetch reads [off, off+buf.len()) from the server: from the URL that
// answered last (a redirect target, to skip the redirect), falling back
// to the file's own URL once if that one is refused (a signed URL that
// expired).
func (f *File) fetch(off int64, buf span, progress func(n int)) error {
	f.mu.Lock()
	u := f.dataURL
	f.mu.Unlock()
	v := f.ver
	// done is how much of buf progress has published: those bytes are
	// being read and must not be written again, so a fallback resumes
	// after them.
	done := 0
	tell := func(base int) func(int) {
		if progress == nil {
			return nil
		}
		return func(n int) {
			done = base + n
			progress(done)
		}
	}
	res, err := f.fsys.client.fetch(f.display, u, off, buf, &v, tell(0))
	if err != nil && u != f.url {
		switch CodeOf(err) {
		case CodeNotFound, CodeDenied, CodeStatus:
			base := done
			res, err = f.fsys.client.fetch(f.display, f.url, off+int64(base), buf.slice(base, buf.len()), &v, tell(base))
			res.n += base
		}
	}
	if err != nil {
		return err
	}
	if res.n != buf.len() {
		return &Error{Code: CodeShortBody, URL: f.display,
			Detail: "got " + strconv.Itoa(res.n) + " of " + strconv.Itoa(buf.len()) + " bytes"}
	}
	f.mu.Lock()
	f.dataURL = res.finalURL
	f.mu.Unlock()
	return nil
}
