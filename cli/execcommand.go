package cli

import (
	"fmt"

	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// execCommandDoc documents exec_command.
const execCommandDoc = `exec_command(args)

Ends the running command by running the shell's command args (a list of
the words after "client": ["output", "--jobid", id]) in its place: its
output is this one's and its exit code this command's. It does not
return. The lean build gives the command to the data build (which
replaces the process) when the command needs the data libraries, as
it does a command it is given; so a command can do its lean part here
and leave only the end that needs them (reading a stored Parquet
output) to the data build.`

// execCommandBuiltin is exec_command for this shell.
func (sh *shell) execCommandBuiltin() *starlark.Builtin {
	return doc.Builtin("exec_command", execCommandDoc, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var list *starlark.List
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "args", &list); err != nil {
			return nil, err
		}
		words := make([]string, list.Len())
		for i := range words {
			s, ok := starlark.AsString(list.Index(i))
			if !ok {
				return nil, fmt.Errorf("%s: args[%d] is a %s, not a string", b.Name(), i, list.Index(i).Type())
			}
			words[i] = s
		}
		if len(words) == 0 {
			return nil, fmt.Errorf("%s: no command given", b.Name())
		}
		return nil, &host.ExitError{Code: sh.command(words)}
	})
}
