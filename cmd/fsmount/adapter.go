package main

import (
	"fmt"
	"github.com/fsmount/fsmount/internal/cli"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source/remote"
)

// openAdapter opens and checks the adapter at loc, and the model whose
// tree the mount lays it out in: its base, or, without one, its own
// weights file.
func openAdapter(c *config, loc string, ro *remote.Options) (*adapter.Report, *model.Model, error) {
	a, err := adapter.Open(loc, ro)
	if err != nil {
		return nil, nil, err
	}
	base, why, err := adapter.OpenBase(a, c.base, ro)
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	m := base
	if m == nil {
		if m, err = model.OpenFS(loc, a.Source, adapter.WeightsName); err != nil {
			a.Close()
			return nil, nil, err
		}
	}
	return adapter.Check(a, base, why), m, nil
}

// adapterSummary is the line printed once an adapter is mounted.
func adapterSummary(mnt string, r *adapter.Report) string {
	verdict := "✓ "
	switch n := len(r.Problems); {
	case n > 0:
		verdict = fmt.Sprintf("✗ %d %s, ", n, map[bool]string{true: "problem", false: "problems"}[n == 1])
	case r.Partial():
		verdict = "– partial check (no base), "
	}
	return fmt.Sprintf("mounted %s: %s%s adapter, %d modules, %s params — cat %s/verdict", mnt, verdict, r.Adapter.Config.Kind(), len(r.Modules), shortCount(r.Params), mnt)
}

// adapterCode is the adapter's verdict as an exit status, as fsinspect's:
// a partial check (no base) is not a clean one.
func adapterCode(r *adapter.Report) int { return cli.VerdictCode(r.Clean(), !r.Partial()) }
