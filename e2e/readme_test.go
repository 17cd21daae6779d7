package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/mountinfo"
	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// readmeCommand is one "$ " line of a block and the output README shows.
type readmeCommand struct {
	line int // README's line number of the command
	cmd  string
	want string
}

// readmeBlock is one block of README with commands.
type readmeBlock struct {
	name    string // the section's heading and the block's number in it
	line    int
	notRun  string // the reason of <!-- not run: … -->
	needs   []string
	command []readmeCommand
}

var readmeMarker = regexp.MustCompile(`^<!--\s*(not run|needs):\s*(.*?)\s*-->$`)

// parseReadme returns README's blocks with commands, in order.
func parseReadme(t *testing.T, path string) []readmeBlock {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var blocks []readmeBlock
	section, n := "top", 0
	var marker []string // the last comment's kind and value, if nothing but blank lines followed it
	var cur *readmeBlock
	var body []string
	var bodyLine int
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if cur == nil && body == nil {
			switch {
			case strings.HasPrefix(line, "```"):
				cur = &readmeBlock{line: ln}
				if marker != nil {
					if marker[0] == "not run" {
						cur.notRun = marker[1]
					} else {
						cur.needs = strings.Fields(strings.ReplaceAll(marker[1], ",", " "))
					}
				}
				body, bodyLine, marker = []string{}, ln+1, nil
			case strings.HasPrefix(line, "#"):
				section, n, marker = strings.TrimSpace(strings.TrimLeft(line, "#")), 0, nil
			case readmeMarker.MatchString(line):
				m := readmeMarker.FindStringSubmatch(line)
				marker = []string{m[1], m[2]}
			case strings.TrimSpace(line) != "":
				marker = nil
			}
			continue
		}
		if !strings.HasPrefix(line, "```") {
			body = append(body, line)
			continue
		}
		for i, l := range body {
			if cmd, ok := strings.CutPrefix(l, "$ "); ok {
				cur.command = append(cur.command, readmeCommand{line: bodyLine + i, cmd: cmd})
			} else if len(cur.command) > 0 {
				c := &cur.command[len(cur.command)-1]
				c.want += l + "\n"
			}
		}
		if len(cur.command) > 0 {
			n++
			cur.name = fmt.Sprintf("%s/%d", section, n)
			blocks = append(blocks, *cur)
		}
		cur, body = nil, nil
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "README.md: a ``` block is not closed")
	return blocks
}

var (
	readmeSeconds = regexp.MustCompile(`\b\d+(\.\d+)? s\b`)
	readmeRate    = regexp.MustCompile(`\(\d+(\.\d+)? GB/s\)`)
	readmeListPID = regexp.MustCompile(`(?m)^(\S+ +\S+ +)\d+( )`)
	readmeSpaces  = regexp.MustCompile(` {2,}`)
	readmeTrail   = regexp.MustCompile(`(?m)[ \t]+$`)
)

// normaliseReadme applies the normalisation of TestReadme's doc to out,
// the output of cmd (or README's transcript of it).
func normaliseReadme(cmd, out string) string {
	out = readmeSeconds.ReplaceAllString(out, "# s")
	out = readmeRate.ReplaceAllString(out, "(# GB/s)")
	out = readmeSpaces.ReplaceAllString(out, " ")
	out = readmeTrail.ReplaceAllString(out, "")
	if strings.Contains(cmd, "fsmount --list") {
		out = readmeListPID.ReplaceAllString(out, "${1}#$2")
	}
	return out
}

// readmeScratch makes the scratch directory that stands for the
// repository, and its tools directory (put first on PATH).
func readmeScratch(t *testing.T) (dir, tools string) {
	t.Helper()
	dir = t.TempDir()
	root, err := filepath.Abs(repoPath())
	require.NoError(t, err)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, e := range entries {
		switch e.Name() {
		case ".git", "bin", "testdata":
			continue
		}
		require.NoError(t, os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())))
	}
	bin, err := filepath.Abs(binDir)
	require.NoError(t, err)
	require.NoError(t, os.Symlink(bin, filepath.Join(dir, "bin")))
	out, err := exec.Command("cp", "-a", filepath.Join(root, "testdata"), filepath.Join(dir, "testdata")).CombinedOutput()
	require.NoError(t, err, "copying testdata: %s", out)
	for _, sub := range []string{"tmp", "tools", "cache"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, sub), 0o755))
	}
	return dir, filepath.Join(dir, "tools")
}

