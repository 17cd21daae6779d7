package remote

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/lru"
	"github.com/fsmount/fsmount/internal/par"
)

// diskCache keeps the chunks of each version of a file in two files of
// its directory: <version>.data, a sparse file holding chunk i at
// i·chunk size, and <version>.index, a header (indexMagic and the chunk
// size) followed by one record per chunk: the CRC-32C of its bytes and
// its length plus one (0: not cached). It evicts the least recently used
// chunks, punching their holes, to stay within its limit. Writing a
// chunk is a write into a file that exists, not a new file per chunk: a
// new inode per MiB made a first read of a remote tensor spend a quarter
// of its time in the filesystem's inode allocation.
//
// The cache trusts its directory only if nobody but the user can change
// it (see [privateDir]), and each of its files only if it is a regular
// file of the user's, opened without following a symlink (see
// [openPrivate]): a chunk's name and checksum are no secret, anyone can
// compute them, so a chunk is only as good as the hands it passed through.
//
// One diskCache serves each directory per process (see [openDiskCache]);
// recency survives the process as the index files' modification times,
// touched on use. Other processes sharing the directory are tolerated (a
// chunk is written before its record, a record that does not match its
// bytes is a miss) but may make it overshoot until it is next opened.
type diskCache struct {
	dir   string
	limit int64

	// Writes go through a bounded queue to one writer, so that reading
	// never waits for the disk; a chunk that finds the queue full is not
	// cached.
	queueOnce sync.Once
	queue     chan pendingChunk
	pending   sync.WaitGroup

	mu       sync.Mutex
	size     int64
	lru      lru.Cache[chunkKey, diskEntry] // no bound: evictLocked evicts
	versions map[string]*diskVersion
}

// diskEntry is one cached chunk.
type diskEntry struct {
	chunk int64 // the version's chunk size
	n     int64 // the chunk's length
}

// diskVersion is the files of one version.
type diskVersion struct {
	chunk       int64
	data, index *os.File // nil until used by this process
	// direct is the data file opened again with O_DIRECT, for writing
	// whole aligned chunks (see [diskCache.writeRun]); nil where the
	// filesystem refuses it.
	direct  *os.File
	entries int
	touched time.Time
}

