package par_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/par"
)

// TestGroupRaisesPanic: a panic on a group's goroutine is raised again
// by Wait, as a *par.Panic holding the value and the worker's stack.
func TestGroupRaisesPanic(t *testing.T) {
	var g par.Group
	g.Go(func() {})
	g.Go(func() { panic("boom") })
	defer func() {
		p, ok := recover().(*par.Panic)
		require.True(t, ok, "Wait raised no *par.Panic")
		assert.Equal(t, "boom", p.Value)
		assert.Contains(t, string(p.Stack), "panic_test.go")
	}()
	g.Wait()
	t.Fatal("Wait returned after a panic")
}

// TestGoCrashExits70: a panic on a goroutine nobody waits for ends the
// process with CrashCode (70), never Go's 2, which fsinspect uses for an
// invalid model. The crash runs in a child process of this test binary.
func TestGoCrashExits70(t *testing.T) {
	if os.Getenv("PAR_CRASH_CHILD") == "1" {
		done := make(chan struct{})
		par.Go(func() { panic("detached boom") })
		<-done // the crash ends the process
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGoCrashExits70$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PAR_CRASH_CHILD=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "the child did not fail: %v\n%s", err, out)
	assert.Equal(t, par.CrashCode, ee.ExitCode(), "%s", out)
	assert.Contains(t, string(out), "internal error, please report: detached boom")
}

// TestNoGoStatementsElsewhere: every goroutine of the program starts in
// package par, so that its panics read as crashes (exit 70): no go
// statement and no sync.WaitGroup.Go outside it, in library and command
// code (tests, test support and the benchmark may start their own).
func TestNoGoStatementsElsewhere(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	skip := []string{"internal/par", "internal/testmodel", "internal/fusetest", "internal/nginxtest", "internal/s3test", "bench", "e2e", ".git", "testdata"}
	var found []string
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			for _, s := range skip {
				if rel == s || strings.HasSuffix(rel, "/"+s) && s == "testdata" {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				found = append(found, fset.Position(n.Pos()).String()+": go statement")
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" {
					if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "par" {
						// A method Go on something else: a WaitGroup, or a
						// par.Group/Limit value, which is fine; say which.
						if isWaitGroup(f, sel) {
							found = append(found, fset.Position(n.Pos()).String()+": sync.WaitGroup.Go")
						}
					}
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, found, "start goroutines with par.Go, par.Group or par's pools instead")
}

// isWaitGroup reports whether sel's receiver is declared in f as a
// sync.WaitGroup (a variable or a struct field of that type).
func isWaitGroup(f *ast.File, sel *ast.SelectorExpr) bool {
	name := ""
	switch x := sel.X.(type) {
	case *ast.Ident:
		name = x.Name
	case *ast.SelectorExpr:
		name = x.Sel.Name
	default:
		return false
	}
	wg := false
	ast.Inspect(f, func(n ast.Node) bool {
		var names []*ast.Ident
		var typ ast.Expr
		switch n := n.(type) {
		case *ast.ValueSpec:
			names, typ = n.Names, n.Type
		case *ast.Field:
			names, typ = n.Names, n.Type
		default:
			return true
		}
		if s, ok := typ.(*ast.SelectorExpr); ok && s.Sel.Name == "WaitGroup" {
			for _, id := range names {
				if id.Name == name {
					wg = true
				}
			}
		}
		return true
	})
	return wg
}
