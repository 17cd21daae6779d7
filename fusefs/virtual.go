package fusefs

import (
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/hanwen/go-fuse/v2/splice"

	"github.com/fsmount/fsmount/source"
)

// virtualFile serves a file of files/ that exists nowhere (the
// safetensors files of a PyTorch checkpoint): a generated header, then
// each tensor's bytes, a range of a model file. A read is served as the
// pieces it spans, none copied in the daemon: a read within one tensor
// as that file range (spliced, mapped or lent, as any tensor's data),
// one across a boundary as its pieces spliced into one pipe, or, when
// they would not fit it, the largest piece's whole pages spliced and the
// rest copied into the pipe; else written from the files' mappings or
// lent buffers. Only a read no such way fits is copied through the
// file's ReadAt.
func virtualFile(f source.File) content {
	if p, ok := f.(pieced); ok {
		return virtualContent{f: f, p: p}
	}
	return fileRange{f: f, n: f.Size()}
}

// pieced is a file made of pieces of other files (safetensors.Virtual):
// Pieces calls fn for each run of [off, off+n), in order, with either a
// range of a file f or bytes b held in memory (f nil), until fn returns
// false.
type pieced interface {
	Pieces(off, n int64, fn func(f source.File, at int64, b []byte, k int64) bool)
}

type virtualContent struct {
	f source.File
	p pieced
}

// piece is one run of a read: k bytes at of f, or the bytes b if f is nil.
type piece struct {
	f  source.File
	at int64
	b  []byte
	k  int64
}

// maxPieces bounds the pieces of a read served without a copy: a writev
// takes at most 1024 buffers, and a read over many tiny tensors is cheap
// to copy.
const maxPieces = 64

func (c virtualContent) size() int64 { return c.f.Size() }

func (c virtualContent) read(t *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n := min(int64(len(dest)), c.f.Size()-off)
	ps := make([]piece, 0, 4)
	c.p.Pieces(off, n, func(f source.File, at int64, b []byte, k int64) bool {
		ps = append(ps, piece{f: f, at: at, b: b, k: k})
		return len(ps) <= maxPieces
	})
	if len(ps) == 1 && ps[0].f != nil && ps[0].k == n {
		return fileRange{f: ps[0].f, off: ps[0].at, n: n}.read(t, dest, 0)
	}
	for _, p := range ps {
		if p.f != nil {
			if errno := t.checkFile(p.f); errno != 0 {
				return nil, errno
			}
		}
	}
	if len(ps) <= maxPieces {
		if r := splicePieces(t, ps, n); r != nil {
			return r, fs.OK
		}
		r, f, err := spliceLargest(t, ps, n, dest)
		if err != nil {
			return nil, t.readFailed(f, err)
		}
		if r != nil {
			return r, fs.OK
		}
		if r := mappedPieces(ps, t.splice); r != nil {
			return r, fs.OK
		}
		r, f, err = lentPieces(ps)
		if err != nil {
			return nil, t.readFailed(f, err)
		}
		if r != nil {
			return r, fs.OK
		}
	}
	k, err := c.f.ReadAt(dest[:n], off)
	if int64(k) < n {
		return nil, t.readFailed(c.f, err)
	}
	return fuse.ReadResultData(dest[:n]), fs.OK
}

