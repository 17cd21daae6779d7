package source_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/source"
)

func TestDirOpenRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero")))
	d := source.Dir(dir)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for name, kind := range map[string]string{"fifo": "a FIFO", "sub": "a directory", "zero": "a character device"} {
			_, err := d.Open(name)
			assert.ErrorIs(t, err, source.ErrNotRegular, name)
			assert.ErrorContains(t, err, kind, name)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("opening a FIFO blocked")
	}
	_, err := d.Open("missing")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = d.Open("../escape")
	assert.ErrorIs(t, err, fs.ErrInvalid)
}

func TestLocalFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(path, []byte("hello world"), 0o640))
	f, err := source.OpenLocal(path)
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, int64(11), f.Size())
	assert.Equal(t, fs.FileMode(0o640), f.Mode())
	assert.Equal(t, path, f.Name())
	m, err := f.Mapping()
	require.NoError(t, err)
	assert.Equal(t, "hello world", string(m))
	f.Release(m[:5])
	assert.NoError(t, f.Changed())

	// Rewritten in place, same size: a new mtime.
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, os.WriteFile(path, []byte("HELLO WORLD"), 0o640))
	var ce *source.ChangedError
	require.ErrorAs(t, f.Changed(), &ce)
	assert.Equal(t, ce.Was, ce.Now)
	assert.EqualError(t, ce, path+" was modified since it was opened")

	g, err := source.OpenLocal(path)
	require.NoError(t, err)
	defer g.Close()
	require.NoError(t, os.Truncate(path, 4))
	require.ErrorAs(t, g.Changed(), &ce)
	assert.EqualError(t, ce, path+" changed size since it was opened, from 11 to 4 bytes")
	require.NoError(t, g.Close())
	require.NoError(t, g.Close(), "Close twice is harmless")
}

func TestReadFileCap(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big"), make([]byte, 5000), 0o644))
	_, err := source.ReadFile(source.Dir(dir), "big", 4096)
	var tl *source.TooLargeError
	require.True(t, errors.As(err, &tl))
	assert.EqualError(t, err, filepath.Join(dir, "big")+": 5,000 bytes, more than the 4,096 allowed for this file")
	b, err := source.ReadFile(source.Dir(dir), "big", 5000)
	require.NoError(t, err)
	assert.Len(t, b, 5000)
	names, err := source.Dir(dir).List()
	require.NoError(t, err)
	assert.Equal(t, []string{"big"}, names)
}

// TestChangedWhileClosing: a watcher may check a file as the mount ends
// and closes it; that is an error, never a race (go test -race).
func TestChangedWhileClosing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, []byte("x"), 0o644))
	for range 50 {
		f, err := source.OpenLocal(path)
		require.NoError(t, err)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range 20 {
				f.Changed()
			}
		}()
		f.Close()
		<-done
		assert.Error(t, f.Changed(), "a closed file")
	}
}
