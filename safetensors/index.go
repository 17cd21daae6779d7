package safetensors

// Index is a parsed model.safetensors.index.json.
type Index struct {
	Path      string
	TotalSize *uint64           // metadata.total_size, if present
	WeightMap map[string]string // tensor name → shard file name
}

func openIndexed(dir, path string) (*Checkpoint, error) {
	return nil, formatErr(path, CodeInvalidIndex, "", "sharded checkpoints are not supported yet")
}
