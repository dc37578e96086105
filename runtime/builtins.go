package runtime

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fabricops/fabric/runtime/command"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// builtins returns the runtime's own predeclared builtins.
func builtins() starlark.StringDict {
	return starlark.StringDict{
		"try_": doc.Builtin("try_", `try_(fn, *args, **kwargs)

Calls fn(*args, **kwargs) and returns (value, None) when it succeeds or
(None, message) when it fails, so that a script can handle an error
instead of stopping. sys.exit() and cancellation are not caught.`, tryBuiltin),
		"help": doc.Builtin("help", `help(x=None)

Without an argument, lists the modules and builtins there are. With one,
shows the documentation of a builtin, module or function, or of a name
given as a string ("json.encode").`, helpBuiltin),
		"usage_error": doc.Builtin("usage_error", `usage_error(message)

Stops a command with a usage error: the shell prints the message and the
command's usage, and exits 2. For checks that flag declarations cannot
express ("--sample must be > 0 and <= 1.0").`, usageErrorBuiltin),
		"exit": doc.Builtin("exit", `exit(code=0)

Ends the script (or leaves the REPL) with the given exit code.`, exitBuiltin),
		"struct": doc.Builtin("struct", `struct(**fields)

Returns an immutable value whose attributes are the fields
(struct(a=1).a == 1): a record, or a set of functions a library returns.`, starlarkstruct.Make),
	}
}

func tryBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("try_: missing function to call")
	}
	fn, ok := args[0].(starlark.Callable)
	if !ok {
		return nil, fmt.Errorf("try_: %s is not callable", args[0].Type())
	}
	v, err := starlark.Call(thread, fn, args[1:], kwargs)
	if err != nil {
		if IsExit(err) || IsCancelled(thread) {
			return nil, err
		}
		return starlark.Tuple{starlark.None, starlark.String(Message(err))}, nil
	}
	return starlark.Tuple{v, starlark.None}, nil
}

func usageErrorBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var msg string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &msg); err != nil {
		return nil, err
	}
	return nil, &command.UsageError{Msg: msg}
}

func exitBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	code := 0
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0, &code); err != nil {
		return nil, err
	}
	return nil, &host.ExitError{Code: code}
}

func helpBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0, &x); err != nil {
		return nil, err
	}
	w := host.From(thread).Stdout
	if x == starlark.None {
		fmt.Fprint(w, Overview(thread))
		return starlark.None, nil
	}
	fmt.Fprintln(w, Describe(x))
	return starlark.None, nil
}

// Describe returns the documentation of a value for help(x).
func Describe(x starlark.Value) string {
	if s, ok := x.(starlark.String); ok {
		if d, ok := doc.Lookup(string(s)); ok {
			return d
		}
		return fmt.Sprintf("no documentation for %q", string(s))
	}
	if d, ok := doc.Of(x); ok {
		return d
	}
	return fmt.Sprintf("%s value: %s", x.Type(), trim(x.String(), 200))
}

// Overview lists the predeclared modules and builtins with their summaries,
// as help() shows them.
func Overview(thread *starlark.Thread) string {
	var mods, fns []string
	globals := map[string]starlark.Value{}
	if thread != nil {
		if p, ok := thread.Local(predeclaredKey).(starlark.StringDict); ok {
			for k, v := range p {
				globals[k] = v
			}
		}
	}
	for k, v := range globals {
		switch v.(type) {
		case *starlarkstruct.Module:
			mods = append(mods, k)
		case *starlark.Builtin:
			fns = append(fns, k)
		}
	}
	sort.Strings(mods)
	sort.Strings(fns)
	var b strings.Builder
	width := 0
	for _, n := range append(append([]string{}, mods...), fns...) {
		width = max(width, len(n))
	}
	b.WriteString("Modules (help(name) lists their members):\n")
	for _, n := range mods {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, n, summary(globals[n]))
	}
	b.WriteString("\nBuiltins:\n")
	for _, n := range fns {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, n, summary(globals[n]))
	}
	b.WriteString("\nAlso the Starlark built-ins (len, str, sorted, ...). In the REPL, a line starting\nwith ':' runs a command of the command line (:help lists them).\n")
	return b.String()
}

// predeclaredKey holds the predeclared names on a thread, for help().
const predeclaredKey = "fabric.predeclared"

// summary is the one-line description of a predeclared value: a module's
// first sentence, a builtin's signature.
func summary(v starlark.Value) string {
	d, _ := doc.Of(v)
	if _, ok := v.(*starlarkstruct.Module); ok {
		return doc.FirstSentence(d)
	}
	first, _, _ := strings.Cut(d, "\n")
	return first
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n-3] + "..."
	}
	return s
}
