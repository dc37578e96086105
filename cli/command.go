package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/runtime"
	"github.com/fabricops/fabric/runtime/command"
	"github.com/fabricops/fabric/runtime/diskcache"
	"github.com/fabricops/fabric/scripts"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
)

// scriptCache is where what the bundled scripts derive is kept across
// processes (see runtime/diskcache).
func scriptCache() string { return filepath.Join(Home(), "cache", "scripts") }

// index returns the command index over the bundled and the user's scripts.
func (sh *shell) index() (*command.Index, error) {
	user := filepath.Join(Home(), "scripts")
	cache := diskcache.New(scriptCache())
	if bundled, ok := cache.Get("index"); ok {
		if ix, err := command.NewIndexOf(bundled, user); err == nil {
			return ix, nil
		}
	}
	bundled, err := command.IndexBundle(scripts.FS, usesFabric(builtins.Modules(sh.env)))
	if err != nil {
		return nil, err
	}
	cache.Put(bundled, "index")
	return command.NewIndexOf(bundled, user)
}

// command runs the bundled or user command that args name.
func (sh *shell) command(args []string) int {
	ix, err := sh.index()
	if err != nil {
		fmt.Fprintf(sh.io.Stderr, "error: cannot index scripts: %v\n", err)
		return runtime.ExitFailure
	}
	key, n, ok := ix.Resolve(args)
	if !ok && isGroup(ix, args[0]) {
		// "client dataset -h" lists the group's commands; a bare group
		// is a usage error that lists them too.
		if len(args) > 1 && (args[1] == "-h" || args[1] == "--help") {
			return sh.help(args[:1])
		}
		if len(args) == 1 {
			fmt.Fprintf(sh.io.Stderr, "error: %s needs a command\n", args[0])
			fmt.Fprintf(sh.io.Stderr, "usage: %s %s COMMAND [FLAGS]\n", Prog, command.Canonical(args[0]))
			listCommands(sh.io.Stderr, sh.allCommands(ix, command.Canonical(args[0])+"-"))
			return runtime.ExitUsage
		}
	}
	if !ok {
		fmt.Fprintf(sh.io.Stderr, "error: unknown command %q\n", strings.Join(leadingWords(args), " "))
		if s := ix.Suggest(args); len(s) > 0 {
			fmt.Fprintf(sh.io.Stderr, "Did you mean:\n")
			for _, c := range s {
				fmt.Fprintf(sh.io.Stderr, "  %s %s\n", Prog, c)
			}
		}
		fmt.Fprintf(sh.io.Stderr, "Run '%s help' for the list of commands.\n", Prog)
		return runtime.ExitUsage
	}
	// A command whose script uses the fabric connects while its script
	// loads (not for its help).
	if src, _ := ix.Find(key); src.Fabric && !asksHelp(args[n:]) {
		sh.env.DialAhead()
	}
	rt := sh.newRuntime(args)
	cmd, code := sh.load(rt, ix, key)
	if cmd == nil {
		return code
	}
	return sh.invoke(rt, cmd, args, n)
}

// load executes the script that declares the command key and returns it.
func (sh *shell) load(rt *runtime.Runtime, ix *command.Index, key string) (*command.Command, int) {
	src, _ := ix.Find(key)
	thread := rt.NewThread(key)
	var err error
	if src.Bundled {
		_, err = rt.ExecBundled(thread, src.Path)
	} else {
		_, err = rt.ExecPath(thread, src.Path)
	}
	if err != nil {
		fmt.Fprintf(sh.io.Stderr, "error: script of command %q failed to load:\n%s\n", ix.Name(key), runtime.Backtrace(err))
		return nil, runtime.ExitFailure
	}
	cmd := rt.Commands.Get(key)
	if cmd == nil {
		fmt.Fprintf(sh.io.Stderr, "error: %s does not declare command %q (command names must be string literals)\n", src.Path, ix.Name(key))
		return nil, runtime.ExitFailure
	}
	return cmd, runtime.ExitOK
}

// invoke parses the arguments of cmd (args after its n words) and calls
// its function, or hands args over when the function needs what this
// build lacks.
func (sh *shell) invoke(rt *runtime.Runtime, cmd *command.Command, args []string, n int) int {
	parsed, err := command.Parse(cmd, args[n:])
	if err != nil {
		fmt.Fprintf(sh.io.Stderr, "error: %s\n%s\nRun '%s %s -h' for help.\n", err, command.Usage(Prog, cmd), Prog, cmd.Name)
		return runtime.ExitUsage
	}
	if parsed.Help {
		fmt.Fprint(sh.io.Stdout, command.Help(Prog, cmd))
		return runtime.ExitOK
	}
	if sh.commandLacks(rt, cmd) {
		if cmd.Lean != nil && len(parsed.Warnings) == 0 {
			switch done, interrupted := sh.runLean(rt, cmd, parsed.Args); {
			case interrupted:
				return runtime.ExitInterrupted
			case done:
				return runtime.ExitOK
			}
		}
		return sh.handOffArgs(args)
	}
	for _, w := range parsed.Warnings {
		fmt.Fprintf(sh.io.Stderr, "warning: %s\n", w)
	}
	thread := rt.NewThread(cmd.Name)
	stop := runtime.CancelOnInterrupt(thread, nil)
	_, err = starlark.Call(thread, cmd.Fn, starlark.Tuple{parsed.Args}, nil)
	stop()
	code := runtime.ExitCode(thread, err)
	switch {
	case err == nil || runtime.IsExit(err):
	case runtime.IsCancelled(thread):
		fmt.Fprintln(sh.io.Stderr, "interrupted")
	case code == runtime.ExitUsage:
		fmt.Fprintf(sh.io.Stderr, "error: %s\n%s\nRun '%s %s -h' for help.\n", runtime.Message(err), command.Usage(Prog, cmd), Prog, cmd.Name)
	case sh.debug:
		fmt.Fprintln(sh.io.Stderr, runtime.Backtrace(err))
	default:
		fmt.Fprintf(sh.io.Stderr, "error: %s\n", runtime.CommandMessage(err, cmd.Name))
	}
	return code
}

