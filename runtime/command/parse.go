package command

import (
	"fmt"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// UsageError is a mistake in the command line: an unknown flag, a missing
// value, a bad choice. The shell prints it with the command's usage and
// exits 2.
type UsageError struct{ Msg string }

// Error returns the usage message.
func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) *UsageError {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// Parsed is the result of parsing a command line.
type Parsed struct {
	// Args is the struct passed to the command's function.
	Args *starlarkstruct.Struct
	// Warnings are notices for the user, such as deprecated flags.
	Warnings []string
	// Help is set when -h or --help was given; nothing else is checked then.
	Help bool
}

// Parse parses argv (the words after the command's name) against c's flags,
// GNU style: --name value, --name=value, repeated values for nargs flags,
// positionals in order, -- ending the flags, and -h/--help anywhere.
func Parse(c *Command, argv []string) (*Parsed, error) {
	p := &parser{cmd: c, values: map[string][]string{}, order: map[string]int{}}
	for _, a := range argv {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" {
			return &Parsed{Help: true}, nil
		}
	}
	if err := p.scan(argv); err != nil {
		return nil, err
	}
	return p.finish()
}

type parser struct {
	cmd      *Command
	values   map[string][]string // flag key -> raw values in order
	order    map[string]int      // flag key -> position of first use, for messages
	given    []string            // flag keys as given, in order
	warnings []string
	pos      []string // positional words
}

func (p *parser) scan(argv []string) error {
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			p.pos = append(p.pos, argv[i+1:]...)
			return nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" || isNumber(a) {
			p.pos = append(p.pos, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "--") && len(name) > 1 && !hasValue {
			return usagef("unknown flag %s (long flags take two dashes)", a)
		}
		f := p.cmd.Lookup(name)
		if f == nil || f.Positional {
			return usagef("unknown flag %s%s", a, p.suggestFlag(name))
		}
		key := f.Key()
		if _, seen := p.order[key]; !seen {
			p.order[key] = len(p.given)
			p.given = append(p.given, key)
		}
		switch {
		case f.Kind == Bool:
			if !hasValue {
				value = "true"
			}
			p.values[key] = []string{value}
		case hasValue:
			if f.Multi() {
				p.values[key] = append(p.values[key], value)
			} else {
				p.values[key] = []string{value}
			}
		case f.Multi():
			n := 0
			for i+1 < len(argv) && !looksLikeFlag(argv[i+1]) {
				i++
				n++
				p.values[key] = append(p.values[key], argv[i])
			}
			if n == 0 && f.Nargs == "+" {
				return usagef("flag --%s needs at least one value", f.Name)
			}
			if _, ok := p.values[key]; !ok {
				p.values[key] = []string{}
			}
		default:
			// A flag that needs a value takes the next word even when it
			// starts with one dash: relative times (-15m) and negative
			// numbers are values. Only a long flag (or --) ends it.
			if i+1 >= len(argv) || strings.HasPrefix(argv[i+1], "--") {
				return usagef("flag --%s needs a value", f.Name)
			}
			i++
			p.values[key] = []string{argv[i]}
		}
	}
	return nil
}

