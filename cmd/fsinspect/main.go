// Command fsinspect cross-checks a model's files against its config.json
// and prints the report; with --scan it also checks every value, with
// --compare it compares two checkpoints. Its exit code gates a build.
//
// Its exit codes are internal/cli's table (fsinspect --help, README.md).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/cli"
	"github.com/fsmount/fsmount/internal/compare"
	"github.com/fsmount/fsmount/internal/progress"
	"github.com/fsmount/fsmount/internal/scan"
	"github.com/fsmount/fsmount/internal/site"
	"github.com/fsmount/fsmount/internal/version"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source/remote"
	"github.com/fsmount/fsmount/spec"
)

const usage = `usage: fsinspect [--json] [--scan] MODEL
       fsinspect --compare OTHER [--tolerance REL] [--json] MODEL
       fsinspect [--base BASE] [--json] ADAPTER
       fsinspect --base BASE --compare MERGED [--json] ADAPTER
       fsinspect --architectures [--json]

Cross-checks a model against its config.json and prints the report.

MODEL (and OTHER) is a directory holding config.json and model.safetensors
(or model.safetensors.index.json and its shards; or pytorch_model.bin, or
pytorch_model.bin.index.json and its shards, read without running pickle;
or a PyTorch Distributed Checkpoint, .metadata and its .distcp files),
a single .safetensors, .bin, .pt or .pth file, whose tensors are listed
without a cross-check, a .gguf file (or a directory holding one), an
http(s):// URL of any of these, hf://ORG/NAME[@REVISION] (a Hugging Face
Hub repository; HF_ENDPOINT, HF_TOKEN), or s3://BUCKET/PREFIX/ or
s3://BUCKET/KEY (AWS S3 or a store set by AWS_ENDPOINT_URL; AWS
credentials, AWS_PROFILE, AWS_REGION).
Options may come before or after MODEL; -- ends them.

Options:
  --json            print the report (or the comparison) as JSON
  --scan            also read every value: statistics, NaN, Inf, all-zero,
                    constant and duplicate tensors (a "values" section);
                    of an ADAPTER, its stored tensors
  --compare OTHER   compare MODEL with OTHER, tensor by tensor, on the
                    decoded values: relative L2 is |MODEL-OTHER| / |OTHER|
  --tolerance REL   with --compare: exit 1 unless every shared tensor is
                    within relative L2 REL and the tensor names match
  --html DIR        also write the model's site to DIR: index.html (verdict,
                    dimensions, overview.png, every tensor with its health)
                    and a page per tensor with heatmap.png and hist.png, as
                    the mount serves them (DIR must be empty or absent)
  --base BASE       for a LoRA ADAPTER (a directory holding
                    adapter_config.json and adapter_model.safetensors): the
                    base model to check it against (or its config.json
                    alone: the shapes the architecture table derives from
                    it); without it, the base the adapter names when that
                    is a local directory, else a partial check of the
                    adapter alone (exit 3)
  --compare MERGED  with an ADAPTER and its base: prove that MERGED is the
                    base plus the adapter, tensor by tensor, within the
                    merged dtype's rounding (exit 1 naming any that is not)
  --timeout DUR     for a remote MODEL: the longest one read may wait for
                    the server, retries included, before it fails (exit
                    2), e.g. 30s (default 2m); a connection, a response or
                    a stalled body is not waited for longer either. A read
                    fails sooner once its 4 retries (backing off from
                    250 ms, about 4 s in all) are spent
  --no-sign-request for an s3:// MODEL: send requests unsigned, for a
                    public bucket (no credentials are looked for)
  --architectures   list the architectures fully checked (model_type,
                    class, spec), one per line; any other is checked
                    structurally (layers, repeating groups, embeddings)
  --help            show this help
  --version         print the version

A progress bar is drawn on stderr while --scan or --compare reads, when
stderr is a terminal.

`

