package builtins

import (
	"fmt"
	"io"
	"os"
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
func (p *progress) Finish() {
	if p.printed {
		fmt.Fprintf(p.w, "\r%s %.1f MB, done\n", p.label, mb(p.done))
	}
}

func mb(n int64) float64 { return float64(n) / 1024 / 1024 }

// Spool copies body, the download of raw (size bytes, 0 if unknown), into
// a temporary file whose name ends in ext, with a progress line, and closes
// body. It returns the file's name; the caller removes the file.
func Spool(thread *starlark.Thread, body io.ReadCloser, size int64, raw, label, ext string) (string, error) {
	defer body.Close()
	tmp, err := os.CreateTemp("", "fabric-download-*"+ext)
	if err != nil {
		return "", err
	}
	pr := withProgress(thread, body, label, size)
	if _, err := io.Copy(tmp, pr); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", fmt.Errorf("downloading %s: %v", raw, err)
	}
	pr.Finish()
	tmp.Close()
	return tmp.Name(), nil
}