// looksLikeFlag reports whether a word is a flag rather than a value.
func looksLikeFlag(a string) bool {
	return strings.HasPrefix(a, "-") && a != "-" && !isNumber(a)
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func (p *parser) suggestFlag(name string) string {
	var names []string
	for _, f := range p.cmd.Flags {
		if !f.Positional {
			names = append(names, f.Key())
		}
	}
	if s := Closest(canonicalFlag(name), names, 1); len(s) > 0 {
		return fmt.Sprintf(" (did you mean --%s?)", s[0])
	}
	return ""
}

func (p *parser) finish() (*Parsed, error) {
	// Deprecated flags hand their value to their replacement.
	for _, f := range p.cmd.Flags {
		vals, ok := p.values[f.Key()]
		if !ok || f.DeprecatedFor == "" {
			continue
		}
		targetName, fixed, hasFixed := strings.Cut(f.DeprecatedFor, "=")
		target := p.cmd.Lookup(targetName)
		if _, both := p.values[target.Key()]; both {
			return nil, usagef("--%s is deprecated for --%s; give only --%s", f.Name, target.Name, target.Name)
		}
		if hasFixed {
			if f.Kind == Bool && !truthy(vals[0]) {
				continue
			}
			p.warnings = append(p.warnings, fmt.Sprintf("--%s is deprecated, use --%s %s", f.Name, target.Name, fixed))
			vals = []string{fixed}
		} else {
			p.warnings = append(p.warnings, fmt.Sprintf("--%s is deprecated, use --%s", f.Name, target.Name))
		}
		p.values[target.Key()] = vals
		p.order[target.Key()] = p.order[f.Key()]
		p.given = append(p.given, target.Key())
	}

	// Positionals, in declaration order; a multi-valued one takes the rest.
	rest := p.pos
	for _, f := range p.cmd.Flags {
		if !f.Positional {
			continue
		}
		switch {
		case f.Multi():
			p.values[f.Key()] = rest
			rest = nil
		case len(rest) > 0:
			p.values[f.Key()] = rest[:1]
			rest = rest[1:]
		}
	}
	if len(rest) > 0 {
		return nil, usagef("unexpected argument %q", rest[0])
	}

	fields := starlark.StringDict{}
	for _, f := range p.cmd.Flags {
		vals, given := p.values[f.Key()]
		if given && f.Multi() && len(vals) == 0 && f.Nargs == "+" {
			given = false
		}
		if !given {
			if f.Required || (f.Positional && f.Nargs != "*" && f.Default == nil) {
				if f.Positional {
					return nil, usagef("missing argument %s", f.Placeholder())
				}
				return nil, usagef("missing required flag --%s", f.Name)
			}
			fields[f.Attr()] = defaultValue(f)
			continue
		}
		v, err := convert(f, vals)
		if err != nil {
			return nil, err
		}
		fields[f.Attr()] = v
	}

	for _, g := range p.cmd.Exclusive {
		var used []string
		for _, n := range g {
			if _, ok := p.values[p.cmd.Lookup(n).Key()]; ok && p.isSet(p.cmd.Lookup(n)) {
				used = append(used, "--"+p.cmd.Lookup(n).Name)
			}
		}
		if len(used) > 1 {
			return nil, usagef("%s cannot be used together", joinAnd(used))
		}
	}
	for _, g := range p.cmd.OneOf {
		ok := false
		var names []string
		for _, n := range g {
			f := p.cmd.Lookup(n)
			names = append(names, "--"+f.Name)
			if _, given := p.values[f.Key()]; given && p.isSet(f) {
				ok = true
			}
		}
		if !ok {
			return nil, usagef("one of %s is required", joinOr(names))
		}
	}
	return &Parsed{Args: starlarkstruct.FromStringDict(starlark.String("args"), fields), Warnings: p.warnings}, nil
}

// isSet reports whether a given flag counts as used (a bool flag set to false
// does not).
func (p *parser) isSet(f *Flag) bool {
	if f.Kind == Bool {
		return truthy(p.values[f.Key()][0])
	}
	return true
}

func defaultValue(f *Flag) starlark.Value {
	switch {
	case f.Default != nil:
		return f.Default
	case f.Multi():
		return starlark.NewList(nil)
	case f.Kind == Bool:
		return starlark.False
	}
	return starlark.None
}

func convert(f *Flag, vals []string) (starlark.Value, error) {
	one := func(s string) (starlark.Value, error) {
		if len(f.Choices) > 0 && !contains(f.Choices, s) {
			return nil, usagef("--%s: %q is not one of %s", f.Name, s, strings.Join(f.Choices, ", "))
		}
		switch f.Kind {
		case Bool:
			b, ok := parseBool(s)
			if !ok {
				return nil, usagef("--%s: %q is not true or false", f.Name, s)
			}
			return starlark.Bool(b), nil
		case Int:
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, usagef("--%s: %q is not an integer", f.Name, s)
			}
			return starlark.MakeInt64(n), nil
		case Float:
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, usagef("--%s: %q is not a number", f.Name, s)
			}
			return starlark.Float(x), nil
		}
		return starlark.String(s), nil
	}
	if !f.Multi() {
		return one(vals[len(vals)-1])
	}
	list := make([]starlark.Value, 0, len(vals))
	for _, s := range vals {
		v, err := one(s)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
	}
	return starlark.NewList(list), nil
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "yes", "1", "on":
		return true, true
	case "false", "no", "0", "off":
		return false, true
	}
	return false, false
}

func truthy(s string) bool { b, _ := parseBool(s); return b }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func joinAnd(names []string) string {
	if len(names) <= 2 {
		return strings.Join(names, " and ")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func joinOr(names []string) string {
	if len(names) <= 2 {
		return strings.Join(names, " or ")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
