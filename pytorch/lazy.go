package pytorch

import (
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/fsmount/fsmount/source"
)

// Where a storage's bytes begin is written in its local ZIP header (the
// header's length), which the central directory does not repeat. Reading
// the 291 local headers of a 7B checkpoint costs 291 system calls of a
// few microseconds each on a VM — a quarter of opening it. torch.save
// lays every record out the same way (PyTorchStreamWriter's getPadding):
// the header, the name, a ZIP64 field when the record's offset or size
// passes 4 GB, then a padding field ("FB") that puts the data on the
// next multiple of its alignment (64, or what .storage_alignment says).
// So a local file's storage offsets are predicted from the central
// directory, and checked:
//
//   - at open, through the windows already read, the local headers of
//     the first storage and of the first past each 4 GB branch of that
//     rule; if one is not where the rule puts it, the file was not laid
//     out by torch.save and every local header is read at open, as
//     before;
//   - the others before the first byte of any storage is read: the
//     tensors' File is a lazyFile, whose every way to the bytes (ReadAt,
//     Fd, Mapping, Changed, which the mount calls before each read)
//     first reads and checks all the remaining local headers, once. A
//     header that does not match its central directory record, or puts
//     its data elsewhere than predicted, fails every read from then on
//     with the error that says so (CodeCorruptArchive): no byte of a
//     storage is served from a place its header does not vouch for.
//
// A check (model.Open, check.Check) that reads no tensor bytes reads no
// local header but the sampled ones.

// localHeaderLen is the fixed part of a ZIP local file header.
const localHeaderLen = 30

// zip64Limit is the offset or size from which torch.save writes a ZIP64
// field into a local header.
const zip64Limit = 0xFFFFFFFF

// defaultAlignment is the alignment of a storage's data in a checkpoint
// without a .storage_alignment record.
const defaultAlignment = 64

// predictData returns where torch.save puts the data of a record of
// nameLen bytes and size bytes whose local header is at hdr: the
// alignment rule of its writer's getPadding. ok is false on an overflow.
func predictData(hdr, size int64, nameLen int, align int64) (int64, bool) {
	start := hdr + localHeaderLen + int64(nameLen) + 4 // the FB padding field's id and length
	if size >= zip64Limit || hdr >= zip64Limit {
		start += 4
		if size >= zip64Limit {
			start += 16
		}
		if hdr >= zip64Limit {
			start += 8
		}
	}
	if start < hdr || start > (1<<62) {
		return 0, false
	}
	return (start + align - 1) / align * align, true
}

// errLocal is a local header that cannot be the one of its record.
type errLocal string

func (e errLocal) Error() string { return string(e) }

// parseLocal checks b, read at the local header of the record name (at
// least localHeaderLen+len(name) bytes), and returns the offset of the
// record's data relative to its header.
func parseLocal(b []byte, name string) (int64, error) {
	if len(b) < localHeaderLen+len(name) {
		return 0, errLocal("the file ends inside it")
	}
	if binary.LittleEndian.Uint32(b) != 0x04034b50 {
		return 0, errLocal("no local header signature")
	}
	if binary.LittleEndian.Uint16(b[8:]) != 0 {
		return 0, errLocal("it says the record is compressed")
	}
	nl := int(binary.LittleEndian.Uint16(b[26:]))
	el := int64(binary.LittleEndian.Uint16(b[28:]))
	if nl != len(name) || string(b[localHeaderLen:localHeaderLen+nl]) != name {
		return 0, errLocal("it names another record")
	}
	return localHeaderLen + int64(nl) + el, nil
}

// lazyEntry is a storage whose data offset was predicted: its local
// header at hdr must put it at data.
type lazyEntry struct {
	name      string
	hdr, data int64
}

// lazyCheck holds the local headers left to check before any storage
// byte of a file is served.
type lazyCheck struct {
	src  source.File
	ents []lazyEntry // sorted by hdr
	once sync.Once
	err  error
}

// verify checks the remaining local headers, once; every later call
// returns the same answer.
func (l *lazyCheck) verify() error {
	l.once.Do(func() {
		l.err = l.check()
		l.ents = nil
	})
	return l.err
}

// lazyBatch bounds the span of local headers read in one pread: headers
// of adjacent small storages are read together.
const lazyBatch = 16 << 10

