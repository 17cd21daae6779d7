// Command fsinspect cross-checks a model's safetensors files against its
// config.json and prints the report; its exit code gates a build.
//
// Exit codes:
//
//	0  the files match the config
//	1  the cross-check found problems
//	2  unreadable or invalid input (an I/O error, a malformed file or config)
//	3  not checked: no config.json (or a lone .safetensors file), or no
//	   spec for the architecture; the tensors are still listed
//	64 usage error
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/fsmount/fsmount/internal/cli"
	"github.com/fsmount/fsmount/internal/version"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
)

// Exit codes.
const (
	exitClean    = 0
	exitProblems = 1
	exitInvalid  = 2
	exitSkipped  = 3
	exitUsage    = 64
)

const usage = `usage: fsinspect [--json] MODEL

Cross-checks a model against its config.json and prints the report.

MODEL is a directory holding config.json and model.safetensors (or
model.safetensors.index.json and its shards), or a single .safetensors
file, whose tensors are listed without a cross-check. Options may come
before or after MODEL; -- ends them.

Options:
  --json      print the report as JSON
  --help      show this help
  --version   print the version

Exit status: 0 clean, 1 cross-check problems, 2 unreadable or invalid
input, 3 not checked (no config.json, a lone .safetensors file, or no spec
for the architecture: the tensors are listed, nothing is verified),
64 usage error.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("fsinspect", flag.ContinueOnError)
	asJSON := fl.Bool("json", false, "")
	showVersion := fl.Bool("version", false, "")
	operands, err := cli.Parse(fl, args)
	var ue *cli.UsageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return exitClean
	case errors.As(err, &ue):
		io.WriteString(stderr, ue.Line("fsinspect"))
		return exitUsage
	case *showVersion:
		fmt.Fprintf(stdout, "fsinspect %s\n", version.String())
		return exitClean
	case len(operands) != 1:
		msg := fmt.Sprintf("expected one MODEL, got %d arguments", len(operands))
		if len(operands) == 0 {
			msg = "no MODEL given; usage: fsinspect [--json] MODEL"
		}
		io.WriteString(stderr, (&cli.UsageError{Msg: msg}).Line("fsinspect"))
		return exitUsage
	}
	m, err := model.Open(operands[0])
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return exitInvalid
	}
	defer m.Close()
	r, err := spec.Check(m)
	if err != nil {
		fmt.Fprintf(stderr, "fsinspect: %v\n", err)
		return exitInvalid
	}
	if *asJSON {
		stdout.Write(r.JSON())
	} else {
		io.WriteString(stdout, r.Text())
	}
	return exitCode(r)
}

// exitCode is the verdict as an exit status: a check that was not done
// must not pass for a clean one (fsinspect model && deploy).
func exitCode(r *spec.Report) int {
	switch {
	case !r.Clean():
		return exitProblems
	case r.Plan == nil:
		return exitSkipped
	}
	return exitClean
}
