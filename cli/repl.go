package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fabricops/fabric/runtime"
	"github.com/fabricops/fabric/runtime/repl"
	"go.starlark.net/starlark"
)

// repl runs the interactive shell on the terminal.
func (sh *shell) repl() int {
	home := Home()
	if err := os.MkdirAll(home, 0o700); err != nil {
		fmt.Fprintf(sh.io.Stderr, "warning: cannot create %s: %v (history is not kept)\n", home, err)
	}
	s := sh.newSession()
	term, err := repl.NewTerminal(filepath.Join(home, "history"), sh.completer(s))
	if err != nil {
		fmt.Fprintf(sh.io.Stderr, "error: cannot open the terminal: %v\n", err)
		return runtime.ExitFailure
	}
	defer term.Close()
	fmt.Fprintf(sh.io.Stdout, "%s %s — Starlark shell. help() lists modules, :help lists commands, Ctrl-D leaves.\n", Prog, Version)
	return s.Run(term)
}

// newSession returns a REPL session whose ":command" lines run bundled
// commands, with rc.star already run.
func (sh *shell) newSession() *repl.Session {
	s := repl.NewSession(sh.newRuntime([]string{"<repl>"}))
	s.Command = func(line string) int {
		words, err := splitWords(line)
		if err != nil {
			fmt.Fprintf(sh.io.Stderr, "error: %v\n", err)
			return runtime.ExitUsage
		}
		if len(words) == 0 || words[0] == "help" {
			return sh.help(words[min(1, len(words)):])
		}
		return sh.command(words)
	}
	s.RunRC(filepath.Join(Home(), "rc.star"))
	return s
}

// completer completes the session's names and the command names.
func (sh *shell) completer(s *repl.Session) *repl.Completer {
	return &repl.Completer{
		// The session's globals hold the predeclared names too.
		Names: func() starlark.StringDict { return s.Globals },
		Commands: func() []string {
			ix, err := sh.index()
			if err != nil {
				return nil
			}
			var names []string
			for _, k := range ix.Keys() {
				names = append(names, ix.Name(k))
			}
			return names
		},
	}
}
