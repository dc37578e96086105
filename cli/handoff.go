package cli

import (
	"fmt"
	"os"
	"syscall"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/infra/local"
	"github.com/fabricops/fabric/runtime"
	"github.com/fabricops/fabric/runtime/command"
	"go.starlark.net/starlark"
)

// FullClient is the client built with the data libraries, which a lean
// client (built with the "lean" tag: no Arrow, Parquet or Excel, so that
// it starts in a few milliseconds) hands programs over to.
const FullClient = "client-data"

// dataNames are the names a program must mention to need the full client.
var dataNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range builtins.DataNames {
		m[n] = true
	}
	return m
}()

// needsFull reports whether this is a lean client and the program src
// (or a module it loads) needs the full one.
func (sh *shell) needsFull(rt *runtime.Runtime, filename string, src []byte) bool {
	return builtins.Lean && rt.Uses(filename, src, dataNames)
}

// handOff replaces this process with the full client, run with the same
// arguments, environment, standard streams and terminal. It returns only
// when that cannot be done, with the exit code of the failure.
func (sh *shell) handOff() int {
	full, beside, err := local.FindBinary(FullClient)
	if err == nil {
		argv := append([]string{full}, sh.argv...)
		err = syscall.Exec(full, argv, os.Environ())
	}
	if beside == "" {
		beside = FullClient
	}
	fmt.Fprintf(sh.io.Stderr, "error: this needs the data libraries, which are in %s (beside the client, %s, or on PATH): %v; build both with 'make build' or install them with 'make install'\n", FullClient, beside, err)
	return runtime.ExitFailure
}

// commandNeedsFull reports whether this is a lean client and the script
// that declares cmd (or a module it loads) needs the full one.
func (sh *shell) commandNeedsFull(rt *runtime.Runtime, cmd *command.Command) bool {
	return builtins.Lean && rt.ModuleUses(cmd.File, dataNames)
}

// runLean runs a command's lean function in this lean client: done
// reports that it did the command; when it did not, the full client runs
// the command from the start (a builtin only the full client has, or a
// failure the full client reports its own way, end the lean function with
// an error). An interrupt ends the command: interrupted is then true.
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
