package pytorch

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// The central directory of a ZIP archive, read by a reader of our own.
// archive/zip was used before; it makes a *zip.File, a name, an extra
// field and a 30-byte buffer of each record, and keeps each record's
// local header offset to itself, so a checkpoint's open spent a fifth of
// its time there. This reader reads what torch.save's archives need and
// no more: the end record (and its ZIP64 form), then the directory in
// one read, each record's name cut from one string of it. Every length
// and offset is checked against the bytes read and the file's size
// before use; the records are counted by the end record and allocated
// only up to what the directory's length can hold.

// record is an entry of the central directory.
type record struct {
	name   string
	hdr    int64 // its local header's offset
	csize  uint64
	usize  uint64
	method uint16
}

const (
	dirHeaderLen = 46 // the fixed part of a central directory header
	endLen       = 22 // the end of central directory record, without its comment
	end64LocLen  = 20 // the ZIP64 end of central directory locator
	end64Len     = 56 // the ZIP64 end of central directory record, without its extensible data
	// maxDirectory bounds the central directory read into memory: a
	// 37,000-tensor checkpoint's is about 4 MB.
	maxDirectory = 128 << 20
	sigDirHeader = 0x02014b50
	sigEnd       = 0x06054b50
	sigEnd64Loc  = 0x07064b50
	sigEnd64     = 0x06064b50
	zipStore     = 0
)

// zipErr is a central directory that cannot be read.
type zipErr string

func (e zipErr) Error() string { return string(e) }

