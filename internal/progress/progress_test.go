package progress

import (
	"bytes"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	got := Line("scanning", 750e6, 1500e6, 500*time.Millisecond)
	want := "scanning [##########          ] 0.75 / 1.50 GB  1.50 GB/s  ETA 0:00"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := Line("x", 0, 0, time.Second); got != "x [####################] 0.00 / 0.00 GB  0.00 GB/s  ETA -:--" {
		t.Errorf("empty: %q", got)
	}
}

// A bar on something that is not a terminal draws nothing.
func TestNotATerminal(t *testing.T) {
	var b bytes.Buffer
	bar := New(&b, "scanning")
	bar.Update(1, 2)
	bar.Done()
	if b.Len() != 0 {
		t.Errorf("drew %q on a buffer", b.String())
	}
}
