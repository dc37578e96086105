// Package cli is the client's entry point: it turns argv into the REPL, a
// script run, a syntax check, or a bundled command, wiring the Starlark
// runtime to the standard modules, the fabric's builtins and the bundled
// scripts. Main is shared by the binary and the tests.
package cli

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/fabricops/fabric/fabric/infra/local"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/runtime"
	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/runtime/out"
	"github.com/fabricops/fabric/runtime/stdlib"
	"github.com/fabricops/fabric/scripts"
	"go.starlark.net/starlark"
)

// Prog is the name the shell calls itself in messages.
const Prog = "client"

// Version is the client's version, set at build time with
// -ldflags "-X github.com/fabricops/fabric/cli.Version=...".
var Version = "0.1.0-dev"

// Main runs the client with args (without the program name) and returns
// its exit code: 0 success, 1 failure, 2 usage error, 130 interrupted.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sh := &shell{terminal: host.IsTerminal(stdin), argv: args}
	outTerm, errTerm := host.IsTerminal(stdout), host.IsTerminal(stderr)
	columns := host.ColumnsOf(stdout)
	pipe := &pipeWatch{w: stdout}
	stdout = pipe
	stderr = quietAfter{stderr, pipe}
	if _, ok := stdin.(io.ByteReader); !ok {
		// One buffer for the whole run, so that successive input() calls
		// (on any thread) never lose what a previous one read ahead.
		stdin = bufio.NewReader(stdin)
	}
	sh.io = &host.IO{
		Stdin:          stdin,
		Stdout:         stdout,
		Stderr:         stderr,
		StdoutTerminal: outTerm,
		StderrTerminal: errTerm,
		NoColor:        os.Getenv("NO_COLOR") != "" || !outTerm,
		Columns:        columns,
	}
	sh.debug = os.Getenv("FABRIC_DEBUG") != ""
	sh.env = &builtins.Env{Home: Home(), Version: Version, Notice: func(msg string) { fmt.Fprintln(stderr, msg) }}
	defer sh.env.Close()
	code := sh.main(args)
	if pipe.broken.Load() {
		// The reader of stdout went away: what failed after that is
		// not news to anyone; exit as a shell reports SIGPIPE.
		return ExitBrokenPipe
	}
	return code
}

// quietAfter is stderr, silent once stdout's reader went away: the errors
// that follow from it (broken pipe) are not news.
type quietAfter struct {
	w    io.Writer
	pipe *pipeWatch
}

func (q quietAfter) Write(b []byte) (int, error) {
	if q.pipe.broken.Load() {
		return len(b), nil
	}
	return q.w.Write(b)
}

// ExitBrokenPipe is the exit code when stdout's reader went away (128 +
// SIGPIPE, as a shell reports a process that SIGPIPE ended).
const ExitBrokenPipe = 141

// pipeWatch is stdout, noting when a write fails because its reader went
// away; every later write fails at once without writing.
type pipeWatch struct {
	w      io.Writer
	broken atomic.Bool
}

func (p *pipeWatch) Write(b []byte) (int, error) {
	if p.broken.Load() {
		return 0, syscall.EPIPE
	}
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.broken.Store(true)
	}
	return n, err
}

// Home returns the client's home directory: $FABRIC_HOME, or ~/.fabric.
func Home() string { return local.Home() }

type shell struct {
	// argv is what Main was given, for handing over to the full client.
	argv     []string
	io       *host.IO
	env      *builtins.Env
	debug    bool
	terminal bool // stdin is a terminal: no arguments means the REPL
}

