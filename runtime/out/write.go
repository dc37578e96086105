package out

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// A Format is a way to print a command's result.
type Format string

// The formats of out.write. Table is what a command prints when no flag
// asks for another; JSON and YAML are asked for with flags of their names.
const (
	Table Format = "table"
	JSON  Format = "json"
	YAML  Format = "yaml"
)

// Flagged lists the formats a flag of the same name selects (--json,
// --yaml), in the order out.write looks for them.
var Flagged = []Format{JSON, YAML}

// Chosen returns the format the parsed flags in args ask for: the first of
// Flagged whose bool attribute is true, else Table. args without such
// attributes (a command that declared no output formats) ask for Table.
func Chosen(args starlark.HasAttrs) Format {
	for _, f := range Flagged {
		if v, err := args.Attr(string(f)); err == nil && v != nil && v.Truth() {
			return f
		}
	}
	return Table
}

// writeBuiltin is out.write: the one writer of a command's result.
func writeBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		cmdArgs starlark.Value
		v       starlark.Value
		columns starlark.Value = starlark.None
		table   starlark.Value = starlark.None
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "args", &cmdArgs, "v", &v, "columns?", &columns, "table?", &table); err != nil {
		return nil, err
	}
	attrs, ok := cmdArgs.(*starlarkstruct.Struct)
	if !ok {
		return nil, fmt.Errorf("%s: for parameter args: got %s, want the command's args", b.Name(), cmdArgs.Type())
	}
	switch Chosen(attrs) {
	case JSON:
		return starlark.None, printJSON(thread, b.Name(), v)
	case YAML:
		return starlark.None, printYAML(thread, b.Name(), v)
	}
	rows := v
	if table != starlark.None {
		fn, ok := table.(starlark.Callable)
		if !ok {
			return nil, fmt.Errorf("%s: for parameter table: got %s, want a function", b.Name(), table.Type())
		}
		var err error
		if rows, err = starlark.Call(thread, fn, starlark.Tuple{v}, nil); err != nil {
			return nil, err
		}
		if rows == starlark.None {
			return starlark.None, nil
		}
	}
	it, ok := rows.(starlark.Iterable)
	if !ok || isString(rows) {
		return nil, fmt.Errorf("%s: the table's rows are a %s, want a list", b.Name(), rows.Type())
	}
	return starlark.None, printTable(thread, b.Name(), it, columns)
}
