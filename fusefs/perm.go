package fusefs

import (
	"io/fs"
	"syscall"

	"github.com/fsmount/fsmount/source"
)

// perm is who may read an entry: an owner and read bits. The rule is that
// no user may read through the mount anything they could not read from
// the files it is derived from, so an entry's perm is never wider than its
// sources': a tensor's files take its model file's owner and read bits, a
// directory or a file derived from several sources (the report, a
// directory holding tensors of several shards) the narrowest of theirs.
// Perms are shared and compared by pointer; a tree has a handful.
type perm struct {
	uid, gid uint32
	read     uint32 // a subset of 0444
}

// perms interns perms, so that entries share them.
type perms struct {
	m     map[perm]*perm
	owner perm // the mounting user, who could read every source
}

func newPerms(uid, gid uint32) *perms {
	return &perms{m: map[perm]*perm{}, owner: perm{uid: uid, gid: gid, read: 0o400}}
}

func (ps *perms) intern(p perm) *perm {
	if q, ok := ps.m[p]; ok {
		return q
	}
	q := &p
	ps.m[p] = q
	return q
}

// of returns the perm of a source file: its owner (the mounting user for
// a source without one, such as a remote file) and its read bits.
func (ps *perms) of(f source.File) *perm {
	p := perm{uid: ps.owner.uid, gid: ps.owner.gid, read: uint32(f.Mode()&fs.ModePerm) & 0o444}
	if o, ok := f.(source.Owned); ok {
		p.uid, p.gid = o.Owner()
	}
	return ps.intern(p)
}

// and returns a perm no wider than a or b: with one owner, the read bits
// both grant; with two, the mounting user (who opened both) as owner, and
// for the group and others what both grant to others.
func (ps *perms) and(a, b *perm) *perm {
	switch {
	case a == nil:
		return b
	case b == nil || a == b:
		return a
	case a.uid == b.uid && a.gid == b.gid:
		return ps.intern(perm{uid: a.uid, gid: a.gid, read: a.read & b.read})
	}
	other := a.read & b.read & 0o004
	return ps.intern(perm{uid: ps.owner.uid, gid: ps.owner.gid, read: 0o400 | other<<3 | other})
}

// mode returns the permission bits of an entry of the given type: the
// read bits, and for a directory the matching search bits.
func (p *perm) mode(typ uint32) uint32 {
	switch typ {
	case syscall.S_IFDIR:
		return p.read | p.read>>2
	case syscall.S_IFLNK:
		return 0o777
	}
	return p.read
}
