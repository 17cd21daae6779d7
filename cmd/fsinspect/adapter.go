package main

import (
	"fmt"
	"github.com/fsmount/fsmount/internal/cli"
	"io"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/internal/merge"
	"github.com/fsmount/fsmount/internal/progress"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source/remote"
)

// runAdapter checks the adapter at loc and prints its report.
func runAdapter(loc, base string, asJSON bool, ro *remote.Options, stdout, stderr io.Writer) int {
	a, err := adapter.Open(loc, ro)
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return cli.ExitInvalid
	}
	defer a.Close()
	b, why, err := adapter.OpenBase(a, base, ro)
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return cli.ExitInvalid
	}
	if b != nil {
		defer b.Close()
	}
	r := adapter.Check(a, b, why)
	if asJSON {
		stdout.Write(r.JSON())
	} else {
		io.WriteString(stdout, r.Text())
	}
	switch {
	case !r.Clean():
		return cli.ExitProblems
	case r.Partial():
		return cli.ExitSkipped
	}
	return cli.ExitOK
}

// runMerge proves that merged is base + the adapter's deltas.
func runMerge(merged, loc, base string, asJSON bool, ro *remote.Options, stdout, stderr io.Writer) int {
	a, err := adapter.Open(loc, ro)
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return cli.ExitInvalid
	}
	defer a.Close()
	b, why, err := adapter.OpenBase(a, base, ro)
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return cli.ExitInvalid
	}
	if b == nil {
		fmt.Fprintf(stderr, "fsinspect: --compare with an adapter needs its base: %s\n", why)
		return cli.ExitUsage
	}
	defer b.Close()
	m, err := model.OpenWith(merged, ro)
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return cli.ExitInvalid
	}
	defer m.Close()
	r := adapter.Check(a, b, "")
	if !r.Clean() {
		io.WriteString(stdout, r.Text())
		fmt.Fprintf(stderr, "fsinspect: the adapter does not fit the base: no merge to prove\n")
		return cli.ExitProblems
	}
	bar := progress.New(stderr, "proving the merge")
	res, err := merge.Prove(r, m, &merge.Options{Progress: bar.Update})
	bar.Done()
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return cli.ExitInvalid
	}
	if asJSON {
		stdout.Write(res.JSON())
	} else {
		io.WriteString(stdout, res.Text())
	}
	if !res.OK() {
		return cli.ExitProblems
	}
	return cli.ExitOK
}
