package command

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
)

// Usage returns the one-line synopsis of c: its required flags and
// positionals, then [flags] when it has optional ones.
func Usage(prog string, c *Command) string {
	parts := []string{prog, c.Name}
	optional := false
	for _, f := range c.Flags {
		switch {
		case f.Positional:
			p := f.Placeholder()
			if f.Multi() {
				p += "..."
			}
			if f.Nargs == "*" || f.Default != nil {
				p = "[" + p + "]"
			}
			parts = append(parts, p)
		case f.Required:
			parts = append(parts, flagSpelling(f))
		case f.DeprecatedFor == "":
			optional = true
		}
	}
	if optional {
		parts = append(parts, "[flags]")
	}
	return "usage: " + strings.Join(parts, " ")
}

func flagSpelling(f *Flag) string {
	s := "--" + f.Name
	if p := f.Placeholder(); p != "" {
		s += " " + p
		if f.Multi() {
			s += "..."
		}
	}
	return s
}

// Help returns the full -h/--help text of c.
func Help(prog string, c *Command) string {
	var b strings.Builder
	b.WriteString(Usage(prog, c))
	b.WriteString("\n")
	if h := strings.TrimSpace(c.Help); h != "" {
		b.WriteString("\n")
		b.WriteString(h)
		b.WriteString("\n")
	}

	type row struct{ left, right string }
	var args, flags []row
	for _, f := range c.Flags {
		if f.Positional {
			args = append(args, row{f.Placeholder(), describeFlag(f)})
		} else {
			flags = append(flags, row{flagSpelling(f), describeFlag(f)})
		}
	}
	flags = append(flags, row{"-h, --help", "Show this help."})
	width := 0
	for _, r := range append(append([]row{}, args...), flags...) {
		width = max(width, len(r.left))
	}
	section := func(title string, rows []row) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, r := range rows {
			if r.right == "" {
				fmt.Fprintf(&b, "  %s\n", r.left)
				continue
			}
			lines := strings.Split(r.right, "\n")
			fmt.Fprintf(&b, "  %-*s  %s\n", width, r.left, lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintf(&b, "  %-*s  %s\n", width, "", l)
			}
		}
	}
	section("Arguments", args)
	section("Flags", flags)
	if len(c.Exclusive) > 0 || len(c.OneOf) > 0 {
		b.WriteString("\n")
		for _, g := range c.Exclusive {
			fmt.Fprintf(&b, "Only one of %s may be given.\n", joinOr(dashed(c, g)))
		}
		for _, g := range c.OneOf {
			fmt.Fprintf(&b, "One of %s is required.\n", joinOr(dashed(c, g)))
		}
	}
	if len(c.Examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, e := range c.Examples {
			fmt.Fprintf(&b, "  %s\n", e)
		}
	}
	return b.String()
}

func dashed(c *Command, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "--" + c.Lookup(n).Name
	}
	return out
}

// replacement is what a deprecated flag stands for: "--target" or
// "--target value". name, when not empty, is the target's name as
// declared.
func replacement(f *Flag, name string) string {
	target, value, _ := strings.Cut(f.DeprecatedFor, "=")
	if name == "" {
		name = target
	}
	return strings.TrimSpace("--" + name + " " + value)
}

// describeFlag renders a flag's help with its type, default, choices and
// whether it is required or deprecated.
func describeFlag(f *Flag) string {
	var notes []string
	if f.Required {
		notes = append(notes, "required")
	}
	if f.Kind != String && f.Kind != Bool {
		notes = append(notes, f.Kind.String())
	}
	if f.Default != nil {
		notes = append(notes, "default: "+display(f.Default))
	}
	if f.Multi() {
		notes = append(notes, "repeatable")
	}
	text := strings.TrimSpace(f.Help)
	if f.DeprecatedFor != "" {
		text = strings.TrimSpace("Deprecated: use " + replacement(f, "") + ". " + text)
	}
	if len(notes) > 0 {
		text = strings.TrimSpace(text + " (" + strings.Join(notes, ", ") + ")")
	}
	return text
}

func display(v starlark.Value) string {
	if s, ok := starlark.AsString(v); ok {
		return s
	}
	return v.String()
}
