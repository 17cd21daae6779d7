// Package progress draws a one-line progress bar on a terminal: bytes
// done of the total, the rate and the time left. On anything but a
// terminal it draws nothing, so logs and pipes stay clean.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Bar is a progress line on w. Its methods are safe for concurrent use.
type Bar struct {
	w     io.Writer
	label string
	start time.Time
	mu    sync.Mutex
	last  time.Time
	shown bool
}

// New returns a bar drawing on w when w is a terminal, else one that does
// nothing.
func New(w io.Writer, label string) *Bar {
	if !IsTerminal(w) {
		return &Bar{}
	}
	return &Bar{w: w, label: label, start: time.Now()}
}

// IsTerminal reports whether w is a terminal (fsmount asks it too, to
// say where a daemon's messages go).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// Update draws done of total bytes, at most ten times a second.
func (b *Bar) Update(done, total int64) {
	b.draw(done >= total, func() string { return Line(b.label, done, total, time.Since(b.start)) })
}

// Count draws done of total items ("files"), at most ten times a second.
func (b *Bar) Count(done, total int) {
	b.draw(done >= total, func() string { return fmt.Sprintf("%s %d / %d files", b.label, done, total) })
}

// draw writes the line text makes, unless one was drawn in the last
// 100 ms and the work is not finished.
func (b *Bar) draw(finished bool, text func() string) {
	if b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if now.Sub(b.last) < 100*time.Millisecond && !finished {
		return
	}
	b.last = now
	fmt.Fprintf(b.w, "\r%s", text())
	b.shown = true
}

// Done erases the bar.
func (b *Bar) Done() {
	if b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.shown {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", 79))
	}
}

// Line is the bar's text: "scanning [#####     ] 0.75 / 1.50 GB  2.10 GB/s  ETA 0:01".
func Line(label string, done, total int64, elapsed time.Duration) string {
	const width = 20
	frac := 1.0
	if total > 0 {
		frac = min(1, float64(done)/float64(total))
	}
	filled := int(frac * width)
	rate := float64(done) / max(elapsed.Seconds(), 1e-9)
	eta := "-:--"
	if rate > 0 && done < total {
		left := time.Duration(float64(total-done) / rate * float64(time.Second))
		eta = fmt.Sprintf("%d:%02d", int(left.Minutes()), int(left.Seconds())%60)
	}
	return fmt.Sprintf("%s [%s%s] %.2f / %.2f GB  %.2f GB/s  ETA %s", label,
		strings.Repeat("#", filled), strings.Repeat(" ", width-filled), float64(done)/1e9, float64(total)/1e9, rate/1e9, eta)
}
