package pytorch

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// readLegacy reads the format of torch.save before PyTorch 1.6: five
// pickles one after the other (the magic number, the protocol version,
// the system info, the object, the list of storage keys), then each
// storage in that list's order as an 8-byte little-endian element count
// and its bytes.
//
// The pickles' total length is not known before reading them, so a
// growing prefix of the file is read (64 KB, then doubling, up to
// maxPickle) until the five parse.
func (f *File) readLegacy() error {
	name := f.src.Name()
	size := f.src.Size()
	for n := min(int64(64<<10), size); ; n = min(2*n, size) {
		buf := make([]byte, n)
		if err := readAtFull(f.src, buf, 0); err != nil {
			return err
		}
		err := f.parseLegacy(buf)
		if !errors.Is(err, errNeedMore) {
			return err
		}
		if n == size {
			return formatErr(name, CodeInvalidPickle, "", "a legacy torch.save file (before PyTorch 1.6) whose pickles end before their STOP; truncated")
		}
		if n >= maxPickle {
			return formatErr(name, CodeLimit, "", "a legacy torch.save file whose pickles run past the %d bytes read", maxPickle)
		}
	}
}

func (f *File) parseLegacy(buf []byte) error {
	name := f.src.Name()
	u := &unpickler{data: buf}
	// The magic number, the protocol version, the system info.
	for i := range 3 {
		u.reset()
		v, err := u.load()
		if err != nil {
			return f.legacyErr(err)
		}
		if i == 1 {
			if p, ok := v.(int64); !ok || p != 1001 {
				return formatErr(name, CodeNotPyTorch, "", "a legacy torch.save file of protocol %s; 1001 is read", describe(v))
			}
		}
		if i == 2 {
			if d, ok := v.(*pyDict); ok {
				for j, k := range d.keys {
					if s, ok := k.(*pyStr); ok && s.s == "little_endian" && d.vals[j] == false {
						return formatErr(name, CodeBigEndian, "", "a legacy torch.save file written on a big-endian machine; only little-endian checkpoints are read")
					}
				}
			}
		}
	}
	storages := newStorages(0)
	u.reset()
	u.persistent = func(pid any) (any, error) { return storages.resolve(pid, true) }
	root, err := u.load()
	if err != nil {
		return f.legacyErr(err)
	}
	u.reset()
	u.persistent = nil
	keysV, err := u.load()
	if err != nil {
		return f.legacyErr(err)
	}
	keys, ok := tupleItems(keysV)
	if !ok {
		return formatErr(name, CodeInvalidPickle, "", "a legacy torch.save file whose storage list is %s", describe(keysV))
	}
	// Walk the storages after the pickles.
	type span struct{ off, size int64 }
	at := map[*storage]span{}
	pos := int64(u.pos)
	fsize := f.src.Size()
	var b [8]byte
	for _, k := range keys {
		ks, ok := k.(*pyStr)
		var key string
		if ok {
			key = ks.s
		}
		st := storages.m[key]
		if !ok || st == nil {
			return formatErr(name, CodeInvalidPickle, "", "a legacy torch.save file listing storage %s that its object does not use", describe(k))
		}
		if _, dup := at[st]; dup {
			return formatErr(name, CodeOverlap, "", "a legacy torch.save file listing storage %s twice", printable(key))
		}
		if pos > fsize-8 {
			return formatErr(name, CodeShortStorage, "", "storage %s starts past the end of the file (at byte %d of %d); truncated", printable(key), pos, fsize)
		}
		if _, err := f.src.ReadAt(b[:], pos); err != nil {
			return err
		}
		numel := binary.LittleEndian.Uint64(b[:])
		hi, n := bits.Mul64(numel, st.dtype.BlockBytes())
		if hi != 0 || n > uint64(fsize-pos-8) {
			return formatErr(name, CodeShortStorage, "", "storage %s of %d elements runs past the end of the file (from byte %d of %d); truncated", printable(key), numel, pos+8, fsize)
		}
		at[st] = span{pos + 8, int64(n)}
		pos += 8 + int64(n)
	}
	for key, st := range storages.m {
		if _, ok := at[st]; !ok {
			return formatErr(name, CodeMissingRecord, "", "storage %s used by the object is not in the file's storage list", printable(key))
		}
	}
	storages.setIDs(f.src.Name())
	return f.name(root, u.pos, len(storages.m), func(st *storage) (int64, int64) { s := at[st]; return s.off, s.size })
}

func (f *File) legacyErr(err error) error {
	if errors.Is(err, errNeedMore) {
		return err
	}
	return f.pickleError("the legacy pickle", err)
}
