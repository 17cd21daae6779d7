// Package fusefs serves a checked model as a read-only FUSE tree.
//
// The tree is built from a [check.Report] lazily, in three tiers. At
// mount, newRoot builds only the tree's own files and directories, as
// plain entries (tree.go). The tensors' directories are not entries:
// each directory of the tensor paths is a span of the model's sorted
// tensor list, and a tensor's directory and its files are made when the
// kernel looks them up (tensortree.go, tensorfiles.go); by-name/ and
// expected/ are made when first used and dropped again once the mount is
// idle (lazyDir). go-fuse inodes are made only for the entries the kernel
// looks up, and the least recently looked up are given back to the
// kernel beyond a bound (prune.go); the decoded views of the tensors used
// last are kept, to a bound (viewCache). Both orders are internal/lru's.
// Every tensor is a directory holding shape, dtype, data
// and location, and its decoded views (values, values.f32, values.npy,
// stats, sha256, hist; package views), pictures and page (heatmap.png,
// hist.png, index.html; packages render and site): 13 files, made on
// lookup (tensorfiles.go). verdict, report, config.json, shapes, stats,
// expected/, by-name/, files/, index.html and overview.png sit at the top,
// with metadata/ and tokenizer/ for GGUF, modules/ for a
// sentence-transformers repository, optim/ and extra/ for a Distributed
// Checkpoint's other state, and compare/ with Options.Compare; with
// Options.Adapter each adapted module's directory gets lora/. Where every
// path is, and the names the tree reserves,
// are package layout's; building fails if two entries of a directory
// share a name. The package never parses a file: it presents what the
// format, model and check packages found.
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
// an hour. OPENDIR is answered ENOSYS (unasked.go), which puts the
// kernel in no-opendir mode: it caches listings and sends no OPENDIR or
// RELEASEDIR. Files answer OPEN and FLUSH with ENOSYS, which puts it in
// no-open mode: it stops sending OPEN, FLUSH and RELEASE and keeps file
// pages cached across opens. GETXATTR and LISTXATTR are answered ENOSYS
// too (the mount has no extended attributes), after which the kernel
// answers them itself: `ls -l` asks for two or three per entry. The mount
// is MS_RDONLY when mounted
// directly, which also spares an atime GETATTR per read. README.md in
// this directory has the measurements behind each choice.
//
// # Passthrough
//
// With Options.Passthrough, and only where the kernel grants it, files/
// of a local model is served by kernel FUSE passthrough (passthrough.go):
// the OPEN reply names the model file as the backing file and the kernel
// reads it itself, at the speed of a direct read, sending no READ. That
// needs an OPEN reply, and no-open mode is per connection, so such a
// mount answers OPEN for every file (open mode): files/ entries with a
// backing file, every other file with no handle and FOPEN_KEEP_CACHE,
// which keeps pages across opens as no-open mode does; FLUSH still
// answers ENOSYS. Each open then costs an OPEN and a RELEASE, which makes
// a cat of many small files several times slower (README.md has the
// measurement): passthrough is not the default. Whether the kernel grants it is found out once, after INIT and
// before any OPEN is answered, by registering every local model file as
// a backing file and giving it back; if any is refused (not root, no
// CONFIG_FUSE_PASSTHROUGH, a file on overlayfs) or the model is remote,
// the mount is in no-open mode as without the option, and says why on
// Options.Logger. Passthrough reads bypass the daemon, so a model file
// changed since mounting fails a new open of its files/ entry with EIO,
// but a file already open reads what is on disk.
package fusefs
