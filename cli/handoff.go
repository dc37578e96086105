package cli

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/fabricops/fabric/fabric/client/local"
	"github.com/fabricops/fabric/runtime"
	"github.com/fabricops/fabric/runtime/command"
	"go.starlark.net/starlark"
)

// DataClient is the data build of the client (cmd/client-data: the lean
// build's modules and the data libraries' ones), which the lean build
// hands what it lacks to.
const DataClient = "client-data"

// HandOffTo is the build this one hands a program to when the program
// reaches a name or module member this build lacks ("": none, the
// program runs here and reports what it lacks). The lean build's main
// sets it to DataClient; the data build and the tests leave it empty.
var HandOffTo = ""

// lacks reports whether this build hands programs over and the program
// src (with the modules it loads) reaches something it lacks.
func (sh *shell) lacks(rt *runtime.Runtime, filename string, src []byte) bool {
	return HandOffTo != "" && sh.debugLacks(rt.Lacks(filename, src))
}

// commandLacks reports whether this build hands programs over and the
// function of cmd (with what it reaches) needs something it lacks.
func (sh *shell) commandLacks(rt *runtime.Runtime, cmd *command.Command) bool {
	return HandOffTo != "" && sh.debugLacks(rt.FuncLacks(cmd.Fn))
}

// debugLacks reports whether names is not empty, saying which names it
// holds under --debug.
func (sh *shell) debugLacks(names []string) bool {
	if len(names) > 0 && sh.debug {
		fmt.Fprintf(sh.io.Stderr, "debug: handing over to %s for %s\n", HandOffTo, strings.Join(names, ", "))
	}
	return len(names) > 0
}

// handOff replaces this process with the build HandOffTo, run with the
// same arguments, environment, standard streams and terminal. It returns
// only when that cannot be done, with the exit code of the failure.
func (sh *shell) handOff() int { return sh.handOffArgs(sh.argv) }

// handOffArgs is handOff with the arguments args (those after the
// program's name).
func (sh *shell) handOffArgs(args []string) int {
	full, beside, err := local.FindBinary(HandOffTo)
	if err == nil {
		argv := append([]string{full}, args...)
		if sh.debug {
			argv = append([]string{full, "--debug"}, args...)
		}
		err = syscall.Exec(full, argv, os.Environ())
	}
	if beside == "" {
		beside = HandOffTo
	}
	fmt.Fprintf(sh.io.Stderr, "error: this needs the data libraries, which are in %s (beside the client, %s, or on PATH): %v; build both with 'make build' or install them with 'make install'\n", HandOffTo, beside, err)
	return runtime.ExitFailure
}

// absent stands in, in a build that hands programs over, for a name a
// script uses that this build lacks: scripts that name one still run
// their top level (declaring commands, reading constants), and the
// stand-in says what to do if it is called all the same.
func absent(name string) starlark.Value { return &standIn{name: name} }

// standIn is a name this build lacks: any attribute is another stand-in,
// and calling one fails in one line.
type standIn struct{ name string }

func (s *standIn) String() string        { return "<" + s.name + ">" }
func (s *standIn) Type() string          { return "builtin_function_or_method" }
func (s *standIn) Freeze()               {}
func (s *standIn) Truth() starlark.Bool  { return true }
func (s *standIn) Hash() (uint32, error) { return starlark.String(s.name).Hash() }
func (s *standIn) Name() string          { return s.name }

// Attr implements starlark.HasAttrs.
func (s *standIn) Attr(name string) (starlark.Value, error) {
	return &standIn{name: s.name + "." + name}, nil
}

// AttrNames implements starlark.HasAttrs.
func (s *standIn) AttrNames() []string { return nil }

// CallInternal implements starlark.Callable.
func (s *standIn) CallInternal(*starlark.Thread, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return nil, fmt.Errorf("%s needs the data libraries: run it with %s (this client is the lean build)", s.name, HandOffTo)
}

// runLean runs a command's lean function (command()'s lean) in this
// build, before handing the command over: done reports that it did the
// command; when it did not, the data build runs the command from the
// start (a failure of the lean function ends it the same way). An
// interrupt ends the command: interrupted is then true.
func (sh *shell) runLean(rt *runtime.Runtime, cmd *command.Command, args starlark.Value) (done, interrupted bool) {
	thread := rt.NewThread(cmd.Name)
	stop := runtime.CancelOnInterrupt(thread, nil)
	v, err := starlark.Call(thread, cmd.Lean, starlark.Tuple{args}, nil)
	stop()
	if runtime.IsCancelled(thread) {
		fmt.Fprintln(sh.io.Stderr, "interrupted")
		return false, true
	}
	return err == nil && v == starlark.True, false
}