// isGroup reports whether word names a group of commands ("dataset").
func isGroup(ix *command.Index, word string) bool {
	prefix := command.Canonical(word) + "-"
	for _, k := range ix.Keys() {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// help prints the shell's usage and command list, a group's commands, or a
// command's help.
func (sh *shell) help(args []string) int {
	if len(args) > 0 && args[0] == "--markdown" {
		return sh.markdown(args[1:])
	}
	ix, err := sh.index()
	if err != nil {
		fmt.Fprintf(sh.io.Stderr, "error: cannot index scripts: %v\n", err)
		return runtime.ExitFailure
	}
	if len(args) > 0 {
		if key, n, ok := ix.Resolve(args); ok && n == len(args) {
			rt := sh.newRuntime(args)
			cmd, code := sh.load(rt, ix, key)
			if cmd == nil {
				return code
			}
			fmt.Fprint(sh.io.Stdout, command.Help(Prog, cmd))
			return runtime.ExitOK
		}
	}
	prefix := ""
	if len(args) > 0 {
		prefix = command.Canonical(strings.Join(args, " ")) + "-"
	}
	cmds := sh.allCommands(ix, prefix)
	if len(args) > 0 && len(cmds) == 0 {
		return sh.command(args) // unknown: the same message and suggestions
	}
	if len(args) == 0 {
		fmt.Fprint(sh.io.Stdout, shellUsage)
	} else {
		fmt.Fprintf(sh.io.Stdout, "usage: %s %s COMMAND [FLAGS]\n", Prog, strings.TrimSuffix(prefix, "-"))
	}
	listCommands(sh.io.Stdout, cmds)
	return runtime.ExitOK
}

// listCommands prints the commands' names and summaries, and how to get a
// command's flags.
func listCommands(w io.Writer, cmds []*command.Command) {
	fmt.Fprintln(w, "\nCommands:")
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.Name))
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Summary())
	}
	fmt.Fprintf(w, "\nRun '%s COMMAND -h' for a command's flags.\n", Prog)
}

// allCommands loads every script and returns the commands whose key starts
// with prefix, sorted by name.
func (sh *shell) allCommands(ix *command.Index, prefix string) []*command.Command {
	rt := sh.newRuntime(nil)
	seen := map[string]bool{}
	for _, key := range ix.Keys() {
		if !strings.HasPrefix(key+"-", prefix) {
			continue
		}
		src, _ := ix.Find(key)
		if seen[src.Path] {
			continue
		}
		seen[src.Path] = true
		thread := rt.NewThread(key)
		if src.Bundled {
			_, _ = rt.ExecBundled(thread, src.Path)
		} else if _, err := rt.ExecPath(thread, src.Path); err != nil {
			fmt.Fprintf(sh.io.Stderr, "warning: %s: %s\n", src.Path, runtime.Message(err))
		}
	}
	var cmds []*command.Command
	for _, c := range rt.Commands.All() {
		if strings.HasPrefix(c.Key()+"-", prefix) {
			cmds = append(cmds, c)
		}
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return cmds
}

const shellUsage = `client - the fabric operations shell (Starlark)

Usage:
  client                         the REPL (reads a script from stdin when it is not a terminal)
  client run FILE.star [ARGS]    run a workflow; also: client FILE.star [ARGS]
  client -c CODE [ARGS]          run Starlark code
  client --check FILE.star...    parse and resolve without running
  client COMMAND [FLAGS]         run a command; "group sub" and "group-sub" are the same
  client help [COMMAND]          this help, a group's commands, or a command's help
  client help --markdown         the reference of every command, in Markdown
  client completion SHELL        a completion script for bash, zsh or fish (-h: how to install)
  client version                 print the version

Environment: FABRIC_HOME (default ~/.fabric: history, scripts/, rc.star),
NO_COLOR (plain output), FABRIC_DEBUG=1 (backtraces for command errors).
`

// leadingWords returns the words of args before the first flag.
func leadingWords(args []string) []string {
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			return args[:i]
		}
	}
	return args
}

// usesFabric reports whether a bundled script names one of the fabric's
// builtins (names, the keys of builtins.Modules): its commands connect
// ahead (builtins.Env.DialAhead). A script that reaches the fabric only
// through a module it loads is not marked; its commands connect when
// they first ask, as any other.
func usesFabric(names starlark.StringDict) func(path string, src []byte) bool {
	return func(path string, src []byte) bool {
		f, err := runtime.Dialect.Parse(path, src, 0)
		if err != nil {
			return false
		}
		uses := false
		err = resolve.File(f, func(name string) bool {
			_, ok := names[name]
			uses = uses || ok
			return true
		}, starlark.Universe.Has)
		return err == nil && uses
	}
}

// asksHelp reports whether a command's arguments ask for its help.
func asksHelp(args []string) bool {
	return slices.Contains(args, "-h") || slices.Contains(args, "--help")
}