func main() {
	os.Exit(cli.Main("fsinspect", os.Stderr, func() int { return run(os.Args[1:], os.Stdout, os.Stderr) }))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("fsinspect", flag.ContinueOnError)
	asJSON := fl.Bool("json", false, "")
	showVersion := fl.Bool("version", false, "")
	listArchs := fl.Bool("architectures", false, "")
	doScan := fl.Bool("scan", false, "")
	other := fl.String("compare", "", "")
	htmlDir := fl.String("html", "", "")
	tolerance := fl.Float64("tolerance", -1, "")
	baseLoc := fl.String("base", "", "")
	var timeout cli.Timeout
	fl.Var(&timeout, "timeout", "")
	noSign := fl.Bool("no-sign-request", false, "")
	operands, err := cli.Parse(fl, args)
	var ue *cli.UsageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage+cli.Help("fsinspect"))
		return cli.ExitOK
	case errors.As(err, &ue):
		io.WriteString(stderr, ue.Line("fsinspect"))
		return cli.ExitUsage
	case *showVersion:
		fmt.Fprintf(stdout, "fsinspect %s\n", version.String())
		return cli.ExitOK
	case *listArchs && len(operands) == 0:
		writeArchitectures(stdout, *asJSON)
		return cli.ExitOK
	case *listArchs:
		io.WriteString(stderr, (&cli.UsageError{Msg: "--architectures takes no MODEL"}).Line("fsinspect"))
		return cli.ExitUsage
	case len(operands) != 1:
		msg := fmt.Sprintf("expected one MODEL, got %d arguments", len(operands))
		if len(operands) == 0 {
			msg = "no MODEL given; usage: fsinspect [--json] MODEL"
		}
		io.WriteString(stderr, (&cli.UsageError{Msg: msg}).Line("fsinspect"))
		return cli.ExitUsage
	case *tolerance >= 0 && *other == "":
		io.WriteString(stderr, (&cli.UsageError{Msg: "--tolerance needs --compare OTHER"}).Line("fsinspect"))
		return cli.ExitUsage
	case *other != "" && *doScan:
		io.WriteString(stderr, (&cli.UsageError{Msg: "--scan and --compare are separate runs"}).Line("fsinspect"))
		return cli.ExitUsage
	}
	if *htmlDir != "" {
		if msg := htmlDirUnusable(*htmlDir); msg != "" {
			io.WriteString(stderr, (&cli.UsageError{Msg: msg}).Line("fsinspect"))
			return cli.ExitUsage
		}
	}
	ro := remote.Options{NoSignRequest: *noSign}.WithTimeout(time.Duration(timeout))
	// A remote location is taken as an adapter when --base says so, or
	// when it holds no model but an adapter (probed only then, below: a
	// model's check makes no request for adapter_config.json).
	if adapter.IsAdapter(operands[0]) || *baseLoc != "" && adapter.IsRemote(operands[0]) {
		switch {
		case *htmlDir != "" || *tolerance >= 0:
			io.WriteString(stderr, (&cli.UsageError{Msg: "--html and --tolerance are for models, not adapters"}).Line("fsinspect"))
			return cli.ExitUsage
		case *other != "":
			return runMerge(*other, operands[0], *baseLoc, *asJSON, &ro, stdout, stderr)
		}
		return runAdapter(operands[0], *baseLoc, *asJSON, *doScan, &ro, stdout, stderr)
	}
	if *baseLoc != "" {
		io.WriteString(stderr, (&cli.UsageError{Msg: "--base is for an adapter (a directory holding adapter_config.json); " + operands[0] + " is not one"}).Line("fsinspect"))
		return cli.ExitUsage
	}
	if *other != "" {
		return runCompare(*other, operands[0], *tolerance, *asJSON, &ro, stdout, stderr)
	}
	m, err := model.OpenWith(operands[0], &ro)
	if errors.Is(err, model.ErrNoWeights) && adapter.IsRemote(operands[0]) && !*doScan && *htmlDir == "" {
		if a, aerr := adapter.Open(operands[0], &ro); aerr == nil {
			a.Close()
			return runAdapter(operands[0], "", *asJSON, false, &ro, stdout, stderr)
		}
	}
	if err != nil {
		return invalid(stderr, err)
	}
	defer m.Close()
	r, err := check.Check(m)
	if err != nil {
		return invalid(stderr, err)
	}
	if *htmlDir != "" {
		if err := writeSite(m, r, *htmlDir, stderr); err != nil {
			fmt.Fprintf(stderr, "fsinspect: --html: %v\n", err)
			return cli.ExitInvalid
		}
	}
	var scanModel func(p func(done, total int64)) (*scan.Result, error)
	if *doScan {
		scanModel = func(p func(done, total int64)) (*scan.Result, error) {
			return scan.Model(context.Background(), m, scan.Options{Progress: p})
		}
	}
	return printVerdict(r, exitCode(r), *asJSON, scanModel, stdout, stderr)
}

// printVerdict prints a report, as text or JSON, and returns its exit
// code; with scanTensors, it first scans the values (with a progress bar)
// and adds the scan's section, a failed scan making the code 1.
func printVerdict(r interface {
	JSON() []byte
	Text() string
}, code int, asJSON bool, scanTensors func(p func(done, total int64)) (*scan.Result, error), stdout, stderr io.Writer) int {
	if scanTensors == nil {
		if asJSON {
			stdout.Write(r.JSON())
		} else {
			io.WriteString(stdout, r.Text())
		}
		return code
	}
	res, err := withBar(stderr, "scanning", scanTensors)
	if err != nil {
		return invalid(stderr, err)
	}
	if asJSON {
		out, err := scanJSON(r, res)
		if err != nil {
			return invalid(stderr, err)
		}
		stdout.Write(out)
	} else {
		io.WriteString(stdout, r.Text())
		io.WriteString(stdout, "\n"+res.Text())
	}
	if res.Failed() {
		return cli.ExitProblems
	}
	return code
}