const (
	indexMagic  = "fsmount-chunks-1"
	indexHeader = len(indexMagic) + 8
	recordSize  = 8
	// versionCost is what a version's files cost besides its chunks: the
	// index, counted as a block.
	versionCost = 4 << 10
	// maxIndex bounds an index file read at start (a million chunks).
	maxIndex = indexHeader + recordSize<<20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var (
	diskCachesMu sync.Mutex
	diskCaches   = map[string]*diskCache{}
)

// openDiskCache returns the process's cache for dir, creating dir and
// indexing what it holds (the least recently used versions first) on
// first use. A later call with another limit lowers or raises the bound.
// A directory that others can change is refused (see [privateDir]).
func openDiskCache(dir string, limit int64) (*diskCache, error) {
	dir, err := privateDir(dir)
	if err != nil {
		return nil, err
	}
	diskCachesMu.Lock()
	defer diskCachesMu.Unlock()
	if c, ok := diskCaches[dir]; ok {
		c.mu.Lock()
		c.limit = limit
		c.evictLocked()
		c.mu.Unlock()
		return c, nil
	}
	c := &diskCache{dir: dir, limit: limit, versions: map[string]*diskVersion{}}
	c.load()
	c.evictLocked()
	diskCaches[dir] = c
	return c, nil
}

// load indexes the versions in the directory, oldest first: the pairs of
// files whose index starts with indexMagic, which only this cache writes.
// Nothing else is touched, whatever its name: not an index without the
// magic, nor a directory named like a version (an older release kept a
// directory per version, but so might anyone's files in a directory
// named with --cache-dir), so that a cache pointed at the wrong
// directory loses nobody's files.
func (c *diskCache) load() {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type found struct {
		version string
		mtime   time.Time
	}
	var vs []found
	for _, e := range ents {
		version, ok := strings.CutSuffix(e.Name(), ".index")
		if !ok || !isVersion(version) || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil {
			vs = append(vs, found{version, info.ModTime()})
		}
	}
	slices.SortFunc(vs, func(a, b found) int { return a.mtime.Compare(b.mtime) })
	for _, f := range vs {
		c.loadVersion(f.version, f.mtime)
	}
	tagCacheDir(c.dir)
}

// cacheTag is the CACHEDIR.TAG the cache directory gets (the Cache
// Directory Tagging convention: backup tools skip the directory).
const cacheTag = "Signature: 8a477f597d28d172789f06886806bc55\n" +
	"# This file is a cache directory tag created by fsmount: its remote chunk cache.\n" +
	"# fsmount removes only the files it created here (VERSION.index and VERSION.data).\n"

// tagCacheDir writes CACHEDIR.TAG into dir unless it has one. Failing is
// harmless: the tag is only for backup tools.
func tagCacheDir(dir string) {
	f, err := openPrivate(filepath.Join(dir, "CACHEDIR.TAG"), os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return
	}
	f.WriteString(cacheTag)
	f.Close()
}

// privateDir creates dir (and its missing parents) with mode 0700 and
// returns it absolute, with symlinks resolved, if nobody but the user (and
// root) can change what it holds, as ssh and gocryptfs check their files:
// the directory must be the user's and not writable by group or others;
// every directory above it, as named and as resolved, and every symlink on
// the way, must be the user's or root's, and a directory others may write
// must be sticky (as /tmp is: nobody can rename or remove another's
// entry). Else another local user could plant chunks, or symlinks to
// files the cache would then write.
func privateDir(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	// The missing ones are made with mode 0700, one by one, once what
	// holds them has passed the checks; then all of it is checked.
	var missing []string
	for p := dir; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) || p == filepath.Dir(p) {
			break
		}
		missing = append(missing, p)
	}
	if len(missing) > 0 {
		if _, err := checkPrivate(dir, filepath.Dir(missing[len(missing)-1]), false); err != nil {
			return "", err
		}
		for i := len(missing) - 1; i >= 0; i-- {
			if err := os.Mkdir(missing[i], 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", err
			}
		}
	}
	return checkPrivate(dir, dir, true)
}

// checkPrivate checks path, the cache directory dir or (final false) a
// directory above it, and every directory and symlink above it as named
// and as resolved, by the rules of [privateDir], and returns path
// resolved.
func checkPrivate(dir, path string, final bool) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	uid := uint32(os.Geteuid())
	for _, chain := range []string{path, real} {
		for p := chain; ; p = filepath.Dir(p) {
			var st unix.Stat_t
			if err := unix.Lstat(p, &st); err != nil {
				return "", &fs.PathError{Op: "lstat", Path: p, Err: err}
			}
			kind, perm := st.Mode&unix.S_IFMT, st.Mode&0o7777
			self := final && p == real
			switch {
			case self && kind != unix.S_IFDIR:
				return "", fmt.Errorf("cache directory %s is not a directory", real)
			case self && st.Uid != uid:
				return "", fmt.Errorf("cache directory %s is owned by uid %d, not by you (uid %d)", real, st.Uid, uid)
			case self && perm&0o022 != 0:
				return "", fmt.Errorf("cache directory %s is writable by group or others (mode %04o)", real, perm)
			case st.Uid != uid && st.Uid != 0:
				return "", fmt.Errorf("cache directory %s: %s is owned by uid %d, neither you (uid %d) nor root", dir, p, st.Uid, uid)
			case kind == unix.S_IFDIR && perm&0o022 != 0 && perm&unix.S_ISVTX == 0:
				return "", fmt.Errorf("cache directory %s: %s is writable by group or others and not sticky (mode %04o)", dir, p, perm)
			}
			if p == filepath.Dir(p) {
				break
			}
		}
	}
	return real, nil
}

// errUntrusted is a cache file that is not a regular file of the user's.
var errUntrusted = errors.New("not a regular file of the user's")