// splicePieces splices the pieces, in order, into a pipe that go-fuse
// then splices into its reply: the bytes are never copied in the
// daemon. nil if the tree does not splice, a piece has no fd, or the
// pipe's buffers would not fit in go-fuse's pipe.
func splicePieces(t *tree, ps []piece, n int64) fuse.ReadResult {
	if !t.splice {
		return nil
	}
	page := int64(os.Getpagesize())
	slots := int64(0) // the pipe buffers the pieces take: one per page a piece touches
	for _, p := range ps {
		if p.f == nil {
			slots += (p.k + page - 1) / page
			continue
		}
		if _, ok := p.f.(source.Spliceable); !ok {
			return nil
		}
		slots += (p.at+p.k-1)/page - p.at/page + 1
	}
	// go-fuse moves this pipe's buffers in one splice into a pipe that
	// holds the reply's header first and that it grows to the header,
	// n bytes and a page, which the kernel rounds up to a power of two
	// pages. Buffers that did not fit would cut the reply short.
	if slots+1 > pipePages(fuseOutHeader+n+page, page) || slots*page > int64(splice.MaxPipeSize()) {
		return nil
	}
	pair, err := splice.Get()
	if err != nil {
		return nil
	}
	if pair.Grow(int(slots*page)) != nil || !loadPieces(pair, ps) {
		splice.Done(pair)
		return nil
	}
	return fuse.ReadResultPipe(pair, int(n))
}

// spliceLargest serves a read across pieces whose pipe buffers do not
// fit go-fuse's pipe (a 1 MiB read of root's mounts over a tensor
// boundary: each piece spliced at an offset that is not page-aligned in
// its file takes a buffer more than its pages, and the reply's pipe has
// room for one more than the read's pages). The whole pages of the
// largest file piece are spliced; the bytes before and after them (the
// other pieces, and the partial pages at the ends of that piece) are
// read into dest, at their place in the reply, and written into the
// pipe, where they fill whole buffers. With the bytes copied on either
// side of the spliced pages taking at most one partial buffer more than
// their pages, the reply takes at most its pages and one buffer: it
// fits. nil if the tree does not splice or the largest piece holds no
// whole page; the file and its error if a copied piece's read failed.
func spliceLargest(t *tree, ps []piece, n int64, dest []byte) (fuse.ReadResult, source.File, error) {
	if !t.splice {
		return nil, nil, nil
	}
	page := int64(os.Getpagesize())
	big := -1
	for i, p := range ps {
		if _, ok := p.f.(source.Spliceable); ok && (big < 0 || p.k > ps[big].k) {
			big = i
		}
	}
	if big < 0 {
		return nil, nil, nil
	}
	// The spliced run: the whole pages of the largest piece, at reply
	// offsets [pre, pre+run).
	lp := ps[big]
	s0 := (lp.at + page - 1) / page * page
	s1 := (lp.at + lp.k) / page * page
	if s1-s0 < page {
		return nil, nil, nil
	}
	pre := s0 - lp.at
	for _, p := range ps[:big] {
		pre += p.k
	}
	run := s1 - s0
	post := n - pre - run
	slots := (pre+page-1)/page + run/page + (post+page-1)/page
	if slots+1 > pipePages(fuseOutHeader+n+page, page) || slots*page > int64(splice.MaxPipeSize()) {
		return nil, nil, nil
	}
	// The copied bytes, at their place in dest.
	at := int64(0)
	for i, p := range ps {
		lo, hi := int64(0), p.k // the part of p copied: [lo, hi) of it
		if i == big {
			hi = s0 - p.at
		}
		for part := 0; part < 2; part++ {
			if hi > lo {
				if p.f == nil {
					copy(dest[at+lo:at+hi], p.b[lo:hi])
				} else if k, err := p.f.ReadAt(dest[at+lo:at+hi], p.at+lo); int64(k) < hi-lo {
					if err == nil {
						err = io.ErrUnexpectedEOF
					}
					return nil, p.f, err
				}
			}
			if i != big {
				break
			}
			lo, hi = s1-p.at, p.k
		}
		at += p.k
	}
	pair, err := splice.Get()
	if err != nil {
		return nil, nil, nil
	}
	if pair.Grow(int(slots*page)) != nil ||
		!writeAll(pair, dest[:pre]) ||
		!loadAll(pair, ps[big].f.(source.Spliceable).Fd(), s0, run) ||
		!writeAll(pair, dest[pre+run:n]) {
		splice.Done(pair)
		return nil, nil, nil
	}
	return fuse.ReadResultPipe(pair, int(n)), nil, nil
}

