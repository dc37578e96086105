// Package host carries the shell's standard streams, working directory and
// terminal facts on a Starlark thread, so that modules write where the caller
// says (a terminal, a pipe, a test buffer) and never to os.Stdout directly.
package host

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"go.starlark.net/starlark"
	"golang.org/x/sys/unix"
)

const key = "fabric.host"

// IO is what a running script reads from and writes to.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Dir is the working directory that relative paths resolve against;
	// empty means the process's working directory.
	Dir string
	// StdoutTerminal and StderrTerminal say whether the streams are
	// terminals (for colour and progress bars).
	StdoutTerminal bool
	StderrTerminal bool
	// NoColor is set when colour must not be used (NO_COLOR, or not a terminal).
	NoColor bool
	// Argv is the script's sys.argv: the script path then its arguments.
	Argv []string
	// Columns is the width tables are fitted to; 0 (stdout not a
	// terminal, no $COLUMNS) leaves them whole.
	Columns int
}

// TableColumns returns the width tables are fitted to: Columns, where 0
// (or less) leaves them whole.
func (io *IO) TableColumns() int {
	if io == nil || io.Columns <= 0 {
		return 0
	}
	return io.Columns
}

// ColumnsOf returns the width tables written to w are fitted to: the
// terminal's width when w is a terminal, else $COLUMNS when it is a
// positive number, else 0: output read by a program or kept in a file
// is left whole (a cut cell would lose what a script greps for).
func ColumnsOf(w any) int {
	if f, ok := w.(*os.File); ok && IsTerminal(f) {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

// ExitError is returned by sys.exit to end a script with an exit code.
type ExitError struct{ Code int }

// Error says which exit status the script asked for.
func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Standard returns the process's own streams.
func Standard() *IO {
	return &IO{
		Stdin:          os.Stdin,
		Stdout:         os.Stdout,
		Stderr:         os.Stderr,
		StdoutTerminal: IsTerminal(os.Stdout),
		StderrTerminal: IsTerminal(os.Stderr),
		NoColor:        os.Getenv("NO_COLOR") != "" || !IsTerminal(os.Stdout),
		Columns:        ColumnsOf(os.Stdout),
	}
}

// Set attaches io to thread.
func Set(thread *starlark.Thread, io *IO) { thread.SetLocal(key, io) }

// From returns the IO attached to thread, or the process's own streams.
func From(thread *starlark.Thread) *IO {
	if thread != nil {
		if io, ok := thread.Local(key).(*IO); ok {
			return io
		}
	}
	return Standard()
}

// Path resolves p against the working directory of io.
func (io *IO) Path(p string) string {
	if io.Dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(io.Dir, p)
}

// IsTerminal reports whether w is a character device such as a terminal.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
