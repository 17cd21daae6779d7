// Package fusefs serves a checked model as a read-only FUSE tree.
//
// The tree is built once, in newRoot, from a [spec.Report], as plain
// entries (tree.go); go-fuse inodes are made only for the entries the
// kernel looks up. Every tensor is a directory holding shape, dtype, data
// and location; verdict, report, config.json, shapes, expected/ and
// by-name/ sit at the top. The names the tree uses are one table
// (treeNames), and a tensor path component equal to one of them is
// escaped; building fails if two entries of a directory share a name.
// The package never parses a file: it presents what the format, model and
// spec packages found.
//
// # Content
//
// Each file entry holds a content (content.go) that knows its size
// without producing it and serves a read: bytes in memory for the text
// files, and a tensor's byte range for data. Data is spliced from the
// model file's descriptor by default (fuse.ReadResultFd: the kernel moves
// the pages, nothing is copied through the daemon), or handed over as a
// slice of the file's mapping with Options.Mmap (fuse.ReadResultData), or
// read into the request's buffer for a source that offers neither. Reads
// past the end of a model file truncated while mounted fail with EIO.
//
// # Kernel caching
//
// Nothing in the tree changes while it is mounted, so every cache is
// allowed to keep everything: entry, attribute and negative timeouts are
// an hour. OPENDIR is answered ENOSYS (noopendir.go), which puts the
// kernel in no-opendir mode: it caches listings and sends no OPENDIR or
// RELEASEDIR. Files answer OPEN and FLUSH with ENOSYS, which puts it in
// no-open mode: it stops sending OPEN, FLUSH and RELEASE and keeps file
// pages cached across opens. The mount is MS_RDONLY when mounted
// directly, which also spares an atime GETATTR per read. README.md in
// this directory has the measurements behind each choice.
package fusefs
