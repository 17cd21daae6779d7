package gguf

import (
	"errors"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/tensor"
)

const realFile = "testdata/llama-2-tiny-random.gguf"

func mustParse(t testing.TB, g *gfile) *File {
	t.Helper()
	f, err := NewFile(newMemFile("test.gguf", g.bytes()))
	if err != nil {
		t.Fatalf("NewFile: %v", err)
	}
	return f
}

func TestRealFile(t *testing.T) {
	f, err := Open(realFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, kv := range f.Metadata() {
		s := kv.Value.String()
		if len(s) > 60 {
			s = s[:60] + "…"
		}
		t.Logf("%s %s = %q", kv.Key, kv.Value.describe(), s)
	}
	for _, tt := range f.Tensors() {
		t.Logf("%s %s %s off %d len %d", tt.Name, tt.DType, tensor.FormatShape(tt.Shape), tt.Offset, tt.Length)
	}
	t.Logf("version %d align %d data %d params %d warnings %q", f.Version(), f.Alignment(), f.DataOffset(), f.ParameterCount(), f.Warnings())
}

var _ = errors.Is
var _ = strings.Contains
