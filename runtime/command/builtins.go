package command

import (
	"fmt"

	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

const registryKey = "fabric.commands"

// Attach makes command() calls on thread register into r.
func Attach(thread *starlark.Thread, r *Registry) { thread.SetLocal(registryKey, r) }

// From returns the registry attached to thread, if any.
func From(thread *starlark.Thread) *Registry {
	r, _ := thread.Local(registryKey).(*Registry)
	return r
}

// Builtins returns the command() and flag() builtins.
func Builtins() starlark.StringDict {
	return starlark.StringDict{
		"command": doc.Builtin("command", `command(name, fn, help="", flags=[], examples=[], exclusive=[], one_of=[], output=None, lean=None)

Declares a command of the command line. name is its words ("dataset list");
the command line reaches it as "client dataset list" and "client dataset-list".
fn(args) runs it: args has one attribute per flag, hyphens as underscores
(args.to_dir). flags is a list of flag(...) values. exclusive lists groups of
flag names of which at most one may be given; one_of lists groups of which at
least one is required. The name must be a string literal at the start of the
call so that the command index finds it without running the script.

output, when given, lists the formats the command prints its result in:
the default first ("table", "text", "yaml" or "json"), then those a flag
selects ("json", "yaml"). Each of those gets its flag (--json: "Print JSON
instead of a table."), the same on every command, at most one given; the
command prints with out.write(args, result, ...), which follows them.
Declare --json this way, never as a flag(...).

lean(args), when given, is what the lean build tries before it hands the
command to the data build because fn reaches a module only that build has:
it may use only what the lean build has, must print nothing before it
knows it can do the command, and returns True when it did it (False or an
error: the data build runs fn).`, commandBuiltin),
		"flag": doc.Builtin("flag", `flag(name, type=str, help="", default=None, required=False, choices=None, nargs=None, deprecated_for=None, positional=False, metavar=None)

Declares a flag of a command. type is str, int, float or bool. name is the
spelling of the command line ("to_dir" accepts --to_dir and --to-dir). nargs
"+" or "*" takes several values (--pod-ids a b c). deprecated_for names the
flag that replaces this one, optionally with a value ("format=json"); using
the old flag warns. positional arguments are given without their name.`, flagBuiltin),
	}
}

// FlagValue is the Starlark value returned by flag().
type FlagValue struct{ *Flag }

var _ starlark.Value = FlagValue{}

// String, Type, Freeze, Truth and Hash make a FlagValue a Starlark value.
func (f FlagValue) String() string        { return fmt.Sprintf("<flag --%s>", f.Name) }
func (f FlagValue) Type() string          { return "flag" }
func (f FlagValue) Freeze()               {}
func (f FlagValue) Truth() starlark.Bool  { return true }
func (f FlagValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: flag") }

func flagBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		name, help, nargs, deprecatedFor, metavar string
		typ                                       starlark.Value = starlark.None
		def                                       starlark.Value = starlark.None
		required, positional                      bool
		choices                                   *starlark.List
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs,
		"name", &name, "type?", &typ, "help?", &help, "default?", &def,
		"required?", &required, "choices?", &choices, "nargs?", &nargs,
		"deprecated_for?", &deprecatedFor, "positional?", &positional, "metavar?", &metavar); err != nil {
		return nil, err
	}
	kind, err := kindOf(typ)
	if err != nil {
		return nil, fmt.Errorf("flag %q: %v", name, err)
	}
	if nargs != "" && nargs != "+" && nargs != "*" {
		return nil, fmt.Errorf("flag %q: nargs must be \"+\" or \"*\", not %q", name, nargs)
	}
	f := &Flag{Name: name, Kind: kind, Help: help, Required: required, Nargs: nargs,
		DeprecatedFor: deprecatedFor, Positional: positional, Metavar: metavar}
	if def != starlark.None {
		f.Default = def
	}
	if choices != nil {
		for i := 0; i < choices.Len(); i++ {
			s, ok := starlark.AsString(choices.Index(i))
			if !ok {
				return nil, fmt.Errorf("flag %q: choices must be strings", name)
			}
			f.Choices = append(f.Choices, s)
		}
	}
	return FlagValue{f}, nil
}

func kindOf(v starlark.Value) (Kind, error) {
	name := ""
	switch x := v.(type) {
	case starlark.NoneType:
		return String, nil
	case *starlark.Builtin:
		name = x.Name()
	case starlark.String:
		name = string(x)
	}
	if k, ok := kindNames[name]; ok {
		return k, nil
	}
	return 0, fmt.Errorf("type must be str, int, float or bool, not %s", v)
}

func commandBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		name, help                        string
		fn                                starlark.Callable
		flags, examples, exclusive, oneOf *starlark.List
		output                            *starlark.List
		lean                              starlark.Value = starlark.None
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs,
		"name", &name, "fn", &fn, "help?", &help, "flags?", &flags, "examples?", &examples,
		"exclusive?", &exclusive, "one_of?", &oneOf, "output?", &output, "lean?", &lean); err != nil {
		return nil, err
	}
	c := &Command{Name: name, Fn: fn, Help: help}
	if lean != starlark.None {
		f, ok := lean.(starlark.Callable)
		if !ok {
			return nil, fmt.Errorf("command %q: lean is a %s, want a function", name, lean.Type())
		}
		c.Lean = f
	}
	if frame := thread.CallFrame(1); frame.Pos.IsValid() {
		c.File = frame.Pos.Filename()
	}
	for i := 0; flags != nil && i < flags.Len(); i++ {
		f, ok := flags.Index(i).(FlagValue)
		if !ok {
			return nil, fmt.Errorf("command %q: flags[%d] is a %s, want flag(...)", name, i, flags.Index(i).Type())
		}
		c.Flags = append(c.Flags, f.Flag)
	}
	var err error
	if c.Examples, err = stringList(examples, name, "examples"); err != nil {
		return nil, err
	}
	if c.Exclusive, err = groups(exclusive, name, "exclusive"); err != nil {
		return nil, err
	}
	if c.OneOf, err = groups(oneOf, name, "one_of"); err != nil {
		return nil, err
	}
	formats, err := stringList(output, name, "output")
	if err != nil {
		return nil, err
	}
	if err := c.declareOutput(formats); err != nil {
		return nil, err
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if r := From(thread); r != nil {
		r.Add(c)
	}
	return starlark.None, nil
}

func stringList(l *starlark.List, cmd, what string) ([]string, error) {
	var out []string
	for i := 0; l != nil && i < l.Len(); i++ {
		s, ok := starlark.AsString(l.Index(i))
		if !ok {
			return nil, fmt.Errorf("command %q: %s[%d] must be a string", cmd, what, i)
		}
		out = append(out, s)
	}
	return out, nil
}

func groups(l *starlark.List, cmd, what string) ([][]string, error) {
	var out [][]string
	for i := 0; l != nil && i < l.Len(); i++ {
		inner, ok := l.Index(i).(starlark.Indexable)
		if !ok {
			return nil, fmt.Errorf("command %q: %s[%d] must be a list of flag names", cmd, what, i)
		}
		var g []string
		for j := 0; j < inner.Len(); j++ {
			s, ok := starlark.AsString(inner.Index(j))
			if !ok {
				return nil, fmt.Errorf("command %q: %s[%d] must be a list of flag names", cmd, what, i)
			}
			g = append(g, s)
		}
		out = append(out, g)
	}
	return out, nil
}
