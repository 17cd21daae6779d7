package spec

// CompileFamilies compiles every registered family (families compile on
// first use, so a malformed one would otherwise only show when a model of
// its type is checked).
func CompileFamilies() error {
	tableMu.Lock()
	defer tableMu.Unlock()
	for _, f := range allFamilies() {
		if err := f.ready(); err != nil {
			return err
		}
	}
	return nil
}
