package importclaims

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mod = "github.com/fsmount/fsmount/"

// formats are the packages that parse a file format, and the HTTP
// source: what model joins and no checking or serving package sees.
var formats = []string{mod + "gguf", mod + "safetensors", mod + "pytorch", mod + "dcp", mod + "source/remote"}

// goList runs go list with args and returns the words it prints.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	require.NoError(t, err, "go list %v", args)
	return strings.Fields(string(out))
}

// importsOf is every package's direct imports, from one go list.
var importsOf map[string][]string

func imports(t *testing.T, pkg string) []string {
	t.Helper()
	if importsOf == nil {
		out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"...").Output()
		require.NoError(t, err)
		importsOf = map[string][]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(l)
			importsOf[f[0]] = f[1:]
		}
	}
	is, ok := importsOf[mod+pkg]
	require.True(t, ok, "no package %s", pkg)
	return is
}

func deps(t *testing.T, pkg string) []string { return goList(t, "-deps", mod+pkg) }

// public are the library's packages, what a Go program imports
// (ARCHITECTURE.md, "Public and internal").
var public = []string{"tensor", "source", "source/remote", "source/s3", "safetensors", "gguf", "pytorch", "dcp", "model", "spec", "check", "adapter", "fusefs"}

func TestClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	// 1. fsinspect names the tree's paths without linking FUSE.
	for _, d := range deps(t, "cmd/fsinspect") {
		assert.False(t, strings.HasPrefix(d, "github.com/hanwen/go-fuse"), "fsinspect links %s", d)
	}
	// 2. Formats are joined in model alone: no other library package
	// imports one (commands import source/remote for its options; test
	// support writes safetensors files).
	all := goList(t, mod+"...")
	require.Greater(t, len(all), 20, "go list found the packages")
	for _, p := range all {
		// adapter opens an adapter's files as model opens a model's.
		if strings.HasPrefix(p, mod+"cmd/") || p == mod+"model" || p == mod+"adapter" || p == mod+"internal/testmodel" || p == mod+"e2e" || p == mod+"bench" || slices.Contains(formats, p) {
			continue
		}
		for _, f := range formats {
			// source/s3 is source/remote with S3's signing and listing.
			if f == mod+"safetensors" && p == mod+"source/remote" || f == mod+"source/remote" && p == mod+"source/s3" {
				continue
			}
			assert.NotContains(t, imports(t, strings.TrimPrefix(p, mod)), f, "%s imports a format package", p)
		}
	}
	// 3. spec, check and fusefs see tensors as tensor.Tensor and files as
	// source.File: none imports a format package (they reach the formats
	// only through model, which they take as an argument).
	for _, p := range []string{"spec", "check", "fusefs"} {
		for _, f := range formats {
			assert.NotContains(t, imports(t, p), f, "%s imports %s", p, f)
		}
	}
	// 4. Below model, nothing depends on a format, on model or on FUSE, at
	// any depth: the neutral tensor, the local source, the tree's layout,
	// the quantization config, decoding, the views and the pictures.
	for _, p := range []string{"tensor", "source", "internal/layout", "internal/quantconfig", "internal/numfmt",
		"internal/mountinfo", "internal/lru", "internal/par", "internal/quant", "internal/decode", "internal/views", "internal/render", "internal/download"} {
		for _, d := range deps(t, p) {
			assert.NotContains(t, append(formats, mod+"model", mod+"spec", mod+"check"), d, "%s depends on %s", p, d)
			assert.False(t, strings.HasPrefix(d, "github.com/hanwen/go-fuse"), "%s depends on %s", p, d)
		}
	}
	// 5. Only the daemon's packages link FUSE: fusefs, fsmount and the
	// FUSE test harness.
	for _, p := range all {
		switch p {
		case mod + "fusefs", mod + "cmd/fsmount", mod + "internal/fusetest", mod + "e2e", mod + "bench":
			continue
		}
		for _, i := range imports(t, strings.TrimPrefix(p, mod)) {
			assert.False(t, strings.HasPrefix(i, "github.com/hanwen/go-fuse"), "%s imports %s", p, i)
		}
	}
	// 6. The library (the top-level packages a Go program imports) never
	// imports a command or test support.
	for _, p := range public {
		for _, d := range deps(t, p) {
			assert.False(t, strings.HasPrefix(d, mod+"cmd/"), "%s depends on %s", p, d)
			for _, ts := range []string{"internal/testmodel", "internal/fusetest", "internal/nginxtest", "internal/s3test", "internal/importclaims"} {
				assert.NotEqual(t, mod+ts, d, "%s depends on test support", p)
			}
		}
	}
	// 7. What a config implies is decided without the checker: spec
	// depends on no package that judges files or presents a report.
	for _, d := range deps(t, "spec") {
		for _, p := range []string{"check", "fusefs", "internal/site", "internal/scan", "adapter"} {
			assert.NotEqual(t, mod+p, d, "spec depends on %s", p)
		}
	}
	// 8. The public API exposes no internal type: no declaration that go
	// doc shows for a public package (its exported types, functions,
	// methods and fields; doc text and comments aside) names a type of a
	// package under internal/.
	var internals []string
	for _, p := range all {
		if rest, ok := strings.CutPrefix(p, mod+"internal/"); ok {
			internals = append(internals, rest[strings.LastIndex(rest, "/")+1:])
		}
	}
	internalType := regexp.MustCompile(`\b(` + strings.Join(internals, "|") + `)\.[A-Z]`)
	for _, p := range public {
		out, err := exec.Command("go", "doc", "-all", mod+p).Output()
		require.NoError(t, err, "go doc -all %s", p)
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "    ") || strings.HasPrefix(strings.TrimSpace(l), "//") {
				continue // doc text
			}
			assert.False(t, internalType.MatchString(l), "%s exposes an internal type: %s", p, strings.TrimSpace(l))
		}
	}
}