// openPrivate opens a file of the cache without following a symlink (nor
// blocking on a FIFO), and refuses anything but a regular file the user
// owns, with one link and not writable by group or others (errUntrusted).
func openPrivate(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
	if errors.Is(err, unix.ELOOP) {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errUntrusted}
	}
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Uid != uint32(os.Geteuid()) || st.Nlink != 1 || st.Mode&0o022 != 0 {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: errUntrusted}
	}
	return f, nil
}

// loadVersion indexes the chunks one index file records. An index that
// is not one of the cache's (no indexMagic: not provably written by it)
// is left alone and not used; one of the cache's without a chunk left
// loses its files.
func (c *diskCache) loadVersion(version string, mtime time.Time) {
	b, err := readIndex(filepath.Join(c.dir, version+".index"))
	if err != nil {
		return
	}
	chunk := int64(binary.LittleEndian.Uint64(b[len(indexMagic):indexHeader]))
	v := &diskVersion{chunk: chunk, touched: mtime}
	c.versions[version] = v
	c.size += versionCost
	for i := 0; indexHeader+(i+1)*recordSize <= len(b); i++ {
		rec := b[indexHeader+i*recordSize:]
		n := int64(binary.LittleEndian.Uint32(rec[4:8]))
		if n == 0 || n-1 > chunk {
			continue
		}
		k := chunkKey{version, int64(i)}
		c.lru.Add(k, diskEntry{chunk: chunk, n: n - 1})
		c.size += n - 1
		v.entries++
	}
	if v.entries == 0 {
		c.dropVersionLocked(version)
	}
}

// readIndex reads an index file, checking its header and bound.
func readIndex(path string) ([]byte, error) {
	f, err := openPrivate(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(maxIndex)+1))
	switch {
	case err != nil:
		return nil, err
	case len(b) < indexHeader || len(b) > maxIndex || string(b[:len(indexMagic)]) != indexMagic:
		return nil, errors.New("not an index")
	}
	if chunk := binary.LittleEndian.Uint64(b[len(indexMagic):indexHeader]); chunk == 0 || chunk > 1<<30 {
		return nil, errors.New("not an index")
	}
	return b, nil
}

