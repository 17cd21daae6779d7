// Package cli holds what fsmount and fsinspect share on the command line:
// options before, between and after the operands, "--" ending options,
// usage errors of one line, the exit-code table ([Codes], printed by
// --help and repeated in README.md) and the panic guard ([Main]: a panic
// exits 70, never a verdict's code).
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// UsageError is a bad command line. Its message names the mistake; the
// command prints it with a pointer to --help (see [UsageError.Line]).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Line is the one line a command prints for the error:
// "fsmount: <mistake> (see fsmount --help)".
func (e *UsageError) Line(cmd string) string {
	return fmt.Sprintf("%s: %s (see %s --help)\n", cmd, e.Msg, cmd)
}

// Parse parses args with fl, accepting options anywhere among the
// operands (fsinspect MODEL --json). "--" ends the options: everything
// after it is an operand, even when it starts with "-". It returns the
// operands in order; flag.ErrHelp is returned as is, every other error as
// a *UsageError. fl should be quiet (ContinueOnError, output discarded):
// errors are for the caller to print.
func Parse(fl *flag.FlagSet, args []string) ([]string, error) {
	fl.SetOutput(io.Discard)
	var operands []string
	for {
		if err := fl.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, &UsageError{err.Error()}
		}
		rest := fl.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" && !isFlagValue(fl, args, consumed-1) {
			return append(operands, rest...), nil
		}
		if len(rest) == 0 {
			return operands, nil
		}
		operands = append(operands, rest[0])
		args = rest[1:]
	}
}

// isFlagValue reports whether args[i] was consumed as the value of the
// option before it ("-o --"), not as the end of options.
func isFlagValue(fl *flag.FlagSet, args []string, i int) bool {
	if i == 0 {
		return false
	}
	prev := args[i-1]
	if len(prev) < 2 || prev[0] != '-' || prev == "--" {
		return false
	}
	name := prev[1:]
	if name[0] == '-' {
		name = name[1:]
	}
	for j := range len(name) {
		if name[j] == '=' {
			return false // -o=x carries its own value
		}
	}
	f := fl.Lookup(name)
	if f == nil {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return false
	}
	return true
}

// Timeout is the value of the --timeout option both commands take for a
// remote model: a positive duration ("30s", "2m"), zero until set, which
// means the remote package's default.
type Timeout time.Duration

// String returns the duration as time.Duration writes it.
func (t *Timeout) String() string { return time.Duration(*t).String() }

// Set parses a duration, refusing zero and negative ones.
func (t *Timeout) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration such as 30s or 2m")
	}
	if d <= 0 {
		return errors.New("must be more than 0")
	}
	*t = Timeout(d)
	return nil
}
