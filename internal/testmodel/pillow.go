package testmodel

import (
	"os"
	"os/exec"
	"testing"
)

// RunPillow runs Debian's python3 (/usr/bin/python3) with args, a script
// that imports Pillow (PIL) and its arguments, and returns its combined
// output; t fails if it does not exit 0. Where Pillow cannot be imported
// it skips t, failing it instead when FSMOUNT_REQUIRE_PIL=1.
func RunPillow(t testing.TB, args ...string) string {
	t.Helper()
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import PIL.Image").Run() != nil {
		if os.Getenv("FSMOUNT_REQUIRE_PIL") == "1" {
			t.Fatal("Pillow is required (FSMOUNT_REQUIRE_PIL=1): apt-get install python3-pil")
		}
		t.Skip("SKIPPING: no Pillow (apt-get install python3-pil)")
	}
	return run(t, py, args)
}
