package pytorch

// LazyHeaders reports, for tests, how many local headers of f's storages
// are left to check before its bytes are read, and whether its tensors'
// File keeps a local file's fd and mapping.
func LazyHeaders(f *File) (n int, local bool) {
	switch d := f.data.(type) {
	case *lazyLocal:
		return len(d.lazy.ents), true
	case *lazyFile:
		return len(d.lazy.ents), false
	}
	return 0, false
}