// scanJSON is the report's JSON with the scan's section added. Its
// "clean" is the whole verdict's: no problem of any kind that was looked
// for, so a tensor the scan failed (NaN, Inf, all zero) makes it false,
// as it makes the exit code 1.
func scanJSON(r interface{ JSON() []byte }, res *scan.Result) ([]byte, error) {
	var j map[string]any
	if err := json.Unmarshal(r.JSON(), &j); err != nil {
		return nil, err
	}
	j["scan"] = res.JSON()
	if res.Failed() {
		j["clean"] = false
	}
	out, err := json.MarshalIndent(j, "", "  ")
	return append(out, '\n'), err
}

// runCompare compares model with other and prints the summary; with a
// tolerance, its exit code says whether every shared tensor is within it.
func runCompare(other, loc string, tol float64, asJSON bool, ro *remote.Options, stdout, stderr io.Writer) int {
	o, err := model.OpenWith(other, ro)
	if err != nil {
		return invalid(stderr, err)
	}
	defer o.Close()
	m, err := model.OpenWith(loc, ro)
	if err != nil {
		return invalid(stderr, err)
	}
	defer m.Close()
	res, err := withBar(stderr, "comparing", func(p func(done, total int64)) (*compare.Result, error) {
		return compare.Models(o, m, &compare.Options{Progress: p})
	})
	if err != nil {
		return invalid(stderr, err)
	}
	if asJSON {
		j, err := res.JSON()
		if err != nil {
			return invalid(stderr, err)
		}
		stdout.Write(j)
	} else {
		io.WriteString(stdout, res.Text())
	}
	if tol >= 0 && !res.Within(tol) {
		return cli.ExitProblems
	}
	return cli.ExitOK
}

// invalid reports err, which makes the input invalid, on one line and
// returns the exit code that says so.
func invalid(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "fsinspect: %v\n", err)
	return cli.ExitInvalid
}

// withBar runs job with a progress bar labelled what on stderr, which it
// draws as job reports its progress.
func withBar[R any](stderr io.Writer, what string, job func(progress func(done, total int64)) (R, error)) (R, error) {
	bar := progress.New(stderr, what)
	defer bar.Done()
	return job(bar.Update)
}

// exitCode is the verdict as an exit status.
func exitCode(r *check.Report) int { return cli.VerdictCode(r.Clean(), r.Checked()) }

// htmlDirUnusable says why --html cannot write into dir (it is not
// empty, or not a directory), or "": a bad command line, told before the
// model is read.
func htmlDirUnusable(dir string) string {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return "" // made by site.Write (or its error told then)
	case !st.IsDir():
		return "--html " + dir + ": not a directory; give an empty or new directory"
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return "--html " + dir + ": the directory is not empty; give an empty or new directory"
	}
	return ""
}

// writeSite writes the model's site to dir, laid out as the mount's tree
// (package layout).
func writeSite(m *model.Model, r *check.Report, dir string, stderr io.Writer) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty", dir)
	}
	comp := views.NewCompanionsFS(m.Tensor, m.Config, m.Source)
	vs := make([]*views.Tensor, 0, len(m.Tensors()))
	for _, t := range m.Tensors() {
		vs = append(vs, views.NewTensor(t, comp.Options(t)))
	}
	s, err := site.New(r, vs, nil)
	if err != nil {
		return err
	}
	bar := progress.New(stderr, "writing "+dir)
	defer bar.Done()
	return site.Write(context.Background(), dir, s, func(done, total int, _ string) { bar.Count(done, total) })
}

// writeArchitectures lists what is fully checked, from spec's table.
func writeArchitectures(w io.Writer, asJSON bool) {
	archs := spec.Architectures()
	if asJSON {
		type row struct {
			ModelType string `json:"model_type"`
			Class     string `json:"class"`
			Family    string `json:"spec"`
		}
		rows := make([]row, len(archs))
		for i, a := range archs {
			rows[i] = row{a.ModelType, a.Class, a.Family}
		}
		out, _ := json.MarshalIndent(rows, "", "  ")
		w.Write(append(out, '\n'))
		return
	}
	fmt.Fprintf(w, "%-26s %-44s %s\n", "MODEL_TYPE", "CLASS", "SPEC")
	for _, a := range archs {
		fmt.Fprintf(w, "%-26s %-44s %s\n", a.ModelType, a.Class, a.Family)
	}
}
