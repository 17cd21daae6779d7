package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/par"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		args     []string
		operands []string
		json     bool
		o        string
	}{
		{[]string{"m", "--json"}, []string{"m"}, true, ""},
		{[]string{"--json", "m", "n"}, []string{"m", "n"}, true, ""},
		{[]string{"m", "-o", "x", "n"}, []string{"m", "n"}, false, "x"},
		{[]string{"--", "-m", "--json"}, []string{"-m", "--json"}, false, ""},
		{[]string{"m", "--", "--json"}, []string{"m", "--json"}, false, ""},
		{[]string{"m", "-o", "--", "--json"}, []string{"m"}, true, "--"},
		{[]string{"m", "--json", "--", "n"}, []string{"m", "n"}, true, ""},
		{nil, nil, false, ""},
	} {
		fl := flag.NewFlagSet("t", flag.ContinueOnError)
		j := fl.Bool("json", false, "")
		o := fl.String("o", "", "")
		got, err := Parse(fl, c.args)
		require.NoError(t, err, c.args)
		assert.Equal(t, c.operands, got, c.args)
		assert.Equal(t, c.json, *j, c.args)
		assert.Equal(t, c.o, *o, c.args)
	}
	fl := flag.NewFlagSet("t", flag.ContinueOnError)
	_, err := Parse(fl, []string{"m", "--nope"})
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "fsx: flag provided but not defined: -nope (see fsx --help)\n", ue.Line("fsx"))
	_, err = Parse(fl, []string{"-help"})
	assert.Equal(t, flag.ErrHelp, err)
}

func TestTimeout(t *testing.T) {
	fl := flag.NewFlagSet("t", flag.ContinueOnError)
	var d Timeout
	fl.Var(&d, "timeout", "")
	got, err := Parse(fl, []string{"m", "--timeout", "1m30s"})
	require.NoError(t, err)
	assert.Equal(t, []string{"m"}, got)
	assert.Equal(t, Timeout(90*time.Second), d)
	assert.Equal(t, "1m30s", d.String())
	for _, bad := range []string{"0", "0s", "-1s", "10", "soon"} {
		_, err := Parse(fl, []string{"m", "--timeout", bad})
		var ue *UsageError
		assert.ErrorAs(t, err, &ue, bad)
	}
}

// TestMainPanic: a panic in a command's body exits ExitInternal, not Go's
// 2 (an invalid model), with the stack on stderr.
func TestMainPanic(t *testing.T) {
	var stderr bytes.Buffer
	code := Main("fsinspect", &stderr, func() int { panic("boom") })
	assert.Equal(t, ExitInternal, code)
	assert.NotEqual(t, ExitInvalid, code)
	assert.True(t, strings.HasPrefix(stderr.String(), "fsinspect: internal error, please report: boom\n"), stderr.String())
	assert.Contains(t, stderr.String(), "goroutine ")
	assert.Contains(t, stderr.String(), "cli.TestMainPanic")

	stderr.Reset()
	assert.Equal(t, ExitSkipped, Main("fsinspect", &stderr, func() int { return ExitSkipped }))
	assert.Empty(t, stderr.String())
}

// TestMainWorkerPanic: a panic on any worker goroutine of the body (each
// of package par's ways to start one) exits ExitInternal too, with the
// worker's stack, never Go's 2.
func TestMainWorkerPanic(t *testing.T) {
	boom := func() { panic("worker boom") }
	for name, body := range map[string]func(){
		"Do": func() {
			par.Do(context.Background(), 4, 100, func(_ context.Context, _, i int) error {
				if i == 57 {
					boom()
				}
				return nil
			})
		},
		"Each":   func() { par.Each(8, 3, func(i int) error { boom(); return nil }) },
		"Ranges": func() { par.Ranges(10, 3, func(w, lo, hi int) { boom() }) },
		"All":    func() { par.All(func() {}, boom) },
		"Limit": func() {
			l := par.NewLimit(2)
			l.Go(boom)
			l.Wait()
		},
	} {
		var stderr bytes.Buffer
		code := Main("fsinspect", &stderr, func() int { body(); return ExitOK })
		assert.Equal(t, ExitInternal, code, name)
		assert.True(t, strings.HasPrefix(stderr.String(), "fsinspect: internal error, please report: worker boom\n"), "%s: %s", name, stderr.String())
		assert.Contains(t, stderr.String(), "worker goroutine:", name)
		assert.Equal(t, par.CrashCode, ExitInternal)
	}
}

// TestExitTable: every code has one meaning in both commands' help and in
// README.md, word for word, and no two rows share a code.
func TestExitTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	seen := map[int]bool{}
	for _, c := range Codes {
		assert.False(t, seen[c.Code], "code %d twice", c.Code)
		seen[c.Code] = true
		assert.NotEmpty(t, c.Fsmount+c.Fsinspect, "code %d", c.Code)
	}
	for _, cmd := range []string{"fsmount", "fsinspect"} {
		assert.True(t, strings.Contains(string(readme), Markdown(cmd)), "README.md must hold %s's exit-code table as cli.Markdown writes it:\n%s", cmd, Markdown(cmd))
		help := strings.Join(strings.Fields(Help(cmd)), " ")
		for _, c := range Codes {
			if s := c.sentence(cmd); s != "" {
				assert.Contains(t, help, fmt.Sprintf("%d %s", c.Code, s))
			}
		}
	}
}

func TestVerdictCode(t *testing.T) {
	assert.Equal(t, ExitOK, VerdictCode(true, true))
	assert.Equal(t, ExitProblems, VerdictCode(false, true))
	assert.Equal(t, ExitProblems, VerdictCode(false, false), "problems found by a structural check are problems")
	assert.Equal(t, ExitSkipped, VerdictCode(true, false), "not checked is not clean")
}
