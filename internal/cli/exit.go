package cli

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/fsmount/fsmount/internal/par"
)

// The exit codes of fsmount and fsinspect. Each has one meaning across
// both commands (Codes says it, for --help and README.md); 1 is the one
// code whose meaning depends on the command.
const (
	ExitOK         = 0  // success: clean verdict, mounted, unmounted, listed
	ExitProblems   = 1  // the cross-check found problems (fsmount: with --strict)
	ExitFailed     = 1  // fsmount: the mount or the unmount failed
	ExitInvalid    = 2  // unreadable or invalid input; nothing mounted
	ExitSkipped    = 3  // not checked: no config.json or no spec
	ExitMountPoint = 10 // fsmount: the mount point is unusable or FUSE is unavailable
	ExitUsage      = 64 // a bad command line (sysexits.h EX_USAGE)
	ExitInternal   = 70 // a bug: a panic (sysexits.h EX_SOFTWARE)
)

// VerdictCode is a check's verdict as an exit status, the same for both
// commands: ExitProblems when it found problems, ExitSkipped when it
// was not done (which must not pass for a clean one: fsinspect model &&
// deploy), else ExitOK.
func VerdictCode(clean, checked bool) int {
	switch {
	case !clean:
		return ExitProblems
	case !checked:
		return ExitSkipped
	}
	return ExitOK
}

// Code is one row of the exit-code table: a code and the sentence that
// says what it means for each command ("" where the command never exits
// with it).
type Code struct {
	Code               int
	Fsmount, Fsinspect string
}

// Codes is the exit-code table of both commands. --help prints it
// (Help) and README.md repeats it word for word (a test checks).
var Codes = []Code{
	{ExitOK,
		"Mounted (or unmounted, or listed).",
		"The files match the config; with --scan no bad value was found, with --tolerance every shared tensor is within it."},
	{ExitProblems,
		"The mount or unmount failed, or -u was given something that is not an fsmount mount; with --strict, the model mounted but its cross-check found problems.",
		"The cross-check found problems, --scan found a NaN, Inf or all-zero tensor, or --tolerance found a tensor beyond it."},
	{ExitInvalid,
		"The model is unreadable or invalid (an I/O error, a malformed file or config); nothing was mounted.",
		"The model is unreadable or invalid (an I/O error, a malformed file or config)."},
	{ExitSkipped,
		"With --strict: mounted, but not fully checked (no config.json, a lone .safetensors file, only a structural check for an architecture without a spec, or an adapter without its base).",
		"Not fully checked: no config.json or a lone .safetensors file (the tensors are listed), an architecture without a spec whose structural check (layers, repeating groups, embeddings, tied head) found nothing wrong, or an adapter checked without its base."},
	{ExitMountPoint,
		"The mount point is unusable (missing, not a directory, not empty, a dead mount, busy with another fsmount) or FUSE is unavailable.",
		""},
	{ExitUsage,
		"A bad command line; the one line printed says what is wrong.",
		"A bad command line; the one line printed says what is wrong."},
	{ExitInternal,
		"An internal error (a bug): the stack is printed on stderr; please report it.",
		"An internal error (a bug): the stack is printed on stderr; please report it."},
}

// Help is the "Exit status" section of cmd's --help: one line a code,
// its sentence wrapped under it.
func Help(cmd string) string {
	var b strings.Builder
	b.WriteString("Exit status:\n")
	for _, c := range Codes {
		s := c.sentence(cmd)
		if s == "" {
			continue
		}
		line := fmt.Sprintf("  %-4d", c.Code)
		for _, w := range strings.Fields(s) {
			if len(line)+1+len(w) > 76 {
				b.WriteString(line + "\n")
				line = "      " + w
				continue
			}
			if strings.HasSuffix(line, " ") {
				line += w
			} else {
				line += " " + w
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// Markdown is the table README.md holds for cmd: | code | meaning |.
func Markdown(cmd string) string {
	var b strings.Builder
	b.WriteString("| exit | meaning |\n|---|---|\n")
	for _, c := range Codes {
		if s := c.sentence(cmd); s != "" {
			fmt.Fprintf(&b, "| %d | %s |\n", c.Code, s)
		}
	}
	return b.String()
}

func (c Code) sentence(cmd string) string {
	if cmd == "fsinspect" {
		return c.Fsinspect
	}
	return c.Fsmount
}

// Main runs a command's body and returns its exit code; a panic in the
// body, on its goroutine or on a worker it waited for (package par
// raises a worker's panic again on the waiting goroutine), becomes
// ExitInternal, with "internal error,
// please report" and the stack on stderr, so that a crash never reads as
// a verdict on the model (Go's own exit code for a panic is 2, which
// means an invalid model here).
func Main(cmd string, stderr io.Writer, body func() int) (code int) {
	defer func() {
		if v := recover(); v != nil {
			if p, ok := v.(*par.Panic); ok { // a worker's, raised again here
				fmt.Fprintf(stderr, "%s: internal error, please report: %s\nwaiting goroutine:\n%s", cmd, p.String(), debug.Stack())
			} else {
				fmt.Fprintf(stderr, "%s: internal error, please report: %v\n%s", cmd, v, debug.Stack())
			}
			code = ExitInternal
		}
	}()
	return body()
}