// writeAll writes b into the pipe.
func writeAll(pair *splice.Pair, b []byte) bool {
	for len(b) > 0 {
		m, err := pair.Write(b)
		if err != nil || m <= 0 {
			return false
		}
		b = b[m:]
	}
	return true
}

// loadAll splices k bytes at of fd into the pipe.
func loadAll(pair *splice.Pair, fd uintptr, at, k int64) bool {
	for k > 0 {
		m, err := pair.LoadFromAt(fd, int(k), at)
		if err != nil || m <= 0 {
			return false
		}
		at += int64(m)
		k -= int64(m)
	}
	return true
}

// fuseOutHeader is the length of a FUSE reply's header.
const fuseOutHeader = 16

// pipePages is how many buffers a pipe grown to x bytes holds: the
// kernel rounds its size up to a power of two pages.
func pipePages(x, page int64) int64 {
	pages := (x + page - 1) / page
	p := int64(1)
	for p < pages {
		p *= 2
	}
	return p
}

// errShortLend is a lending that returned fewer bytes than asked.
var errShortLend = errors.New("short read")

// loadPieces writes each piece into the pipe: memory by write, a file
// range by splice.
func loadPieces(pair *splice.Pair, ps []piece) bool {
	for _, p := range ps {
		if p.f == nil {
			if !writeAll(pair, p.b[:p.k]) {
				return false
			}
			continue
		}
		if !loadAll(pair, p.f.(source.Spliceable).Fd(), p.at, p.k) {
			return false
		}
	}
	return true
}

// mappedPieces writes the reply from the files' mappings (one writev),
// when every piece's file has one. When the tree splices, a mapping is
// only this fallback, and the pages are dropped from the daemon's RSS
// once the reply is sent, as splicing would have left them.
func mappedPieces(ps []piece, release bool) fuse.ReadResult {
	r, _, _ := gather(ps, func(f source.File, at, k int64) ([][]byte, func(), error) {
		mp, ok := f.(source.Mappable)
		if !ok {
			return nil, nil, errNoWay
		}
		m, err := mp.Mapping()
		if err != nil || at+k > int64(len(m)) {
			return nil, nil, errNoWay
		}
		b := m[at : at+k]
		if !release {
			return [][]byte{b}, nil, nil
		}
		return [][]byte{b}, func() { mp.Release(b) }, nil
	})
	return r
}

// lentPieces writes the reply from the buffers the files lend (a remote
// model's cached chunks), released once it is sent. nil, and no error,
// if some piece's file does not lend; the file and its error if a
// lending failed.
func lentPieces(ps []piece) (fuse.ReadResult, source.File, error) {
	return gather(ps, func(f source.File, at, k int64) ([][]byte, func(), error) {
		l, ok := f.(source.Lender)
		if !ok {
			return nil, nil, errNoWay
		}
		return l.Lend(at, int(k))
	})
}

// errNoWay is a piece's file not offering the way gather was asked for.
var errNoWay = errors.New("not offered")

// gather makes a reply of the pieces' buffers, written in one writev:
// the bytes held in memory as they are, each file range as get gives
// it, with a function to call once the reply is sent. nil if get says
// errNoWay for a piece; the file and the error if get fails.
func gather(ps []piece, get func(f source.File, at, k int64) ([][]byte, func(), error)) (fuse.ReadResult, source.File, error) {
	vecs := make([][]byte, 0, len(ps))
	var releases []func()
	done := func() {
		for _, r := range releases {
			r()
		}
	}
	for _, p := range ps {
		if p.f == nil {
			vecs = append(vecs, p.b[:p.k])
			continue
		}
		bufs, release, err := get(p.f, p.at, p.k)
		if release != nil {
			releases = append(releases, release)
		}
		if err == nil && lentLen(bufs) < p.k {
			err = errShortLend
		}
		if err != nil {
			done()
			if err == errNoWay {
				return nil, nil, nil
			}
			return nil, p.f, err
		}
		vecs = append(vecs, bufs...)
	}
	return &lent{vecs, done}, nil, nil
}
