package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The list of fully checked architectures in docs/architectures.md and the
// count README gives come from the same table as `fsinspect
// --architectures`: this test renders the list from the built binary's
// --json output and fails when the documents say anything else.
// FSMOUNT_WRITE_DOCS=1 rewrites the list and README's count.

const (
	archListBegin = "<!-- generated from fsinspect --architectures --json: do not edit (FSMOUNT_WRITE_DOCS=1 go test -run TestArchitecturesDocumented ./e2e) -->"
	archListEnd   = "<!-- end of generated list -->"
)

// readmeCount is README's sentence with the counts.
var readmeCount = regexp.MustCompile(`\*\*(\d[\d,]*) classes of (\d[\d,]*) model types\*\*`)

func TestArchitecturesDocumented(t *testing.T) {
	if _, err := os.Stat(repoPath("docs", "architectures.md")); errors.Is(err, fs.ErrNotExist) && os.Geteuid() != 0 {
		// ./test.sh's unprivileged run gets a copy of the testdata alone;
		// its first e2e run, as root, reads the repository's documents.
		t.Skip("SKIPPING: the documents are checked by the root run (the unprivileged run has no docs/)")
	}
	r := runCmd(t, "fsinspect", "--architectures", "--json")
	require.Zero(t, r.code, r.stderr)
	var rows []struct {
		ModelType string `json:"model_type"`
		Class     string `json:"class"`
		Spec      string `json:"spec"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rows))
	require.NotEmpty(t, rows)

	// One line per model type: its spec and its classes.
	type entry struct {
		spec    string
		classes []string
	}
	byType := map[string]*entry{}
	var types []string
	for _, row := range rows {
		e := byType[row.ModelType]
		if e == nil {
			e = &entry{spec: row.Spec}
			byType[row.ModelType] = e
			types = append(types, row.ModelType)
		}
		e.classes = append(e.classes, row.Class)
	}
	slices.Sort(types)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%d classes of %d model types.\n\n| model_type | spec | classes |\n|---|---|---|\n",
		archListBegin, len(rows), len(types))
	for _, mt := range types {
		e := byType[mt]
		slices.Sort(e.classes)
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", mt, e.spec, strings.Join(e.classes, ", "))
	}
	b.WriteString(archListEnd)
	want := b.String()
	count := fmt.Sprintf("**%s classes of %s model types**", commas(len(rows)), commas(len(types)))

	docPath, readmePath := repoPath("docs", "architectures.md"), repoPath("README.md")
	doc, err := os.ReadFile(docPath)
	require.NoError(t, err)
	readme, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	i, j := strings.Index(string(doc), archListBegin), strings.Index(string(doc), archListEnd)
	require.True(t, i >= 0 && j > i, "docs/architectures.md has no generated list between %q and %q", archListBegin, archListEnd)
	got := string(doc[i : j+len(archListEnd)])
	m := readmeCount.FindString(string(readme))
	require.NotEmpty(t, m, "README.md says nowhere %q", count)

	if os.Getenv("FSMOUNT_WRITE_DOCS") == "1" {
		require.NoError(t, os.WriteFile(docPath, []byte(string(doc[:i])+want+string(doc[j+len(archListEnd):])), 0o644))
		require.NoError(t, os.WriteFile(readmePath, []byte(strings.Replace(string(readme), m, count, 1)), 0o644))
		return
	}
	assert.Equal(t, want, got, "docs/architectures.md's list is not what fsinspect --architectures says: FSMOUNT_WRITE_DOCS=1 rewrites it")
	assert.Equal(t, count, m, "README.md's count is not what fsinspect --architectures says: FSMOUNT_WRITE_DOCS=1 rewrites it")
}

// commas writes n with thousands separators, as README does.
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
