package fusefs

import "os/exec"

var execLookPath = exec.LookPath
