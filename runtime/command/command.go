// Package command is the shell's command machinery: the command() and flag()
// builtins that bundled and user scripts use to declare commands, the
// registry they fill, the GNU-style argument parser that turns argv into an
// args struct, and the generated -h/--help text.
//
// A command is named by words ("dataset list"); its canonical key joins the
// words with hyphens ("dataset-list"), which is also how the hyphenated
// spelling of the command line reaches it.
package command

import (
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

// Kind is the value type of a flag.
type Kind int

// The kinds of flag values.
const (
	String Kind = iota
	Bool
	Int
	Float
)

var kindNames = map[string]Kind{"str": String, "bool": Bool, "int": Int, "float": Float}

// String returns the Starlark type name of k.
func (k Kind) String() string {
	for n, v := range kindNames {
		if v == k {
			return n
		}
	}
	return "?"
}

// Flag is one declared option or positional argument of a command.
type Flag struct {
	// Name is the spelling declared by the script ("to_dir", "pod-ids").
	Name string
	Kind Kind
	Help string
	// Default is the value when the flag is absent (nil: None, False or []).
	Default starlark.Value
	// Required flags must be given.
	Required bool
	// Choices, when set, lists the accepted values.
	Choices []string
	// Nargs is "" for one value, "+" for one or more, "*" for any number.
	Nargs string
	// DeprecatedFor names the flag that replaces this one, optionally with
	// the value it stands for ("format=json").
	DeprecatedFor string
	// Positional arguments are given without a --name, in declaration order.
	Positional bool
	// Metavar is the placeholder shown in help for the flag's value.
	Metavar string
}

// Key is the flag's canonical spelling: hyphens for underscores.
func (f *Flag) Key() string { return canonicalFlag(f.Name) }

// Attr is the attribute name of the flag's value on the args struct.
func (f *Flag) Attr() string { return strings.ReplaceAll(f.Name, "-", "_") }

// Multi reports whether the flag takes a list of values.
func (f *Flag) Multi() bool { return f.Nargs == "+" || f.Nargs == "*" }

// Placeholder returns what help shows for the flag's value.
func (f *Flag) Placeholder() string {
	switch {
	case f.Metavar != "":
		return f.Metavar
	case len(f.Choices) > 0:
		return "{" + strings.Join(f.Choices, ",") + "}"
	case f.Positional:
		return strings.ToUpper(f.Attr())
	}
	switch f.Kind {
	case Int:
		return "INTEGER"
	case Float:
		return "FLOAT"
	case Bool:
		return ""
	}
	return "TEXT"
}

// Command is a declared command.
type Command struct {
	// Name is the declared name, words separated by spaces ("dataset list").
	Name string
	Fn   starlark.Callable
	// Lean, when set, is what a build that lacks something Fn reaches
	// tries before it hands the command over (see command()'s lean).
	Lean     starlark.Callable
	Help     string
	Flags    []*Flag
	Examples []string
	// Exclusive lists groups of flags of which at most one may be given.
	Exclusive [][]string
	// OneOf lists groups of flags of which at least one must be given.
	OneOf [][]string
	// Output lists the formats the command prints its result in, as
	// command()'s output declares them: the default first, then those its
	// flags select (--json, --yaml); empty when it declared none.
	Output []string
	// File is the script that declared the command.
	File string
}

// Key returns the command's canonical key ("dataset-list").
func (c *Command) Key() string { return Canonical(c.Name) }

// Summary is the first line of the command's help.
func (c *Command) Summary() string {
	first, _, _ := strings.Cut(strings.TrimSpace(c.Help), "\n")
	return first
}

// Lookup finds a flag by any of its spellings (with or without leading
// dashes, with hyphens or underscores).
func (c *Command) Lookup(name string) *Flag {
	key := canonicalFlag(strings.TrimLeft(name, "-"))
	for _, f := range c.Flags {
		if f.Key() == key {
			return f
		}
	}
	return nil
}

// Canonical returns the canonical key of a command name: its words joined
// by hyphens.
func Canonical(name string) string { return strings.Join(strings.Fields(name), "-") }

func canonicalFlag(name string) string { return strings.ReplaceAll(name, "_", "-") }

// Registry holds the commands declared by the scripts executed so far.
type Registry struct {
	byKey map[string]*Command
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byKey: map[string]*Command{}} }

// Add registers c, replacing any command of the same canonical key (so that
// user scripts can override bundled commands).
func (r *Registry) Add(c *Command) { r.byKey[c.Key()] = c }

// Get returns the command with the given canonical key.
func (r *Registry) Get(key string) *Command { return r.byKey[key] }

// All returns the registered commands sorted by name.
func (r *Registry) All() []*Command {
	cmds := make([]*Command, 0, len(r.byKey))
	for _, c := range r.byKey {
		cmds = append(cmds, c)
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return cmds
}

// validate checks a declaration for mistakes a script author can make.
func (c *Command) validate() error {
	if c.Key() == "" {
		return fmt.Errorf("command name is empty")
	}
	seen := map[string]bool{}
	for _, f := range c.Flags {
		if f.Name == "" || strings.HasPrefix(f.Name, "-") {
			return fmt.Errorf("command %q: invalid flag name %q", c.Name, f.Name)
		}
		if seen[f.Key()] {
			return fmt.Errorf("command %q: flag %q declared twice", c.Name, f.Name)
		}
		seen[f.Key()] = true
		if f.Key() == "help" || f.Key() == "h" {
			return fmt.Errorf("command %q: flag %q is reserved", c.Name, f.Name)
		}
	}
	for _, f := range c.Flags {
		if f.DeprecatedFor != "" {
			target, _, _ := strings.Cut(f.DeprecatedFor, "=")
			if c.Lookup(target) == nil {
				return fmt.Errorf("command %q: flag %q is deprecated for unknown flag %q", c.Name, f.Name, target)
			}
		}
		if f.Positional && f.Kind == Bool {
			return fmt.Errorf("command %q: positional %q cannot be a bool", c.Name, f.Name)
		}
	}
	for _, groups := range [][][]string{c.Exclusive, c.OneOf} {
		for _, g := range groups {
			if len(g) < 2 {
				return fmt.Errorf("command %q: a flag group needs at least two flags: %v", c.Name, g)
			}
			for _, n := range g {
				if c.Lookup(n) == nil {
					return fmt.Errorf("command %q: flag group names unknown flag %q", c.Name, n)
				}
			}
		}
	}
	return nil
}
