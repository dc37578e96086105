package command

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fabricops/fabric/runtime/out"
)

// outputNames are the formats a command's output may list, each with how
// a flag's help names it: the defaults a command prints without a flag,
// and the formats out.Flagged that a flag of the same name selects.
var outputNames = map[string]string{
	string(out.Table): "a table",
	"text":            "text",
	string(out.JSON):  "JSON",
	string(out.YAML):  "YAML",
}

// OutputHelp returns the help of the flag that selects format for a
// command whose default output is def: "Print JSON instead of a table."
// It is the same for every command, so that --json means one thing.
func OutputHelp(format, def string) string {
	return fmt.Sprintf("Print %s instead of %s.", outputNames[format], outputNames[def])
}

// declareOutput records formats, the output of command() (the default
// format first, then the ones flags select), on c and adds their flags:
// one bool flag per selectable format, named after it, at most one of
// them given.
func (c *Command) declareOutput(formats []string) error {
	if len(formats) == 0 {
		return nil
	}
	if len(formats) < 2 {
		return fmt.Errorf("command %q: output lists the default format, then the ones --json or --yaml select; got only %q", c.Name, formats[0])
	}
	if _, ok := outputNames[formats[0]]; !ok {
		return fmt.Errorf("command %q: output's default format %q is not one of %s", c.Name, formats[0], strings.Join(sortedNames(), ", "))
	}
	var group []string
	for i, f := range formats[1:] {
		if !slices.Contains(out.Flagged, out.Format(f)) {
			return fmt.Errorf("command %q: output format %q is not one a flag selects (%s)", c.Name, f, flaggedNames())
		}
		if slices.Contains(formats[:i+1], f) {
			return fmt.Errorf("command %q: output lists %q twice", c.Name, f)
		}
		if c.Lookup(f) != nil {
			return fmt.Errorf("command %q: flag %q is declared by output; remove its flag(...)", c.Name, f)
		}
		c.Flags = append(c.Flags, &Flag{Name: f, Kind: Bool, Help: OutputHelp(f, formats[0])})
		group = append(group, f)
	}
	if len(group) > 1 {
		c.Exclusive = append(c.Exclusive, group)
	}
	c.Output = formats
	return nil
}

func sortedNames() []string {
	var names []string
	for n := range outputNames {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func flaggedNames() string {
	names := make([]string, len(out.Flagged))
	for i, f := range out.Flagged {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}
