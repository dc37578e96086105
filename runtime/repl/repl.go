// Package repl is the shell's interactive loop: it reads chunks of Starlark
// (multi-line blocks, pasted blocks with blank lines inside), runs them
// against persistent globals, prints results pretty and keeps the last in
// _, shows errors with their backtrace and goes on, runs ":command" lines,
// and completes names, module members and keywords.
package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fabricops/fabric/runtime"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// dialect is the runtime's dialect, with load() binding globally as the
// REPL's statements share one namespace.
var dialect = func() *syntax.FileOptions {
	d := *runtime.Dialect
	d.LoadBindsGlobally = true
	return &d
}()

// Session is one REPL session: its runtime and its globals.
type Session struct {
	RT *runtime.Runtime
	// Globals is the session's namespace, which statements and
	// expressions alike run in: it starts as the runtime's predeclared
	// names (and dir()), and holds the names the session defines, which
	// may shadow them.
	Globals starlark.StringDict
	// Command runs a ":command" line (without the colon) and returns its
	// exit code; nil disables command mode.
	Command func(line string) int
	// Interrupts, when set, delivers Ctrl-C while code runs; the default
	// is the process's SIGINT.
	Interrupts <-chan os.Signal

	chunks chunker
}

// NewSession returns a session over rt whose globals are the predeclared
// names.
//
// The predeclared names must be globals of the session, not only names
// expressions see: a statement chunk runs through starlark.ExecREPLChunk,
// which resolves names against the globals and the universe only (it has
// no predeclared block), so "p = pods()" would be "undefined: pods".
func NewSession(rt *runtime.Runtime) *Session {
	s := &Session{RT: rt, Globals: starlark.StringDict{}}
	for k, v := range rt.Predeclared() {
		s.Globals[k] = v
	}
	s.Globals["dir"] = s.dirBuiltin()
	return s
}

// Run reads and runs chunks until the end of input or exit(), and returns
// the exit code.
func (s *Session) Run(r LineReader) int {
	for {
		src, err := s.chunks.next(r)
		switch {
		case errors.Is(err, ErrInterrupt):
			continue
		case errors.Is(err, io.EOF):
			return runtime.ExitOK
		case err != nil:
			fmt.Fprintln(s.RT.IO().Stderr, "error:", err)
			return runtime.ExitFailure
		}
		if code, exit := s.Eval(src); exit {
			return code
		}
	}
}

// Eval runs one chunk. exit is true when the chunk called exit().
func (s *Session) Eval(src string) (code int, exit bool) {
	io := s.RT.IO()
	if line, ok := strings.CutPrefix(strings.TrimSpace(src), ":"); ok {
		if s.Command == nil {
			fmt.Fprintln(io.Stderr, "error: commands are not available here")
			return runtime.ExitFailure, false
		}
		return s.Command(line), false
	}
	f, err := dialect.Parse("<repl>", src+"\n", 0)
	if err != nil {
		fmt.Fprintln(io.Stderr, runtime.Backtrace(err))
		return runtime.ExitFailure, false
	}
	// A fresh thread per chunk: a cancelled thread cannot run again.
	thread := s.RT.NewThread("repl")
	stop := runtime.CancelOnInterrupt(thread, s.Interrupts)
	defer stop()
	if expr := soleExpr(f); expr != nil {
		v, err := starlark.EvalExprOptions(dialect, thread, expr, s.Globals)
		if err != nil {
			return s.report(thread, err)
		}
		if v != starlark.None {
			fmt.Fprintln(io.Stdout, Pretty(v))
			s.Globals["_"] = v
		}
		return runtime.ExitOK, false
	}
	if err := starlark.ExecREPLChunk(f, thread, s.Globals); err != nil {
		return s.report(thread, err)
	}
	return runtime.ExitOK, false
}

// dirBuiltin is the REPL's dir(): without an argument it lists the names in
// scope, as Python's does; dir(x) is Starlark's.
func (s *Session) dirBuiltin() *starlark.Builtin {
	return doc.Builtin("dir", `dir(x=None)

Without an argument, lists the names in scope in the REPL (the modules and
builtins, and the names defined in the session). With one, lists x's
attributes and methods.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args)+len(kwargs) > 0 {
			return starlark.Call(thread, starlark.Universe["dir"], args, kwargs)
		}
		names := make([]starlark.Value, 0, len(s.Globals))
		for _, k := range s.Globals.Keys() {
			names = append(names, starlark.String(k))
		}
		return starlark.NewList(names), nil
	})
}

func (s *Session) report(thread *starlark.Thread, err error) (int, bool) {
	stderr := s.RT.IO().Stderr
	switch {
	case runtime.IsExit(err):
		return runtime.ExitCode(thread, err), true
	case runtime.IsCancelled(thread):
		fmt.Fprintln(stderr, "interrupted")
		return runtime.ExitInterrupted, false
	}
	fmt.Fprintln(stderr, runtime.Backtrace(err))
	return runtime.ExitFailure, false
}

// soleExpr returns the expression of a chunk that is one expression
// statement, whose value the REPL prints.
func soleExpr(f *syntax.File) syntax.Expr {
	if len(f.Stmts) == 1 {
		if stmt, ok := f.Stmts[0].(*syntax.ExprStmt); ok {
			return stmt.X
		}
	}
	return nil
}

// RunRC runs $FABRIC_HOME/rc.star into the session's globals when present.
func (s *Session) RunRC(path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		return
	}
	f, err := dialect.Parse(path, src, 0)
	if err == nil {
		err = starlark.ExecREPLChunk(f, s.RT.NewThread("rc"), s.Globals)
	}
	if err != nil {
		fmt.Fprintf(s.RT.IO().Stderr, "warning: %s failed:\n%s\n", path, runtime.Backtrace(err))
	}
}
