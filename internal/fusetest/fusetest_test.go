package fusetest

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The /proc readers against this process (alive, its memory, its CPU
// time growing as it spins) and a child that has exited: errors, not
// zeros, for what cannot be read.
func TestProc(t *testing.T) {
	self := os.Getpid()
	assert.True(t, Alive(self))
	rss, err := StatusKB(self, "VmRSS")
	require.NoError(t, err)
	assert.Greater(t, rss, int64(1000), "a Go test binary holds more than 1 MB")
	_, err = StatusKB(self, "NoSuchField")
	assert.ErrorContains(t, err, "no NoSuchField in /proc/")

	cmd := exec.Command("true")
	require.NoError(t, cmd.Start())
	pid := cmd.Process.Pid
	require.NoError(t, cmd.Wait())
	assert.False(t, Alive(pid), "reaped")
	_, err = CPUSeconds(pid)
	assert.Error(t, err)

	before, err := CPUSeconds(self)
	require.NoError(t, err)
	deadline := time.Now().Add(10 * time.Second)
	for now := before; now <= before; now, err = CPUSeconds(self) {
		require.NoError(t, err)
		require.True(t, time.Now().Before(deadline), "no CPU time counted in 10 s of spinning")
	}
}
