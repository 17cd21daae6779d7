// Package check decides whether a model's files hold what its config.json
// implies, and reports it.
//
// [Check] takes an opened [model.Model] (its tensors from safetensors,
// GGUF or PyTorch files, whichever format package read them), asks
// package spec for the tensor set the architecture implies, resolves it
// against the files (a format's own names, transformers 5.x's layouts,
// each quantized weight's tensors as package quantconfig's rules give
// them (quant.go), what transformers ignores on load) and
// returns a [Report]: problems, notes, parameter counts, and the report
// that fsinspect prints and the mount serves ([Report.Text],
// [Report.JSON], each tensor's path in the tree from package layout:
// [Report.Paths]). A model whose architecture has no spec gets a
// structural check instead (structural.go: layers 0..L-1, layers of a
// kind alike, embedding rows, tied head); [Report.Depth] says which check
// ran.
//
// Data flows one way: model opens and validates the files through the
// format packages, spec says what the config implies, this package judges
// the files against it, and the commands or the fusefs package present
// the verdict. Nothing here mounts or parses a file's bytes, and no format
// package is imported (a test in internal/importclaims checks).
package check
