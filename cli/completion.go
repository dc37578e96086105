package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fabricops/fabric/runtime"
	"github.com/fabricops/fabric/runtime/command"
)

const completionUsage = "usage: client completion bash|zsh|fish   (client completion -h tells how to install it)"

const completionHelp = `usage: client completion bash|zsh|fish

Print a shell completion script for client, generated from the declarations
of the bundled commands and of the user's ($FABRIC_HOME/scripts): command
names ("group sub"), their flags, the choices of a flag and the files or
directories a flag takes. Generate it again after adding or changing
commands.

bash (with the bash-completion package for the first two):
  client completion bash > /etc/bash_completion.d/client
  client completion bash > ~/.local/share/bash-completion/completions/client
  source <(client completion bash)          # in ~/.bashrc, without the package

zsh, as _client in a directory on $fpath, before compinit runs in ~/.zshrc:
  client completion zsh > "${fpath[1]}/_client"
  mkdir -p ~/.zfunc && client completion zsh > ~/.zfunc/_client
                                            # with fpath=(~/.zfunc $fpath) in ~/.zshrc
  source <(client completion zsh)           # in ~/.zshrc, after compinit

fish:
  client completion fish > ~/.config/fish/completions/client.fish

Then start a new shell.
`

// completionWords are the client's own words and options, as Main reads
// them, for the completion scripts.
func completionWords() []command.Word {
	star := command.Value{Kind: command.FileValue, Ext: ".star"}
	commands := command.Value{Kind: command.CommandValue}
	return []command.Word{
		{Name: "help", Help: "Show the commands, a group's commands or a command's help.", First: commands, Rest: commands, Options: []string{"--markdown"}},
		{Name: "version", Help: "Print the version."},
		{Name: "repl", Help: "Start the interactive shell."},
		{Name: "run", Help: "Run a workflow script: run FILE.star [ARGS]; run --name or --file starts a pipeline.",
			First: star, Rest: command.Value{Kind: command.FileValue}},
		{Name: "completion", Help: "Print a shell completion script.", Options: []string{"-h", "--help"},
			First: command.Value{Kind: command.ChoiceValue, Choices: command.CompletionShells}},
		{Name: "-c", Help: "Run Starlark code: -c CODE [ARGS]."},
		{Name: "--check", Help: "Parse and resolve scripts without running them.", First: star, Rest: star},
		{Name: "--debug", Help: "Show backtraces of command errors."},
		{Name: "--version", Help: "Print the version."},
		{Name: "-h", Help: "Show the usage and the commands."},
		{Name: "--help", Help: "Show the usage and the commands."},
	}
}

// completion prints the completion script of the shell args name.
func (sh *shell) completion(args []string) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(sh.io.Stdout, completionHelp)
		return runtime.ExitOK
	}
	switch {
	case len(args) == 0:
		return sh.usageError("completion needs a shell: "+strings.Join(command.CompletionShells, ", "), completionUsage)
	case len(args) > 1:
		return sh.usageError(fmt.Sprintf("unexpected argument %q", args[1]), completionUsage)
	case !slices.Contains(command.CompletionShells, args[0]):
		return sh.usageError(fmt.Sprintf("unknown shell %q", args[0]), completionUsage)
	}
	ix, err := sh.index()
	if err != nil {
		fmt.Fprintf(sh.io.Stderr, "error: cannot index scripts: %v\n", err)
		return runtime.ExitFailure
	}
	script, err := command.Completion(args[0], command.CompletionSpec{
		Prog: Prog, Commands: sh.allCommands(ix, ""), Words: completionWords(),
	})
	if err != nil {
		fmt.Fprintf(sh.io.Stderr, "error: %v\n", err)
		return runtime.ExitFailure
	}
	fmt.Fprint(sh.io.Stdout, script)
	return runtime.ExitOK
}

// markdown prints the Markdown reference of every command, or of those of
// the group or command args name (client help --markdown [GROUP]).
func (sh *shell) markdown(args []string) int {
	ix, err := sh.index()
	if err != nil {
		fmt.Fprintf(sh.io.Stderr, "error: cannot index scripts: %v\n", err)
		return runtime.ExitFailure
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return sh.usageError(fmt.Sprintf("unknown flag %s", a), "usage: client help --markdown [COMMAND|GROUP]")
		}
	}
	prefix := ""
	if len(args) > 0 {
		prefix = command.Canonical(strings.Join(args, " ")) + "-"
	}
	cmds := sh.allCommands(ix, prefix)
	if len(cmds) == 0 && len(args) > 0 {
		return sh.command(args) // unknown: the same message and suggestions
	}
	fmt.Fprint(sh.io.Stdout, command.Markdown(Prog, cmds))
	return runtime.ExitOK
}
