// Package spec decides what a model's files should hold and whether they
// do.
//
// It parses config.json strictly ([ParseConfig]), derives the tensor set the
// architecture implies ([Expect]), checks an opened [model.Model] (its
// tensors from safetensors or GGUF files, whichever format package read
// them) against it ([Check]) and renders the result as the report that
// fsinspect prints and the mount serves ([Report.Text], [Report.JSON],
// each tensor's path in the tree from package layout: [Report.Paths]).
// What the quantization config means is package quantconfig's.
//
// Architectures are data: each family (families_*.go) is a table entry
// of config fields with their class defaults and tensor templates, built
// from the shared blocks of blocks.go and evaluated by a small expression
// language (expr.go); ADDING.md says how to add one, [Architectures] lists
// them. A model whose architecture has no family gets a structural check
// instead (structural.go: layers 0..L-1, layers of a kind alike, embedding
// rows, tied head); [Report.Depth] says which check ran.
//
// Data flows one way: model opens and validates the files through the
// format packages, this package judges them, and the commands or the
// fusefs package present the verdict. Nothing here mounts or parses a
// file's bytes, and no format package is imported (a test in
// internal/importclaims checks).
package spec