// readAtFull reads len(p) bytes at off, an io.EOF with all of them being
// no error.
func readAtFull(ra io.ReaderAt, p []byte, off int64) error {
	n, err := ra.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// findEnd returns the offset of the end of central directory record
// and its bytes, looking in the last kilobyte and then in the last 64 KB
// (the most its comment allows), as archive/zip does.
func findEnd(ra io.ReaderAt, size int64) (int64, []byte, error) {
	for _, span := range []int64{1 << 10, 65 << 10} {
		n := min(span, size)
		b, err := readView(ra, size-n, int(n))
		if err != nil {
			return 0, nil, err
		}
		// The last signature whose comment fits the bytes after it.
		for i := len(b) - endLen; i >= 0; i-- {
			if binary.LittleEndian.Uint32(b[i:]) == sigEnd {
				if comment := int(binary.LittleEndian.Uint16(b[i+20:])); i+endLen+comment <= len(b) {
					return size - n + int64(i), b[i : i+endLen], nil
				}
			}
		}
		if n == size {
			break
		}
	}
	return 0, nil, zipErr("no end of central directory record")
}

// readDirectory reads the central directory of the ZIP archive ra, of
// size bytes.
func readDirectory(ra io.ReaderAt, size int64) ([]record, error) {
	endOff, end, err := findEnd(ra, size)
	if err != nil {
		return nil, err
	}
	count := uint64(binary.LittleEndian.Uint16(end[10:]))
	dirSize := uint64(binary.LittleEndian.Uint32(end[12:]))
	dirOff := uint64(binary.LittleEndian.Uint32(end[16:]))
	dirEnd := endOff // the directory lies before this
	if count == 0xFFFF || dirSize == 0xFFFFFFFF || dirOff == 0xFFFFFFFF {
		// A ZIP64 archive has a locator just before the end record; its
		// absence leaves the values above (as archive/zip does).
		if endOff >= end64LocLen {
			loc, err := readView(ra, endOff-end64LocLen, end64LocLen)
			if err != nil {
				return nil, err
			}
			if binary.LittleEndian.Uint32(loc) == sigEnd64Loc {
				at := binary.LittleEndian.Uint64(loc[8:])
				if at > uint64(endOff-end64LocLen) || uint64(endOff-end64LocLen)-at < end64Len {
					return nil, zipErr("its ZIP64 end record lies outside the file")
				}
				e64, err := readView(ra, int64(at), end64Len)
				if err != nil {
					return nil, err
				}
				if binary.LittleEndian.Uint32(e64) != sigEnd64 {
					return nil, zipErr("no ZIP64 end record where its locator says")
				}
				count = binary.LittleEndian.Uint64(e64[32:])
				dirSize = binary.LittleEndian.Uint64(e64[40:])
				dirOff = binary.LittleEndian.Uint64(e64[48:])
				dirEnd = int64(at)
			}
		}
	}
	if dirSize > uint64(dirEnd) || dirOff > uint64(dirEnd)-dirSize {
		return nil, zipErr(fmt.Sprintf("a directory of %d bytes at %d does not lie before its end record at %d", dirSize, dirOff, dirEnd))
	}
	if dirSize > maxDirectory {
		return nil, zipErr(fmt.Sprintf("a directory of %d bytes, more than the %d read", dirSize, maxDirectory))
	}
	if count > dirSize/dirHeaderLen {
		return nil, zipErr(fmt.Sprintf("%d records declared in a directory of %d bytes", count, dirSize))
	}
	buf, err := readView(ra, int64(dirOff), int(dirSize))
	if err != nil {
		return nil, err
	}
	return parseDirectory(buf, int(count))
}

// parseDirectory parses the count records of the central directory b.
// The records' names are cut from one string of them all.
func parseDirectory(b []byte, count int) ([]record, error) {
	recs := make([]record, 0, count)
	at := make([]int, 0, count) // where each name lies in b
	namesLen := 0
	for pos := 0; pos < len(b); {
		if len(recs) == count {
			return nil, zipErr(fmt.Sprintf("more records than the %d its end record declares", count))
		}
		h := b[pos:]
		if len(h) < dirHeaderLen || binary.LittleEndian.Uint32(h) != sigDirHeader {
			return nil, zipErr(fmt.Sprintf("no central directory header at byte %d of the directory", pos))
		}
		nl := int(binary.LittleEndian.Uint16(h[28:]))
		el := int(binary.LittleEndian.Uint16(h[30:]))
		cl := int(binary.LittleEndian.Uint16(h[32:]))
		n := dirHeaderLen + nl + el + cl
		if n > len(h) {
			return nil, zipErr(fmt.Sprintf("a central directory header at byte %d runs past the directory", pos))
		}
		name := h[dirHeaderLen : dirHeaderLen+nl] // for messages
		r := record{
			method: binary.LittleEndian.Uint16(h[10:]),
			csize:  uint64(binary.LittleEndian.Uint32(h[20:])),
			usize:  uint64(binary.LittleEndian.Uint32(h[24:])),
		}
		hdr := uint64(binary.LittleEndian.Uint32(h[42:]))
		needU, needC, needH := r.usize == 0xFFFFFFFF, r.csize == 0xFFFFFFFF, hdr == 0xFFFFFFFF
		// A ZIP64 field holds, in this order, the values the header
		// marks with all ones.
		for x := h[dirHeaderLen+nl : dirHeaderLen+nl+el]; len(x) >= 4 && (needU || needC || needH); {
			id, l := binary.LittleEndian.Uint16(x), int(binary.LittleEndian.Uint16(x[2:]))
			if 4+l > len(x) {
				return nil, zipErr(fmt.Sprintf("record %s: an extra field runs past its header", printable(string(name))))
			}
			f := x[4 : 4+l]
			x = x[4+l:]
			if id != 1 {
				continue
			}
			for _, v := range []struct {
				need *bool
				to   *uint64
			}{{&needU, &r.usize}, {&needC, &r.csize}, {&needH, &hdr}} {
				if !*v.need {
					continue
				}
				if len(f) < 8 {
					return nil, zipErr(fmt.Sprintf("record %s: its ZIP64 field is too short", printable(string(name))))
				}
				*v.to, *v.need, f = binary.LittleEndian.Uint64(f), false, f[8:]
			}
		}
		if needC || needH || needU {
			return nil, zipErr(fmt.Sprintf("record %s: its sizes or offset need a ZIP64 field it lacks", printable(string(name))))
		}
		if hdr > 1<<62 {
			return nil, zipErr(fmt.Sprintf("record %s: its local header offset %d cannot be", printable(string(name)), hdr))
		}
		r.hdr = int64(hdr)
		recs = append(recs, r)
		at = append(at, pos+dirHeaderLen)
		namesLen += nl
		pos += n
	}
	if len(recs) != count {
		return nil, zipErr(fmt.Sprintf("%d records in the directory, where its end record declares %d", len(recs), count))
	}
	var names strings.Builder
	names.Grow(namesLen)
	for _, p := range at {
		names.Write(b[p : p+int(binary.LittleEndian.Uint16(b[p-dirHeaderLen+28:]))])
	}
	all, off := names.String(), 0
	for i, p := range at {
		nl := int(binary.LittleEndian.Uint16(b[p-dirHeaderLen+28:]))
		recs[i].name = all[off : off+nl]
		off += nl
	}
	return recs, nil
}