// cleanupReadme unmounts every mount under dir and stops every process
// whose pid file is under dir/tmp.
func cleanupReadme(t *testing.T, dir string) {
	filepath.WalkDir(filepath.Join(dir, "tmp"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".pid") {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
				syscall.Kill(pid, syscall.SIGTERM)
			}
		}
		return nil
	})
	es, err := mountinfo.Read()
	if err != nil {
		t.Error(err)
		return
	}
	for _, e := range es {
		if !strings.HasPrefix(e.Point, dir+"/") {
			continue
		}
		if r := runCmd(t, "fsmount", "-u", e.Point); r.code != 0 {
			syscall.Unmount(e.Point, syscall.MNT_DETACH)
		}
	}
}

// TestReadme runs README.md's examples and compares what they print with
// the transcripts README shows, so that every transcript is true of this
// build by construction.
//
// A block is a ``` block with at least one line starting with "$ ": each
// such line is a command, the lines up to the next command are what it
// prints (stdout and stderr together, as on a terminal). The blocks run in
// README's order, each command in its own `bash -c`, all in one scratch
// directory that stands for the repository: testdata/ is a copy, bin/
// holds the commands TestMain built, every other top-level entry is a
// symbolic link to the repository's. A later block may use what an
// earlier one made (the mount of Quick start).
//
// An HTML comment on the line before a block (blank lines between allowed)
// says how to run it:
//
//	<!-- not run: REASON -->  the block is skipped, saying REASON (s3:// needs
//	                          a store and credentials, hf:// the network)
//	<!-- needs: numpy -->     python3 is a python3 that imports numpy, or the
//	                          block skips (fails with FSMOUNT_REQUIRE_NUMPY=1)
//	<!-- needs: nginx -->     nginx is on PATH, or the block skips (fails with
//	                          FSMOUNT_REQUIRE_NGINX=1)
//	<!-- needs: s3 -->        the e2e tests' SeaweedFS runs, holding the tiny
//	                          model as s3://models/tiny/, and the AWS variables
//	                          point at it with a read-only key; without a weed
//	                          binary the block skips (fails with
//	                          FSMOUNT_REQUIRE_S3=1)
//
// A new README section needs nothing here: its blocks are picked up.
//
// The comparison is exact after this normalisation, applied to the
// transcript and to the output alike:
//
//   - temporary paths: "/tmp/" in a command is the scratch directory's
//     tmp/, and that directory is written /tmp/ again in the output; the
//     scratch directory itself, where the commands run as in a checkout,
//     is written readmeCheckout (fsmount --list shows absolute paths);
//   - timing figures: "N s" and "(N GB/s)" become "# s" and "(# GB/s)";
//   - the PID column of `fsmount --list` becomes "#";
//   - runs of spaces are one space, and trailing spaces are dropped (the
//     columns of `--list` and of `ls` follow the paths' widths);
//   - ls prints columns as on a terminal 160 characters wide (ls -C);
//   - `fsmount --list` shows its header and the mounts the blocks made,
//     not those of other tests or users of the machine.
//
// `go build -o bin/ ./cmd/...` is not run: bin/ already holds the
// commands. Other `go` commands run in the repository itself, not the
// scratch directory (the build cache is keyed by the source's directory:
// in a new one, `go run` compiles every package again). A command gets 3
// minutes. Every mount made under the scratch directory is unmounted when
// the test ends, and every process whose pid file a block left there
// (nginx's) is stopped.
// readmeCheckout is where README's transcripts show the checkout.
const readmeCheckout = "/home/me/fsmount/"

