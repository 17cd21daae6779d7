// Package remote reads a model's files over HTTP(S) with range requests,
// as a [source.FS]: a directory URL (http://host/dir/), a single file's URL,
// or a Hugging Face Hub repository (hf://ORG/NAME[@REVISION], resolved
// against HF_ENDPOINT as /ORG/NAME/resolve/REVISION/FILE). See
// [ParseLocation] and [New].
//
// # Requests
//
// [FS.Open] sends one request, a GET of the file's first chunk
// (Range: bytes=0-1048575 by default): its Content-Range gives the size,
// its ETag and Last-Modified the version, and its bytes hold a safetensors
// file's length prefix and, for a header under a mebibyte, the whole
// header. So reading config.json, the index and every shard's header takes
// one request per file, two for a shard whose header is longer (the rest
// of the header is one request however many chunks it spans). Later reads
// fetch aligned chunks, one request per run of missing chunks, with a
// readahead window that grows while reads are sequential (up to
// Options.MaxReadahead) and slides with the reader: each read looks over
// the whole window, past what is cached or in flight, and asks for the
// missing units of half the window (aligned to them) in the background,
// so that requests stay in flight while the reader consumes what earlier
// ones brought. Concurrent readers of a chunk share one request.
// Shards are opened concurrently by the caller (package model, with a
// bound). All requests of an FS go through one http.Client whose Transport
// keeps up to Options.MaxConnsPerHost connections per host alive.
//
// # Caching
//
// Chunks are kept in a memory LRU (Options.MemCacheSize) and on disk under
// Options.CacheDir (default $XDG_CACHE_HOME/fsmount, ~/.cache/fsmount or
// $XDG_RUNTIME_DIR/fsmount; with none of these set, no disk cache, which
// FS.Warnings tells), evicting least recently used chunks beyond
// Options.CacheSize. A chunk is cached under a hash of the URL, ETag, size
// and chunk size, with a CRC-32C checked when it is read back, so a
// replaced file never serves the old file's chunks as its own. On disk a
// version's chunks are one sparse file and an index of their checksums
// (disk.go); eviction punches holes. Whole chunks are written with
// O_DIRECT where the filesystem allows it, so that streaming a tensor does
// not copy every byte into the page cache a second time, and the chunks
// of a stream queued together go to the disk as one write (a run of up
// to 16), not one per chunk. Files without a
// strong ETag are not cached on disk, nor is a file's first chunk (every
// open fetches it anyway). Each open file also pins its first chunk in
// memory (within a budget of 256 MiB per FS). The cache removes only the
// files it wrote (an index with its magic, and its data file); the
// directory gets a CACHEDIR.TAG.
//
// The hash and the checksum are no secret: anyone can compute them. So the
// disk cache trusts only what nobody else can write: New refuses a cache
// directory that is not the user's, or that group or others may write, or
// that sits under a directory (or a symlink) of another user's or a
// writable one that is not sticky; each cache file is opened without
// following symlinks and used only if it is a regular file of the user's
// with one link, else removed unread.
//
// # Buffers
//
// A chunk's bytes are a reference-counted buffer (buf.go), taken from the
// pool when the chunk's bytes arrive (a request for a run does not take
// all its arrays up front), held by the fetch that filled it until the
// readers waiting for that chunk have it, by the memory cache,
// by the disk cache's writer, and by each reader while it copies or, for
// [File.Lend], until the FUSE reply written from them is sent. The last
// release returns a full-size array to its FS's pool, which carves
// arrays from huge-page mappings outside the Go heap (slab.go) and gives
// whole mappings back to the system when the daemon is idle
// ([File.Trim]). Streaming a tensor thus fills the same few dozen arrays
// again and again instead of faulting in fresh memory per chunk.
//
// # Faults
//
// 5xx, 408 and 429 answers, network errors, bodies cut short and stalled
// bodies are retried (Options.MaxRetries) with exponential backoff,
// honouring Retry-After up to Options.MaxRetryAfter; a body cut short is
// resumed where it stopped. Connecting, waiting for headers and waiting
// for the next body bytes each have a timeout, and one fetch with all its
// retries is bounded by Options.ReadTimeout: a read of a server that is
// down fails within it, and works again once the server is back. Every
// request after a file's first carries If-Range with its ETag (from a
// server that sends none, its Last-Modified date, if a minute older than
// the server's Date, as RFC 9110 asks of a strong validator), and every
// answer is checked: a 200 to a range request, a Content-Range other than
// the range asked for, a Content-Length or Content-Encoding that does not
// fit it, or another size, ETag or Last-Modified is an error, never wrong
// bytes. A server that sends neither validator cannot have a file
// replaced at the same size detected: [File.Validator] tells, and package
// model warns. A redirect to a scheme other than http(s) is a bad
// location at once. Errors are [*Error] values with a stable [Code] and
// the file's URL.
//
// # Security
//
// Options.Token (HF_TOKEN for the Hub) is sent as a bearer token, and a
// Store's signature (S3's credentials) added, only to the base URL's
// origin, on every hop of a redirect chain checked anew, so the storage
// host the Hub redirects to, or any host an endpoint redirects to, never
// sees them. Tokens and URL
// passwords never appear in errors or in String and Name. Sizes and ranges
// in answers are checked before anything is allocated from them; buffers
// are bounded by the chunk size and 16 MiB per request.
package remote
