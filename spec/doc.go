// Package spec decides what a model's files should hold and whether they
// do.
//
// It parses config.json strictly ([ParseConfig]), derives the tensor set the
// architecture implies ([Expect]), checks the opened safetensors files
// against it ([Check]) and renders the result as the report that fsinspect
// prints and the mount serves ([Report.Text], [Report.JSON]).
//
// Data flows one way: the safetensors package opens and validates the
// files, this package judges them, and the commands or the fusefs package
// present the verdict. Nothing here mounts or parses safetensors bytes.
package spec
