//go:build !lean

package builtins

import (
	"fmt"
	"io"
	"time"

	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// progress counts the bytes read through it and, when stderr is a
// terminal, shows a progress line there, at most ten times a second.
type progress struct {
	r       io.Reader
	w       io.Writer // nil: silent
	label   string
	total   int64 // 0: unknown
	done    int64
	last    time.Time
	printed bool
}

// withProgress wraps r for a transfer of total bytes (0 if unknown).
func withProgress(thread *starlark.Thread, r io.Reader, label string, total int64) *progress {
	p := &progress{r: r, label: label, total: total}
	if io := host.From(thread); io.StderrTerminal {
		p.w = io.Stderr
	}
	return p
}

func (p *progress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	if p.w != nil && time.Since(p.last) > 100*time.Millisecond {
		p.last = time.Now()
		p.printed = true
		if p.total > 0 {
			fmt.Fprintf(p.w, "\r%s %.1f / %.1f MB (%d%%)", p.label, mb(p.done), mb(p.total), p.done*100/p.total)
		} else {
			fmt.Fprintf(p.w, "\r%s %.1f MB", p.label, mb(p.done))
		}
	}
	return n, err
}

// finish ends the progress line.
func (p *progress) finish() {
	if p.printed {
		fmt.Fprintf(p.w, "\r%s %.1f MB, done\n", p.label, mb(p.done))
	}
}

func mb(n int64) float64 { return float64(n) / 1024 / 1024 }
