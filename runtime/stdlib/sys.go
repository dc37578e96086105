package stdlib

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"

	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

const sysDoc = `The running script: its arguments, its platform, and exit.`

var sysExit = doc.Builtin("sys.exit", `exit(code=0)

Ends the script with the exit code code. When code is a str, it is
printed to stderr and the exit code is 1.`, sysExitFn)

// SysModule returns the sys module of one run: argv is the script's path
// followed by its arguments (sys.argv, a frozen list), platform the
// operating system ("linux", "darwin"), and exit(code=0) ends the script
// with a *host.ExitError.
func SysModule(argv []string) starlark.Value {
	elems := make([]starlark.Value, len(argv))
	for i, a := range argv {
		elems[i] = starlark.String(a)
	}
	list := starlark.NewList(elems)
	list.Freeze()
	return doc.Module("sys", sysDoc, starlark.StringDict{
		"argv":     list,
		"platform": starlark.String(runtime.GOOS),
		"exit":     sysExit,
	})
}

func sysExitFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var code starlark.Value = starlark.MakeInt(0)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "code?", &code); err != nil {
		return nil, err
	}
	switch c := code.(type) {
	case starlark.NoneType:
		return nil, &host.ExitError{Code: 0}
	case starlark.Int:
		n, ok := c.Int64()
		if !ok || n < 0 || n > 255 {
			return nil, fmt.Errorf("%s: exit code must be between 0 and 255, got %s", b.Name(), c)
		}
		return nil, &host.ExitError{Code: int(n)}
	case starlark.String:
		fmt.Fprintln(host.From(thread).Stderr, string(c))
		return nil, &host.ExitError{Code: 1}
	}
	return nil, fmt.Errorf("%s: for parameter code: got %s, want int or str", b.Name(), code.Type())
}

// ErrEndOfInput is the cause of the error input() returns at the end of
// its input; test for it with errors.Is.
var ErrEndOfInput = errors.New("end of input")

var inputBuiltin = doc.Builtin("input", `input(prompt="")

Writes prompt to stderr (without a newline), reads a line from stdin and
returns it without its line ending. At the end of the input, fails with
"input: end of input".`, inputFn)

// InputBuiltin returns the input(prompt="") builtin: it writes prompt to
// the thread's stderr, reads one line from its stdin and returns it without
// the line ending. At the end of the input it fails with an error wrapping
// ErrEndOfInput.
func InputBuiltin() *starlark.Builtin { return inputBuiltin }

const inputKey = "fabric.stdlib.input"

// inputReader is the buffered reader of a thread's stdin, kept in a thread
// local so that successive input() calls do not lose what it read ahead.
type inputReader struct {
	src io.Reader
	br  *bufio.Reader
}

// lineReader returns a reader of src that never loses data between calls
// on the same thread.
func lineReader(thread *starlark.Thread, src io.Reader) io.ByteReader {
	if br, ok := src.(io.ByteReader); ok {
		return br // reads exactly what it is asked for
	}
	if !reflect.TypeOf(src).Comparable() {
		return bufio.NewReader(src)
	}
	if ir, ok := thread.Local(inputKey).(*inputReader); ok && ir.src == src {
		return ir.br
	}
	ir := &inputReader{src: src, br: bufio.NewReader(src)}
	thread.SetLocal(inputKey, ir)
	return ir.br
}

func inputFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var prompt starlark.Value = starlark.String("")
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "prompt?", &prompt); err != nil {
		return nil, err
	}
	h := host.From(thread)
	text, ok := starlark.AsString(prompt)
	if !ok {
		text = prompt.String()
	}
	if text != "" && h.Stderr != nil {
		io.WriteString(h.Stderr, text)
	}
	if h.Stdin == nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), ErrEndOfInput)
	}
	r := lineReader(thread, h.Stdin)
	var line strings.Builder
	for {
		c, err := r.ReadByte()
		if err == io.EOF {
			if line.Len() == 0 {
				return nil, fmt.Errorf("%s: %w", b.Name(), ErrEndOfInput)
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name(), err)
		}
		if c == '\n' {
			break
		}
		line.WriteByte(c)
	}
	return starlark.String(strings.TrimSuffix(line.String(), "\r")), nil
}
