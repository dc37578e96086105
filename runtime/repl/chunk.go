package repl

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/fabricops/fabric/runtime"
)

// LineReader is where the REPL gets its lines: a terminal, or a script of
// lines in tests.
type LineReader interface {
	// ReadLine shows prompt and returns the next line without its newline.
	// It returns io.EOF at the end of input and ErrInterrupt on Ctrl-C.
	ReadLine(prompt string) (string, error)
	// Pending reports whether more input arrives within wait: a pasted
	// block's next line is already there, a typed one is not.
	Pending(wait time.Duration) bool
}

// ErrInterrupt is returned by a LineReader when the user presses Ctrl-C.
var ErrInterrupt = errors.New("interrupt")

// Prompts of the REPL.
const (
	Prompt     = ">>> "
	MorePrompt = "... "
)

// pasteWait is how long a blank line inside a block waits for more pasted
// input before the block is run.
const pasteWait = 40 * time.Millisecond

// chunker splits the REPL's input into units to run: a simple statement, a
// compound statement (ended by a blank line), an expression spread over
// lines by open brackets, or a ":command" line.
type chunker struct {
	carry *string // a line read ahead that starts the next chunk
}

// next reads the next chunk. A blank line ends a compound statement unless
// more input is pending (a pasted block with blank lines inside) and the
// next line continues the block (indented, or else/elif).
func (c *chunker) next(r LineReader) (string, error) {
	var lines []string
	block := false
	for {
		line, err := c.read(r, len(lines) > 0)
		if err == io.EOF && len(lines) > 0 {
			return strings.Join(lines, "\n"), nil
		}
		if err != nil {
			return "", err
		}
		blank := strings.TrimSpace(line) == ""
		switch {
		case len(lines) == 0:
			if blank {
				continue
			}
			if strings.HasPrefix(strings.TrimSpace(line), ":") {
				return strings.TrimSpace(line), nil
			}
			lines = append(lines, line)
			block = startsBlock(line)
			if !block && complete(lines) {
				return line, nil
			}
		case block && blank:
			var blanks []string
			for blank && r.Pending(pasteWait) {
				blanks = append(blanks, line)
				if line, err = r.ReadLine(MorePrompt); err != nil {
					return strings.Join(lines, "\n"), nil
				}
				blank = strings.TrimSpace(line) == ""
			}
			if !blank && continuesBlock(line) {
				lines = append(append(lines, blanks...), line)
				continue
			}
			if !blank {
				c.carry = &line
			}
			return strings.Join(lines, "\n"), nil
		default:
			lines = append(lines, line)
			if !block && complete(lines) {
				return strings.Join(lines, "\n"), nil
			}
		}
	}
}

func (c *chunker) read(r LineReader, more bool) (string, error) {
	if c.carry != nil {
		line := *c.carry
		c.carry = nil
		return line, nil
	}
	if more {
		return r.ReadLine(MorePrompt)
	}
	return r.ReadLine(Prompt)
}

// startsBlock reports whether a first line opens a compound statement.
func startsBlock(line string) bool {
	t := strings.TrimSpace(line)
	for _, kw := range []string{"def ", "if ", "for ", "while ", "elif ", "else:", "else "} {
		if strings.HasPrefix(t, kw) {
			return true
		}
	}
	return strings.HasSuffix(t, ":")
}

// continuesBlock reports whether a line read after a blank line belongs to
// the block above it.
func continuesBlock(line string) bool {
	if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
		return true
	}
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "else") || strings.HasPrefix(t, "elif ")
}

// complete reports whether lines form a whole statement: it parses, or its
// parse error is not about input ending too soon (open brackets, strings).
func complete(lines []string) bool {
	_, err := runtime.Dialect.Parse("<repl>", strings.Join(lines, "\n")+"\n", 0)
	if err == nil {
		return true
	}
	msg := err.Error()
	return !strings.Contains(msg, "got end of file") && !strings.Contains(msg, "unexpected EOF")
}
