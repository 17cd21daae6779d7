package spec_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// TestMeasureReference is a measuring harness, not a gate:
// with FSMOUNT_REFERENCE set to the shared reference directory (the one
// holding layouts/ and layouts-more/), it checks every layout there and
// prints, by mapping, how many classes check fully (exit 0), falsely fail
// (exit 1) or are only partly checked (exit 3). FSMOUNT_MEASURE_LIST=1
// also lists each class that is not full with its first problem.
//
//	FSMOUNT_REFERENCE=/work/shared/reference go test -count=1 -run TestMeasureReference -v ./spec/
func TestMeasureReference(t *testing.T) {
	root := os.Getenv("FSMOUNT_REFERENCE")
	if root == "" {
		t.Skip("FSMOUNT_REFERENCE is not set")
	}
	type class struct {
		key, mapping string
		dirs         []string
	}
	var classes []*class
	add := func(key, mapping string, dir string) {
		vs, _ := filepath.Glob(filepath.Join(dir, "*", "tensors.tsv"))
		c := &class{key: key, mapping: mapping}
		for _, v := range vs {
			c.dirs = append(c.dirs, filepath.Dir(v))
		}
		if len(c.dirs) > 0 {
			classes = append(classes, c)
		}
	}
	archs, _ := filepath.Glob(filepath.Join(root, "layouts", "*", "a"))
	for _, a := range archs {
		arch := filepath.Base(filepath.Dir(a))
		add("layouts/"+arch, "layouts:CAUSAL_LM|IMAGE_TEXT_TO_TEXT", filepath.Dir(a))
	}
	mappings := moreMappings(t, filepath.Join(root, "layouts-more", "README.md"))
	more, _ := filepath.Glob(filepath.Join(root, "layouts-more", "*", "*", "b"))
	for _, a := range more {
		cl := filepath.Dir(a)
		mt := filepath.Base(filepath.Dir(cl))
		m := mappings[mt+"/"+filepath.Base(cl)]
		if m == "" {
			m = "?"
		}
		add("layouts-more/"+mt+"/"+filepath.Base(cl), "more:"+m, cl)
	}
	const (
		full, fail, partial, invalid = "full", "fail", "partial", "invalid"
	)
	counts := map[string]map[string]int{}
	total := map[string]int{}
	var list []string
	for _, c := range classes {
		outcome, why := full, ""
		for _, d := range c.dirs {
			o, w := measureOne(d)
			rank := map[string]int{full: 0, partial: 1, invalid: 2, fail: 3}
			if rank[o] > rank[outcome] {
				outcome, why = o, filepath.Base(d)+": "+w
			}
		}
		if counts[c.mapping] == nil {
			counts[c.mapping] = map[string]int{}
		}
		counts[c.mapping][outcome]++
		total[outcome]++
		if outcome != full {
			list = append(list, fmt.Sprintf("%-8s %s  %s", outcome, c.key, why))
		}
	}
	var ms []string
	for m := range counts {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool {
		a, b := counts[ms[i]], counts[ms[j]]
		na, nb := a[full]+a[fail]+a[partial]+a[invalid], b[full]+b[fail]+b[partial]+b[invalid]
		if na != nb {
			return na > nb
		}
		return ms[i] < ms[j]
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%-45s %6s %6s %6s %6s\n", "mapping (first)", "full", "fail", "exit3", "inval")
	for _, m := range ms {
		c := counts[m]
		fmt.Fprintf(&b, "%-45s %6d %6d %6d %6d\n", m, c[full], c[fail], c[partial], c[invalid])
	}
	fmt.Fprintf(&b, "%-45s %6d %6d %6d %6d   (%d classes)\n", "total", total[full], total[fail], total[partial], total[invalid], len(classes))
	t.Log("\n" + b.String())
	if os.Getenv("FSMOUNT_MEASURE_LIST") != "" {
		slices.Sort(list)
		t.Log("\n" + strings.Join(list, "\n"))
	}
}

// TestMeasureDir checks every layout under FSMOUNT_MEASURE_DIR (a
// directory holding tensors.tsv and config.json, or the oracle's
// config.saved.json) and lists the ones not fully checked: how oracle
// outputs for fuzzed configs are tried.
//
//	FSMOUNT_MEASURE_DIR=/tmp/fuzz-out go test -count=1 -run TestMeasureDir -v ./spec/
func TestMeasureDir(t *testing.T) {
	root := os.Getenv("FSMOUNT_MEASURE_DIR")
	if root == "" {
		t.Skip("FSMOUNT_MEASURE_DIR is not set")
	}
	counts := map[string]int{}
	var list []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "tensors.tsv" {
			return err
		}
		o, why := measureOne(filepath.Dir(p))
		counts[o]++
		if o != "full" {
			list = append(list, fmt.Sprintf("%-8s %s  %s", o, filepath.Dir(p), why))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(list)
	t.Logf("full %d, fail %d, partial %d, invalid %d\n%s", counts["full"], counts["fail"], counts["partial"], counts["invalid"], strings.Join(list, "\n"))
}

// measureOne checks one layout directory: full (exit 0), fail (exit 1),
// partial (exit 3) or invalid (exit 2), with the first problem.
func measureOne(dir string) (string, string) {
	cfg, err := os.ReadFile(filepath.Join(dir, "config.saved.json"))
	if err != nil {
		cfg, err = os.ReadFile(filepath.Join(dir, "config.json"))
	}
	if err != nil {
		return "invalid", err.Error()
	}
	tsv, err := os.ReadFile(filepath.Join(dir, "tensors.tsv"))
	if err != nil {
		return "invalid", err.Error()
	}
	ts, err := testmodel.ParseTensorsTSV(tsv)
	if err != nil {
		return "invalid", err.Error()
	}
	m, err := testmodel.OpenHeaderOnly(cfg, ts)
	if err != nil {
		return "invalid", err.Error()
	}
	defer m.Close()
	r, err := check.Check(m)
	if err != nil {
		return "invalid", err.Error()
	}
	switch {
	case !r.Clean():
		p := r.Problems[0]
		return "fail", fmt.Sprintf("%d problems; %s: %s", len(r.Problems), p.Tensor, p.Detail)
	case r.Depth != check.DepthFull:
		return "partial", r.Skipped
	}
	return "full", ""
}

// moreMappings reads layouts-more's README class table: model_type
// dir/class → the first mapping naming the class.
func moreMappings(t *testing.T, readme string) map[string]string {
	f, err := os.Open(readme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "|")
		if len(cols) < 6 {
			continue
		}
		dir, cl, ms := strings.TrimSpace(cols[1]), strings.TrimSpace(cols[2]), strings.TrimSpace(cols[4])
		if ms == "" || strings.Contains(ms, " ") {
			continue
		}
		out[dir+"/"+cl] = strings.Split(ms, ",")[0]
	}
	return out
}
