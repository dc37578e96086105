package repl

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/chzyer/readline"
	"golang.org/x/sys/unix"
)

// Terminal is a LineReader over a real terminal, with line editing,
// persisted history and completion (github.com/chzyer/readline).
type Terminal struct {
	rl    *readline.Instance
	in    *countingReader
	lines int // lines returned so far
}

// NewTerminal opens the terminal on stdin/stdout with history kept in
// historyFile and completion from c.
func NewTerminal(historyFile string, c *Completer) (*Terminal, error) {
	in := &countingReader{f: os.Stdin}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 Prompt,
		HistoryFile:            historyFile,
		HistoryLimit:           10000,
		AutoComplete:           c,
		InterruptPrompt:        "^C",
		EOFPrompt:              "",
		Stdin:                  in,
		DisableAutoSaveHistory: false,
	})
	if err != nil {
		return nil, err
	}
	return &Terminal{rl: rl, in: in}, nil
}

// ReadLine implements LineReader.
func (t *Terminal) ReadLine(prompt string) (string, error) {
	t.rl.SetPrompt(prompt)
	line, err := t.rl.Readline()
	switch {
	case errors.Is(err, readline.ErrInterrupt):
		return "", ErrInterrupt
	case err != nil:
		return "", io.EOF
	}
	t.lines++
	return line, nil
}

// Pending implements LineReader: input is pending when the terminal has
// delivered more lines than were read, or bytes after the last Enter, or
// has bytes waiting, within wait.
func (t *Terminal) Pending(wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for {
		enters, partial := t.in.state()
		if enters > t.lines || partial {
			return true
		}
		fds := []unix.PollFd{{Fd: int32(os.Stdin.Fd()), Events: unix.POLLIN}}
		if n, _ := unix.Poll(fds, 0); n > 0 {
			return true
		}
		if time.Now().After(deadline) {
			// Resynchronise after keys that end no line (history search).
			t.lines = enters
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Close restores the terminal.
func (t *Terminal) Close() error { return t.rl.Close() }

// countingReader passes the terminal's bytes to readline and counts the
// Enters among them, so that Pending can tell a paste from typing.
type countingReader struct {
	f       *os.File
	mu      sync.Mutex
	enters  int
	partial bool // bytes received after the last Enter
	lastCR  bool
}

func (r *countingReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	r.mu.Lock()
	for _, b := range p[:n] {
		switch {
		case b == '\r':
			r.enters++
			r.partial = false
		case b == '\n' && r.lastCR:
		case b == '\n':
			r.enters++
			r.partial = false
		default:
			r.partial = true
		}
		r.lastCR = b == '\r'
	}
	r.mu.Unlock()
	return n, err
}

func (r *countingReader) Close() error { return nil }

func (r *countingReader) state() (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.enters, r.partial
}