func (l *lazyCheck) check() error {
	name := l.src.Name()
	size := l.src.Size()
	var buf []byte
	for i := 0; i < len(l.ents); {
		// A run of headers whose span fits lazyBatch, read at once.
		start := l.ents[i].hdr
		j := i
		end := start
		for j < len(l.ents) {
			e := l.ents[j]
			hend := e.hdr + localHeaderLen + int64(len(e.name))
			if hend-start > lazyBatch && j > i {
				break
			}
			end = max(end, hend)
			j++
		}
		end = min(end, size)
		if end <= start {
			return formatErr(name, CodeCorruptArchive, "", "record %s: its local header lies past the end of the file; truncated or damaged", printable(l.ents[i].name))
		}
		if int64(cap(buf)) < end-start {
			buf = make([]byte, end-start)
		}
		b := buf[:end-start]
		n, err := l.src.ReadAt(b, start)
		if n < len(b) && err != nil && !errors.Is(err, io.EOF) {
			return formatErr(name, CodeCorruptArchive, "", "record %s: its local header cannot be read (%v)", printable(l.ents[i].name), err)
		}
		b = b[:n]
		for _, e := range l.ents[i:j] {
			rel := e.hdr - start
			d, err := parseLocal(b[min(rel, int64(len(b))):], e.name)
			if err != nil {
				return formatErr(name, CodeCorruptArchive, "", "record %s: its local header at %d is not its central directory's (%v); a damaged or crafted archive", printable(e.name), e.hdr, err)
			}
			if e.hdr+d != e.data {
				return formatErr(name, CodeCorruptArchive, "", "record %s: its local header puts its data at %d, not at %d where the central directory and torch.save's layout put it; a damaged or crafted archive", printable(e.name), e.hdr+d, e.data)
			}
		}
		i = j
	}
	return nil
}

// newLazyFile wraps src, whose storages' local headers in ents are not
// yet checked, so that each way to its bytes checks them first. A
// *source.LocalFile keeps its fast ways (an fd to splice, a mapping) and
// its change check.
func newLazyFile(src source.File, ents []lazyEntry) source.File {
	slices.SortFunc(ents, func(a, b lazyEntry) int { return cmpInt(a.hdr, b.hdr) })
	lf := &lazyFile{src: src, lazy: &lazyCheck{src: src, ents: ents}}
	if l, ok := src.(*source.LocalFile); ok {
		return &lazyLocal{lazyFile: lf, local: l}
	}
	return lf
}

// canWrap reports whether src can be put behind a lazyFile without
// losing a way to its bytes: a *source.LocalFile (lazyLocal keeps them),
// or a file that offers none. Any other (one that lends its buffers, a
// test's wrapper of a local file) has every local header read at open.
func canWrap(src source.File) bool {
	if _, ok := src.(*source.LocalFile); ok {
		return true
	}
	switch src.(type) {
	case source.Spliceable, source.Mappable, source.Lender, source.Checker, source.Trimmer, source.Owned, source.Remote:
		return false
	}
	return true
}

// lazyFile is a checkpoint whose reads first check its storages' local
// headers (see above). It is the tensors' File; the checkpoint's own
// source, served whole, is the file itself and needs no check. Its
// [source.Derived] base is that source.
type lazyFile struct {
	src  source.File
	lazy *lazyCheck
}

func (f *lazyFile) Name() string       { return f.src.Name() }
func (f *lazyFile) Size() int64        { return f.src.Size() }
func (f *lazyFile) ModTime() time.Time { return f.src.ModTime() }
func (f *lazyFile) Mode() fs.FileMode  { return f.src.Mode() }
func (f *lazyFile) Close() error       { return nil } // the source is closed by its owner
func (f *lazyFile) Base() source.File  { return f.src }

func (f *lazyFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.lazy.verify(); err != nil {
		return 0, err
	}
	return f.src.ReadAt(p, off)
}

// lazyLocal is a lazyFile of a local file, with its fd, its mapping and
// its change check, each behind the same check.
type lazyLocal struct {
	*lazyFile
	local *source.LocalFile
}

// badFd is the descriptor Fd gives when the headers are bad: every
// splice from it fails (EBADF), so nothing is served.
const badFd = ^uintptr(0)

// Fd returns the file's descriptor once the headers are checked. A
// reader that splices should call Changed first, which says why the
// descriptor is not given.
func (f *lazyLocal) Fd() uintptr {
	if f.lazy.verify() != nil {
		return badFd
	}
	return f.local.Fd()
}

func (f *lazyLocal) Mapping() ([]byte, error) {
	if err := f.lazy.verify(); err != nil {
		return nil, err
	}
	return f.local.Mapping()
}

func (f *lazyLocal) Release(data []byte)      { f.local.Release(data) }
func (f *lazyLocal) Owner() (uid, gid uint32) { return f.local.Owner() }

// Changed checks the headers, then whether the file changed since it was
// opened; a mount calls it before every read of a tensor.
func (f *lazyLocal) Changed() error {
	if err := f.lazy.verify(); err != nil {
		return err
	}
	return f.local.Changed()
}

var (
	_ source.Derived    = (*lazyFile)(nil)
	_ source.Spliceable = (*lazyLocal)(nil)
	_ source.Mappable   = (*lazyLocal)(nil)
	_ source.Checker    = (*lazyLocal)(nil)
	_ source.Owned      = (*lazyLocal)(nil)
)
