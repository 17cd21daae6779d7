// Command fsinspect cross-checks a model's safetensors files against its
// config.json and prints the report; its exit code gates a build.
//
// Exit codes:
//
//	0  the files match the config (or the check was skipped: single file, no spec)
//	1  the cross-check found problems
//	2  unreadable or invalid input (an I/O error, a malformed file or config)
//	64 usage error
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/fsmount/fsmount/internal/version"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
)

// Exit codes.
const (
	exitClean    = 0
	exitProblems = 1
	exitInvalid  = 2
	exitUsage    = 64
)

const usage = `usage: fsinspect [--json] MODEL

Cross-checks a model against its config.json and prints the report.

MODEL is a directory holding config.json and model.safetensors (or
model.safetensors.index.json and its shards), or a single .safetensors
file, whose tensors are listed without a cross-check.

Options:
  --json      print the report as JSON
  --help      show this help
  --version   print the version

Exit status: 0 clean, 1 cross-check problems, 2 unreadable or invalid
input, 64 usage error.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("fsinspect", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	asJSON := fl.Bool("json", false, "")
	showVersion := fl.Bool("version", false, "")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return exitClean
		}
		fmt.Fprintf(stderr, "fsinspect: %v\n%s", err, usage)
		return exitUsage
	}
	if *showVersion {
		fmt.Fprintf(stdout, "fsinspect %s\n", version.String())
		return exitClean
	}
	if fl.NArg() != 1 {
		fmt.Fprintf(stderr, "fsinspect: expected one MODEL, got %d arguments\n%s", fl.NArg(), usage)
		return exitUsage
	}
	m, err := model.Open(fl.Arg(0))
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
	if !r.Clean() {
		return exitProblems
	}
	return exitClean
}
