package remote

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestReusedBuffers has streaming and random readers share one file and
// two handles on it through a memory cache of four chunks, a small disk
// cache and readahead, so that chunk arrays are released and reused all
// the time. Every released array is poisoned before reuse: a reader that
// still copied from one, or a fetch that wrote into one still held, would
// return wrong bytes (and -race sees the two touching it). At the end no
// reference is released twice and every array out of the pool is one the
// memory cache still holds.
func TestReusedBuffers(t *testing.T) {
	const cs = 64 << 10
	_, data, s := serveBlob(t, 6<<20+321, 3)
	opts := testOptions()
	opts.ChunkSize = cs
	opts.MemCacheSize = 4 * cs
	opts.MaxReadahead = 16 * cs
	opts.CacheDir = t.TempDir()
	opts.CacheSize = 24 * (cs + 4)
	fsys := newFS(t, s.URL, opts)
	fsys.bufs.recycle = func(b []byte) {
		for i := range b {
			b[i] = 0xa5
		}
	}
	before := overReleased.Load()
	files := []*File{openFile(t, fsys, "blob.bin"), openFile(t, fsys, "blob.bin")}

	var wg sync.WaitGroup
	errs := make(chan string, 64)
	check := func(f *File, off, n int64) bool {
		buf := make([]byte, n)
		k, err := f.ReadAt(buf, off)
		want := data[off:min(off+n, int64(len(data)))]
		if k != len(want) || !bytes.Equal(buf[:k], want) || (err != nil && off+n <= int64(len(data))) {
			errs <- fmt.Sprintf("reading %d bytes at %d: %d bytes, equal %v, %v", n, off, k, bytes.Equal(buf[:k], want), err)
			return false
		}
		return true
	}
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := files[g%2]
			r := rand.New(rand.NewPCG(uint64(g), 1))
			if g < 4 {
				// A streamer: sequential reads of uneven sizes, from a
				// random start, three times.
				for range 3 {
					for off := r.Int64N(int64(len(data)) / 2); off < int64(len(data)); {
						n := 1 + r.Int64N(3*cs)
						if !check(f, off, n) {
							return
						}
						off += n
					}
				}
				return
			}
			// A random reader, across chunk boundaries.
			for range 300 {
				if !check(f, r.Int64N(int64(len(data))), 1+r.Int64N(2*cs)) {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, f := range files {
		waitIdle(t, f)
	}
	fsys.disk.flush()
	if n := overReleased.Load() - before; n != 0 {
		t.Errorf("%d references released twice", n)
	}
	checkNoLeak(t, fsys, files...)
}

// checkNoLeak checks that the only pooled arrays out are those the memory
// cache holds and the first chunks the open files pin, each with one
// reference per holder, once the calls that just ended have let go of
// theirs (finish releases a moment after a call leaves the in-flight
// set).
func checkNoLeak(t *testing.T, fsys *FS, files ...*File) {
	t.Helper()
	// held counts the pooled arrays the memory cache and the files hold,
	// and extra the references to them beyond their holders' own.
	count := func() (held, extra int64) {
		holders := map[*buf]int32{}
		fsys.mem.mu.Lock()
		for _, b := range fsys.mem.lru.All() {
			if b.pool != nil {
				holders[b]++
			}
		}
		fsys.mem.mu.Unlock()
		for _, f := range files {
			f.mu.Lock()
			if f.head != nil && f.head.pool != nil {
				holders[f.head]++
			}
			f.mu.Unlock()
		}
		for b, n := range holders {
			held++
			extra += int64(b.refs.Load() - n)
		}
		return held, extra
	}
	settled := func() bool {
		held, extra := count()
		return fsys.bufs.out.Load() == held && extra == 0
	}
	for deadline := time.Now().Add(5 * time.Second); !settled() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if held, extra := count(); fsys.bufs.out.Load() != held || extra != 0 {
		t.Errorf("%d chunk arrays out of the pool; the memory cache and the open files hold %d, with %d references beyond their own: references leak",
			fsys.bufs.out.Load(), held, extra)
	}
}

// TestLendHoldsChunks: the pieces Lend returns are the file's bytes
// across chunk boundaries, cut at the end, and stay intact while other
// reads evict their chunks and reuse (poisoned) arrays, until released.
func TestLendHoldsChunks(t *testing.T) {
	const cs = 64 << 10
	_, data, s := serveBlob(t, 40*cs+99, 5)
	opts := testOptions()
	opts.ChunkSize = cs
	opts.MemCacheSize = 2 * cs
	opts.MaxReadahead = -1
	fsys := newFS(t, s.URL, opts)
	fsys.bufs.recycle = func(b []byte) {
		for i := range b {
			b[i] = 0xa5
		}
	}
	f := openFile(t, fsys, "blob.bin")
	join := func(pieces [][]byte) []byte { return bytes.Join(pieces, nil) }

	off := int64(3*cs - 10)
	pieces, release, err := f.Lend(off, 2*cs+20) // parts of chunks 2, 3, 4 and 5
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 4 {
		t.Errorf("%d pieces for a range over 4 chunks", len(pieces))
	}
	for i := int64(10); i < 30; i++ { // evicts chunks 2-5 from memory
		readAt(t, f, data, i*cs, 100)
	}
	if !bytes.Equal(join(pieces), data[off:off+2*cs+20]) {
		t.Fatal("lent bytes changed before they were released")
	}
	release()
	release() // a second call does nothing
	checkNoLeak(t, fsys, f)
	fsys.bufs.mu.Lock()
	kept := len(fsys.bufs.free)
	fsys.bufs.mu.Unlock()
	if kept == 0 {
		t.Error("no released array kept for reuse")
	}
	f.Trim()
	for _, b := range fsys.bufs.free { // kept: only a slab partly in use
		if b.slab == nil || b.slab.free == b.slab.n {
			t.Fatal("Trim kept an array it could give back")
		}
	}

	pieces, release, err = f.Lend(int64(len(data))-50, 1000)
	if err != nil || !bytes.Equal(join(pieces), data[len(data)-50:]) {
		t.Errorf("a range past the end: %d bytes, %v", len(join(pieces)), err)
	}
	release()
	if pieces, release, err = f.Lend(int64(len(data)), 10); err != nil || len(pieces) != 0 {
		t.Errorf("a range at the end: %d pieces, %v", len(pieces), err)
	}
	release()
}

// TestSlabs: a pool carves huge-page slabs into arrays that can be
// written whole, and trim unmaps a slab only once all its arrays are
// back, keeping a partly used slab's free arrays for reuse.
func TestSlabs(t *testing.T) {
	const size = 512 << 10 // four arrays per 2 MiB slab
	p := &bufPool{size: size}
	var got []*buf
	for range 6 { // two slabs
		b := p.get(size)
		if len(b.data) != size || b.slab == nil {
			t.Fatalf("an array of %d bytes, slab %v", len(b.data), b.slab)
		}
		for i := range b.data {
			b.data[i] = byte(i)
		}
		got = append(got, b)
	}
	if p.slabs != 2 {
		t.Fatalf("%d slabs for 6 arrays of a quarter slab", p.slabs)
	}
	for _, b := range got[:4] { // the first slab's arrays, all back
		b.release()
	}
	p.trim()
	if p.slabs != 1 || len(p.free) != 2 {
		t.Errorf("after trim: %d slabs, %d free arrays; want 1 and the second slab's 2", p.slabs, len(p.free))
	}
	b := p.get(size) // reuses the second slab
	if b.slab != got[4].slab || p.slabs != 1 {
		t.Error("a free array of a slab in use was not reused")
	}
	for _, b := range append(got[4:], b) {
		b.release()
	}
	p.trim()
	if p.slabs != 0 || len(p.free) != 0 || p.out.Load() != 0 {
		t.Errorf("after all came back and trim: %d slabs, %d free, %d out", p.slabs, len(p.free), p.out.Load())
	}
}

// TestLendFailingLate: a Lend whose range takes two runs of chunks, the
// second failing (the file changed on the server), hands out nothing and
// keeps no reference to the first run's chunks.
func TestLendFailingLate(t *testing.T) {
	const cs = 64 << 10
	root, data, s := serveBlob(t, 8*cs, 8)
	opts := testOptions()
	opts.ChunkSize = cs
	opts.MaxReadahead = -1
	fsys := newFS(t, s.URL, opts)
	fsys.maxRun = 1 // a run per chunk, as with chunks of 16 MiB or more
	f := openFile(t, fsys, "blob.bin")
	readAt(t, f, data, cs, 10) // chunk 1 in memory
	later := time.Now().Add(time.Hour)
	touch(t, root, "blob.bin", later) // nginx's ETag is the mtime and size
	pieces, release, err := f.Lend(cs, 2*cs)
	wantCode(t, err, CodeChanged)
	if pieces != nil || release != nil {
		t.Error("a failed Lend handed out pieces or a release")
	}
	checkNoLeak(t, fsys, f)
}

// TestBufMisusePanics: in tests (and -tags debugbuf builds) a release
// past zero and a read after the last release panic, so that a broken
// reference count is found where it happens, not as another chunk's bytes.
func TestBufMisusePanics(t *testing.T) {
	b := newBuf([]byte("chunk"))
	assert.Equal(t, []byte("chunk"), b.bytes())
	b.ref().release()
	b.release()
	assert.PanicsWithValue(t, "remote: a chunk buffer used after its last release", func() { b.bytes() })
	assert.PanicsWithValue(t, "remote: a chunk buffer released more often than it was referenced", b.release)
	overReleased.Add(-1) // the count the other tests check stays theirs
}