func TestReadme(t *testing.T) {
	requireFUSE(t)
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: README's transcripts are root's (run as root, as ./test.sh's first e2e run does)")
	}
	blocks := parseReadme(t, repoPath("README.md"))
	require.NotEmpty(t, blocks)
	dir, tools := readmeScratch(t)
	root, err := filepath.Abs(repoPath())
	require.NoError(t, err)
	t.Cleanup(func() { cleanupReadme(t, dir) })
	// XDG_CACHE_HOME moves the remote cache into the scratch directory; Go's
	// build cache, which it would move too, stays where it is.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	extra := []string{"GOCACHE=" + strings.TrimSpace(string(gocache)),
		"PATH=" + tools + ":" + os.Getenv("PATH") + ":/usr/sbin:/sbin",
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), // the remote cache, not the user's
		"COLUMNS=160", "LC_ALL=C.UTF-8"}
	tmp := filepath.Join(dir, "tmp")
	for _, b := range blocks {
		t.Run(b.name, func(t *testing.T) {
			if b.notRun != "" {
				t.Skipf("README.md:%d: not run: %s", b.line, b.notRun)
			}
			for _, need := range b.needs {
				switch need {
				case "numpy":
					readmeTool(t, tools, "python3", testmodel.Numpy(t))
				case "nginx":
					readmeTool(t, tools, "nginx", nginxtest.Binary(t))
				case "s3":
					s3Server(t) // sets the AWS variables for this block
				default:
					t.Fatalf("README.md:%d: unknown need %q", b.line, need)
				}
			}
			for _, c := range b.command {
				if strings.HasPrefix(c.cmd, "go build -o bin/ ./cmd/...") {
					continue // TestMain built them
				}
				cmd := strings.ReplaceAll(c.cmd, "/tmp/", tmp+"/")
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				sh := exec.CommandContext(ctx, "bash", "-c", "shopt -s expand_aliases; alias ls='ls -C -T 0 -w 160'\n"+cmd)
				// os.Environ() now: a need may have set variables (s3).
				sh.Dir, sh.Env = dir, append(os.Environ(), extra...)
				if strings.HasPrefix(c.cmd, "go ") {
					sh.Dir = root
				}
				sh.WaitDelay = 10 * time.Second // a child left holding the output does not hold the test
				out, err := sh.CombinedOutput()
				timedOut := ctx.Err() != nil
				cancel()
				if _, ok := err.(*exec.ExitError); timedOut || err != nil && !ok {
					t.Fatalf("README.md:%d: %s: %v (timed out: %v)", c.line, c.cmd, err, timedOut)
				}
				got := string(out)
				if strings.Contains(c.cmd, "fsmount --list") {
					got = readmeOwnMounts(got, tmp+"/")
				}
				got = strings.ReplaceAll(got, tmp+"/", "/tmp/")
				got = strings.ReplaceAll(got, dir+"/", readmeCheckout) // an absolute path (fsmount --list)
				assert.Equal(t, normaliseReadme(c.cmd, c.want), normaliseReadme(c.cmd, got),
					"README.md:%d: $ %s\n(output as printed:)\n%s", c.line, c.cmd, got)
			}
		})
	}
}

// readmeOwnMounts keeps the header of `fsmount --list` and the lines of
// the mounts under prefix.
func readmeOwnMounts(out, prefix string) string {
	lines := strings.SplitAfter(out, "\n")
	kept := lines[:1]
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, prefix) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "")
}

// readmeTool puts path on the blocks' PATH as name.
func readmeTool(t *testing.T, tools, name, path string) {
	t.Helper()
	link := filepath.Join(tools, name)
	os.Remove(link)
	require.NoError(t, os.Symlink(path, link))
}

// TestParseReadme checks the parser on a README of its own: markers,
// commands and their transcripts, blocks without commands ignored.
func TestParseReadme(t *testing.T) {
	md := "# A\n\n```\nno command here\n```\n\n<!-- needs: numpy -->\n\n```\n$ echo a\na\n$ true\n```\n" +
		"## B\n<!-- not run: needs network -->\n```\n$ curl x\n```\ntext\n\n```\n$ ls\n```\n"
	path := filepath.Join(t.TempDir(), "README.md")
	require.NoError(t, os.WriteFile(path, []byte(md), 0o644))
	bs := parseReadme(t, path)
	require.Len(t, bs, 3)
	assert.Equal(t, "A/1", bs[0].name)
	assert.Equal(t, []string{"numpy"}, bs[0].needs)
	assert.Equal(t, []readmeCommand{{line: 10, cmd: "echo a", want: "a\n"}, {line: 12, cmd: "true"}}, bs[0].command)
	assert.Equal(t, "B/1", bs[1].name)
	assert.Equal(t, "needs network", bs[1].notRun)
	assert.Equal(t, "B/2", bs[2].name)
	assert.Empty(t, bs[2].notRun, "a marker applies to the next block only")
	assert.Equal(t, "# s (# GB/s)", normaliseReadme("", "0.21 s (0.00 GB/s)"))
	assert.Equal(t, "/tmp/q /home/me/fsmount/testdata/tiny-qwen3 # ✓ answering", normaliseReadme("bin/fsmount --list", "/tmp/q      /home/me/fsmount/testdata/tiny-qwen3  18169  ✓        answering  "))
}

// TestDocLinks checks that every relative link of every Markdown file in
// the repository names a file or directory that exists, so that a doc
// removed or renamed leaves no link behind.
func TestDocLinks(t *testing.T) {
	root := repoPath()
	link := regexp.MustCompile(`\]\(([^)\s#]+)(#[^)]*)?\)`)
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range link.FindAllStringSubmatch(string(raw), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), target)); err != nil {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s: link to %s: no such file", rel, target)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.NotZero(t, n, "no relative link found: is the pattern right?")
}
