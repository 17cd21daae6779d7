package main

import (
	"context"
	"fmt"
	"io"

	"github.com/fsmount/fsmount/internal/cli"
	"github.com/fsmount/fsmount/internal/scan"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/internal/merge"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source/remote"
)

// runAdapter checks the adapter at loc and prints its report; with
// doScan, also the values of its stored tensors (a NaN or Inf in a factor
// makes every merge with it garbage).
func runAdapter(loc, base string, asJSON, doScan bool, ro *remote.Options, stdout, stderr io.Writer) int {
	a, b, why, err := openAdapter(loc, base, true, ro)
	if err != nil {
		return invalid(stderr, err)
	}
	defer closeAdapter(a, b)
	r := adapter.Check(a, b, why)
	code := cli.VerdictCode(r.Clean(), !r.Partial())
	var scanAdapter func(p func(done, total int64)) (*scan.Result, error)
	if doScan {
		scanAdapter = func(p func(done, total int64)) (*scan.Result, error) {
			return scan.Tensors(context.Background(), a.Tensors, a.Tensor, nil, nil, scan.Options{Progress: p})
		}
	}
	return printVerdict(r, code, asJSON, scanAdapter, stdout, stderr)
}

// openAdapter opens the adapter at loc and its base: the one named, else
// the one its config names where that can be opened (nil, and why not,
// where it cannot); with shapes, a base given as its config.json alone
// is its shapes (adapter.OpenBaseShapes). closeAdapter closes both.
func openAdapter(loc, base string, shapes bool, ro *remote.Options) (*adapter.Adapter, *model.Model, string, error) {
	a, err := adapter.Open(loc, ro)
	if err != nil {
		return nil, nil, "", err
	}
	open := adapter.OpenBase
	if shapes {
		open = adapter.OpenBaseShapes
	}
	b, why, err := open(a, base, ro)
	if err != nil {
		a.Close()
		return nil, nil, "", err
	}
	return a, b, why, nil
}

func closeAdapter(a *adapter.Adapter, b *model.Model) {
	if b != nil {
		b.Close()
	}
	a.Close()
}

// runMerge proves that merged is base + the adapter's deltas.
func runMerge(merged, loc, base string, asJSON bool, ro *remote.Options, stdout, stderr io.Writer) int {
	a, b, why, err := openAdapter(loc, base, false, ro)
	if err != nil {
		return invalid(stderr, err)
	}
	defer closeAdapter(a, b)
	if b == nil {
		fmt.Fprintf(stderr, "fsinspect: --compare with an adapter needs its base: %s\n", why)
		return cli.ExitUsage
	}
	m, err := model.OpenWith(merged, ro)
	if err != nil {
		return invalid(stderr, err)
	}
	defer m.Close()
	r := adapter.Check(a, b, "")
	if !r.Clean() {
		io.WriteString(stdout, r.Text())
		fmt.Fprintf(stderr, "fsinspect: the adapter does not fit the base: no merge to prove\n")
		return cli.ExitProblems
	}
	res, err := withBar(stderr, "proving the merge", func(p func(done, total int64)) (*merge.Result, error) {
		return merge.Prove(r, m, &merge.Options{Progress: p})
	})
	if err != nil {
		return invalid(stderr, err)
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
