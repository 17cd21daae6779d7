// Package fusefs serves a checked model as a read-only FUSE tree.
//
// The tree is built once, when the root is added, from a [spec.Report]:
// every tensor is a directory holding shape, dtype and data; verdict,
// report, config.json, shapes, expected/ and by-name/ sit at the top. The
// package never parses a file: it presents what the safetensors and spec
// packages found.
//
// # Zero copy
//
// A data file's bytes are a slice of the model's read-only mapping, handed
// to the kernel as is (fuse.ReadResultData); nothing is copied onto the
// heap, and the daemon's anonymous memory does not grow with what is read.
//
// # Kernel caching
//
// Nothing in the tree changes while it is mounted, so every cache is
// allowed to keep everything: entry, attribute and negative timeouts are
// an hour, directories are opened with FOPEN_CACHE_DIR, and files answer
// OPEN and FLUSH with ENOSYS, which puts the kernel in no-open mode: it
// stops sending OPEN, FLUSH and RELEASE and keeps file pages cached across
// opens. The mount is MS_RDONLY, which also spares an atime GETATTR per
// read. See README.md in this directory for the measurements behind each
// choice.
package fusefs