func (sh *shell) main(args []string) int {
	for len(args) > 0 && args[0] == "--debug" {
		sh.debug = true
		args = args[1:]
	}
	if len(args) == 0 {
		if HandOffTo != "" {
			return sh.handOff() // the REPL and stdin may use anything
		}
		if sh.terminal {
			return sh.repl()
		}
		return sh.runSource("<stdin>", nil, []string{"<stdin>"})
	}
	switch a := args[0]; {
	case a == "-h" || a == "--help":
		return sh.help(nil)
	case a == "help":
		return sh.help(args[1:])
	case a == "completion":
		return sh.completion(args[1:])
	case a == "version" || a == "--version":
		fmt.Fprintf(sh.io.Stdout, "%s %s\n", Prog, Version)
		return runtime.ExitOK
	case a == "repl":
		if HandOffTo != "" {
			return sh.handOff()
		}
		return sh.repl()
	case a == "-c":
		if len(args) < 2 {
			return sh.usageError("-c needs Starlark code to run", "usage: client -c CODE [ARGS...]")
		}
		return sh.runSource("<-c>", []byte(args[1]), append([]string{"-c"}, args[2:]...))
	case a == "--check":
		if len(args) < 2 {
			return sh.usageError("--check needs a file", "usage: client --check FILE.star...")
		}
		return sh.check(args[1:])
	case a == "run" && len(args) > 1 && strings.HasPrefix(args[1], "-"):
		// "run --name P" is the command that starts a pipeline on a
		// worker; "run FILE.star" runs a script.
		return sh.command(args)
	case a == "run":
		if len(args) < 2 {
			return sh.usageError("run needs a script or a pipeline",
				"usage: client run FILE.star [ARGS...]   (a workflow)\n       client run --name PIPELINE | --file FILE [flags]   (a pipeline on a worker; client run -h)")
		}
		return sh.runFile(args[1], args[1:])
	case strings.HasSuffix(a, ".star"):
		return sh.runFile(a, args)
	case strings.HasPrefix(a, "-"):
		return sh.usageError(fmt.Sprintf("unknown option %s", a), "usage: client [COMMAND | run FILE.star | -c CODE | --check FILE.star] (client help lists commands)")
	}
	return sh.command(args)
}

// newRuntime builds a runtime whose scripts see argv as sys.argv.
func (sh *shell) newRuntime(argv []string) *runtime.Runtime {
	io := *sh.io
	io.Argv = argv
	predeclared := starlark.StringDict{}
	for k, v := range stdlib.Modules() {
		predeclared[k] = v
	}
	for k, v := range builtins.Modules(sh.env) {
		predeclared[k] = v
	}
	predeclared["sys"] = stdlib.SysModule(argv)
	predeclared["out"] = out.Module()
	predeclared["input"] = stdlib.InputBuiltin()
	predeclared["exec_command"] = sh.execCommandBuiltin()
	o := runtime.Options{IO: &io, Bundle: scripts.FS, Predeclared: predeclared, CacheDir: scriptCache()}
	if HandOffTo != "" {
		o.Absent = absent
	}
	return runtime.New(o)
}

// runFile runs a script from disk with argv as sys.argv.
func (sh *shell) runFile(path string, argv []string) int {
	src, err := os.ReadFile(sh.io.Path(path))
	if err != nil {
		fmt.Fprintf(sh.io.Stderr, "error: cannot read script: %v\n", err)
		return runtime.ExitFailure
	}
	return sh.runSource(path, src, argv)
}

// runSource runs Starlark source (read from stdin when src is nil).
func (sh *shell) runSource(name string, src []byte, argv []string) int {
	if src == nil {
		var err error
		if src, err = io.ReadAll(sh.io.Stdin); err != nil {
			fmt.Fprintf(sh.io.Stderr, "error: cannot read script from stdin: %v\n", err)
			return runtime.ExitFailure
		}
	}
	rt := sh.newRuntime(argv)
	if sh.lacks(rt, name, src) {
		return sh.handOff()
	}
	thread := rt.NewThread(name)
	stop := runtime.CancelOnInterrupt(thread, nil)
	_, err := rt.ExecFile(thread, name, src)
	stop()
	if err != nil && !runtime.IsExit(err) {
		if runtime.IsCancelled(thread) {
			fmt.Fprintln(sh.io.Stderr, "interrupted")
		} else {
			fmt.Fprintln(sh.io.Stderr, runtime.Backtrace(err))
		}
	}
	return runtime.ExitCode(thread, err)
}

func (sh *shell) check(files []string) int {
	rt := sh.newRuntime(files)
	if HandOffTo != "" {
		// A name this build lacks may be one the data build has: that
		// build checks.
		for _, f := range files {
			if src, err := os.ReadFile(sh.io.Path(f)); err == nil && sh.lacks(rt, f, src) {
				return sh.handOff()
			}
		}
	}
	code := runtime.ExitOK
	for _, f := range files {
		src, err := os.ReadFile(sh.io.Path(f))
		if err != nil {
			fmt.Fprintf(sh.io.Stderr, "error: cannot read script: %v\n", err)
			code = runtime.ExitFailure
			continue
		}
		for _, e := range rt.Check(f, src) {
			fmt.Fprintln(sh.io.Stderr, e)
			code = runtime.ExitFailure
		}
	}
	return code
}

func (sh *shell) usageError(msg, usage string) int {
	fmt.Fprintf(sh.io.Stderr, "error: %s\n%s\n", msg, usage)
	return runtime.ExitUsage
}