// isVersion is whether name is a version's hash (see versionOf).
func isVersion(name string) bool {
	if len(name) != 32 {
		return false
	}
	for _, r := range name {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// open returns v's files, opening (and, if create, making) them.
func (c *diskCache) openLocked(version string, chunk int64, create bool) (*diskVersion, error) {
	v := c.versions[version]
	if v != nil && v.data != nil {
		return v, nil
	}
	if v != nil && v.chunk != chunk {
		return nil, errors.New("chunk size differs")
	}
	flag := os.O_RDWR
	if create {
		flag |= os.O_CREATE
	}
	base := filepath.Join(c.dir, version)
	open := func() (data, index *os.File, err error) {
		if data, err = openPrivate(base+".data", flag); err != nil {
			return nil, nil, err
		}
		if index, err = openPrivate(base+".index", flag); err != nil {
			data.Close()
			return nil, nil, err
		}
		return data, index, nil
	}
	data, index, err := open()
	if errors.Is(err, errUntrusted) {
		// Not the user's (a symlink, another user's file): forgotten
		// and removed unread, and made anew if asked to.
		c.forgetVersionLocked(version)
		v = nil
		if create {
			data, index, err = open()
		}
	}
	if err != nil {
		return nil, err
	}
	var hdr [indexHeader]byte
	copy(hdr[:], indexMagic)
	binary.LittleEndian.PutUint64(hdr[len(indexMagic):], uint64(chunk))
	var got [indexHeader]byte
	if n, _ := index.ReadAt(got[:], 0); n == 0 {
		_, err = index.WriteAt(hdr[:], 0)
	} else if got != hdr {
		err = errors.New("index of another chunk size")
	}
	if err != nil {
		data.Close()
		index.Close()
		return nil, err
	}
	if v == nil {
		v = &diskVersion{chunk: chunk, touched: time.Now()}
		c.versions[version] = v
		c.size += versionCost
	}
	v.data, v.index = data, index
	if direct, err := openPrivate(base+".data", os.O_WRONLY|unix.O_DIRECT); err == nil {
		v.direct = direct
	}
	return v, nil
}

// get reads chunk k (of a version of chunk size chunk) into buf and
// reports whether it is cached with len(buf) bytes and an intact checksum.
func (c *diskCache) get(k chunkKey, chunk int64, buf []byte) bool {
	c.mu.Lock()
	_, ok := c.lru.Get(k)
	var v *diskVersion
	if ok {
		var err error
		if v, err = c.openLocked(k.version, chunk, false); err != nil {
			c.removeLocked(k)
			ok = false
		}
	}
	touch := ok && time.Since(v.touched) > time.Second
	if touch {
		v.touched = time.Now()
	}
	c.mu.Unlock()
	if !ok {
		return false
	}
	want := int64(len(buf))
	var rec [recordSize]byte
	_, err := v.data.ReadAt(buf, k.index*chunk)
	if err == nil {
		_, err = v.index.ReadAt(rec[:], int64(indexHeader)+k.index*recordSize)
	}
	if err != nil || int64(binary.LittleEndian.Uint32(rec[4:])) != want+1 ||
		crc32.Checksum(buf, castagnoli) != binary.LittleEndian.Uint32(rec[:4]) {
		c.remove(k)
		return false
	}
	if touch {
		// The modification time is the recency a later process orders by.
		unix.Futimes(int(v.index.Fd()), nil)
	}
	return true
}

// has reports whether the chunk is indexed (it may still turn out to be
// missing or corrupt when read).
func (c *diskCache) has(k chunkKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Contains(k)
}

type pendingChunk struct {
	k     chunkKey
	chunk int64
	buf   *buf
}

// diskQueue is how many chunks may wait to be written.
const diskQueue = 64

// put stores chunk k (of a version of chunk size chunk) in the
// background, evicting older ones first, holding a reference to b until
// it is written. Failures only mean the chunk is not cached.
func (c *diskCache) put(k chunkKey, chunk int64, b *buf) {
	c.queueOnce.Do(func() {
		c.queue = make(chan pendingChunk, diskQueue)
		par.Go(c.writer)
	})
	c.pending.Add(1)
	select {
	case c.queue <- pendingChunk{k, chunk, b.ref()}:
	default:
		b.release()
		c.pending.Done()
	}
}

// diskBatch is how many queued chunks the writer takes at once.
const diskBatch = 16

// writer writes the queued chunks. It takes what waits in the queue, up
// to diskBatch chunks, and writes each run of consecutive whole chunks of
// one version with one fallocate, one pwritev and one write of their
// records (see [diskCache.putRun]): a streamed tensor's chunks arrive in
// order, and writing them a mebibyte per system call (three calls each)
// cost the device one I/O per chunk.
func (c *diskCache) writer() {
	batch := make([]pendingChunk, 0, diskBatch)
	for p := range c.queue {
		batch = append(batch[:0], p)
	more:
		for len(batch) < diskBatch {
			select {
			case q, ok := <-c.queue:
				if !ok {
					break more
				}
				batch = append(batch, q)
			default:
				break more
			}
		}
		for i := 0; i < len(batch); {
			n := 1
			for i+n < len(batch) && follows(batch[i+n-1], batch[i+n]) {
				n++
			}
			if run := batch[i : i+n]; n == 1 {
				c.putNow(run[0].k, run[0].chunk, run[0].buf.data)
			} else {
				c.putRun(run)
			}
			for _, q := range batch[i : i+n] {
				q.buf.release()
				c.pending.Done()
			}
			i += n
		}
	}
}

// follows reports whether q is the chunk after p, of the same version,
// and both are whole chunks: what one write can store together.
func follows(p, q pendingChunk) bool {
	return p.k.version == q.k.version && q.k.index == p.k.index+1 && p.chunk == q.chunk &&
		int64(len(p.buf.data)) == p.chunk && int64(len(q.buf.data)) == q.chunk
}

// putRun stores the consecutive whole chunks of run as putNow does each,
// with one system call of each kind for all of them. Any already cached
// make it store them one by one.
func (c *diskCache) putRun(run []pendingChunk) {
	chunk := run[0].chunk
	n := chunk * int64(len(run))
	if n+versionCost > c.limit {
		for _, p := range run {
			c.putNow(p.k, p.chunk, p.buf.data)
		}
		return
	}
	c.mu.Lock()
	for _, p := range run {
		if c.lru.Contains(p.k) {
			c.mu.Unlock()
			for _, p := range run {
				c.putNow(p.k, p.chunk, p.buf.data)
			}
			return
		}
	}
	v, direct, err := c.openForWrite(run[0].k.version, chunk)
	if err != nil {
		return
	}
	first := run[0].k.index
	recs := make([]byte, recordSize*len(run))
	iovs := make([][]byte, len(run))
	for j, p := range run {
		binary.LittleEndian.PutUint32(recs[j*recordSize:], crc32.Checksum(p.buf.data, castagnoli))
		binary.LittleEndian.PutUint32(recs[j*recordSize+4:], uint32(chunk+1))
		iovs[j] = p.buf.data
	}
	unix.Fallocate(int(v.data.Fd()), unix.FALLOC_FL_KEEP_SIZE, first*chunk, n)
	if err := c.writeRun(v, direct, iovs, first*chunk, n); err != nil {
		return
	}
	if _, err := v.index.WriteAt(recs, int64(indexHeader)+first*recordSize); err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.versions[run[0].k.version] != v {
		return // the version was evicted whole meanwhile
	}
	for _, p := range run {
		if c.lru.Contains(p.k) {
			continue
		}
		c.lru.Add(p.k, diskEntry{chunk: chunk, n: chunk})
		c.size += chunk
		v.entries++
	}
	c.evictLocked()
}

// writeRun writes iovs (n bytes in all: one chunk, or a run of
// consecutive ones) at off in v's data file: with O_DIRECT (direct, v's
// data file so opened, if not nil) where the offset and every piece are
// aligned (full chunks from the pool's page-aligned arrays: every chunk of
// a stream but the file's last), else through the page cache. A buffered
// write copies the chunks into the page cache, which a first read of a
// tensor does for every mebibyte it streams: it cost the daemon as much
// CPU as reading the bytes from the network (about 0.4 s of CPU per 300
// MB); O_DIRECT hands the pages to the device as they are, and leaves the
// page cache to what is read. A filesystem that refuses it (EINVAL) gets
// buffered writes from then on.
func (c *diskCache) writeRun(v *diskVersion, direct *os.File, iovs [][]byte, off, n int64) error {
	aligned := direct != nil && off%directAlign == 0
	for _, b := range iovs {
		aligned = aligned && len(b)%directAlign == 0 && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%directAlign == 0
	}
	if aligned {
		k, err := unix.Pwritev(int(direct.Fd()), iovs, off)
		if err == nil && int64(k) != n {
			err = io.ErrShortWrite
		}
		if !errors.Is(err, unix.EINVAL) {
			return err
		}
		c.mu.Lock()
		if v.direct == direct {
			v.direct = nil
			direct.Close()
		}
		c.mu.Unlock()
	}
	k, err := unix.Pwritev(int(v.data.Fd()), iovs, off)
	if err == nil && int64(k) != n {
		err = io.ErrShortWrite
	}
	return err
}

// openForWrite opens (creating) a version's files with c.mu held, and
// releases c.mu: the version, and its O_DIRECT file as it was under the
// lock.
func (c *diskCache) openForWrite(version string, chunk int64) (*diskVersion, *os.File, error) {
	v, err := c.openLocked(version, chunk, true)
	var direct *os.File
	if err == nil {
		direct = v.direct
	}
	c.mu.Unlock()
	return v, direct, err
}

// flush waits for the chunks queued so far to be written.
func (c *diskCache) flush() { c.pending.Wait() }

// putNow stores the chunk, evicting older ones first: its bytes, then its
// record.
func (c *diskCache) putNow(k chunkKey, chunk int64, data []byte) {
	n := int64(len(data))
	if n+versionCost > c.limit || n > chunk {
		return
	}
	c.mu.Lock()
	if c.lru.Contains(k) {
		c.mu.Unlock()
		return
	}
	v, direct, err := c.openForWrite(k.version, chunk)
	if err != nil {
		return
	}
	var rec [recordSize]byte
	binary.LittleEndian.PutUint32(rec[:4], crc32.Checksum(data, castagnoli))
	binary.LittleEndian.PutUint32(rec[4:], uint32(n+1))
	// Allocating the blocks first (unwritten) spares the buffered write
	// ext4's block-by-block delayed allocation: about 5% less daemon CPU
	// for a streamed tensor. A filesystem that cannot just writes.
	unix.Fallocate(int(v.data.Fd()), unix.FALLOC_FL_KEEP_SIZE, k.index*chunk, n)
	if err := c.writeRun(v, direct, [][]byte{data}, k.index*chunk, n); err != nil {
		return
	}
	if _, err := v.index.WriteAt(rec[:], int64(indexHeader)+k.index*recordSize); err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lru.Contains(k) || c.versions[k.version] != v {
		return // cached meanwhile, or the version was evicted whole
	}
	c.lru.Add(k, diskEntry{chunk: chunk, n: n})
	c.size += n
	v.entries++
	c.evictLocked()
}

// directAlign is what O_DIRECT asks of a write's memory, offset and
// length: the filesystem's logical block, 4 KiB at most in practice.
const directAlign = 4 << 10

func (c *diskCache) remove(k chunkKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(k)
}

// removeLocked forgets chunk k, clears its record and frees its bytes; a
// version left with no chunk loses its files.
func (c *diskCache) removeLocked(k chunkKey) {
	e, ok := c.lru.Remove(k)
	if !ok {
		return
	}
	c.size -= e.n
	v := c.versions[k.version]
	if v == nil {
		return
	}
	v.entries--
	if v.entries <= 0 {
		c.dropVersionLocked(k.version)
		return
	}
	if _, err := c.openLocked(k.version, e.chunk, false); err == nil {
		var zero [recordSize]byte
		v.index.WriteAt(zero[:], int64(indexHeader)+k.index*recordSize)
		unix.Fallocate(int(v.data.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, k.index*e.chunk, e.n)
	}
}

// forgetVersionLocked forgets every chunk of a version and removes its
// files.
func (c *diskCache) forgetVersionLocked(version string) {
	if v := c.versions[version]; v != nil && v.entries > 0 {
		for k, e := range c.lru.All() {
			if k.version == version {
				c.lru.Remove(k)
				c.size -= e.n
			}
		}
		v.entries = 0
	}
	c.dropVersionLocked(version)
}

// dropVersionLocked removes a version with no chunks left.
func (c *diskCache) dropVersionLocked(version string) {
	if v := c.versions[version]; v != nil {
		if v.data != nil {
			v.data.Close()
			v.index.Close()
		}
		if v.direct != nil {
			v.direct.Close()
		}
		delete(c.versions, version)
		c.size -= versionCost
	}
	c.removeFiles(version)
}

func (c *diskCache) removeFiles(version string) {
	base := filepath.Join(c.dir, version)
	os.Remove(base + ".index")
	os.Remove(base + ".data")
}

func (c *diskCache) evictLocked() {
	for c.size > c.limit && c.lru.Len() > 0 {
		k, _, _ := c.lru.Oldest()
		c.removeLocked(k)
	}
	// Versions indexed with no chunk (every record cleared) cost their
	// files only.
	for c.size > c.limit {
		dropped := false
		for version, v := range c.versions {
			if v.entries == 0 {
				c.dropVersionLocked(version)
				dropped = true
				break
			}
		}
		if !dropped {
			break
		}
	}
}

// bytes returns the cache's size as indexed.
func (c *diskCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}
