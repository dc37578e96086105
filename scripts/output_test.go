package scripts

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// formatFlag finds a flag(...) call that declares --json. (--yaml is not
// checked: demo backup's --yaml chooses the format of the files it
// writes, not of what it prints.)
var formatFlag = regexp.MustCompile(`\bflag\(\s*(?:name\s*=\s*)?["'](json)["']`)

// TestNoFormatFlagsByHand fails when a script declares --json with
// flag(...): command()'s output declares it, with the same help on every
// command, and out.write follows it. A deprecated alias (dataset get's
// --json, deprecated for --format json) is not an output flag.
func TestNoFormatFlagsByHand(t *testing.T) {
	err := fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".star") {
			return err
		}
		src, err := fs.ReadFile(FS, path)
		if err != nil {
			return err
		}
		for _, m := range formatFlag.FindAllSubmatchIndex(src, -1) {
			call := callText(src, m[0])
			if strings.Contains(call, "deprecated_for") {
				continue
			}
			line := 1 + strings.Count(string(src[:m[0]]), "\n")
			t.Errorf("%s:%d: %s declares --%s by hand; declare it with command(..., output = [\"table\", %q]) and print with out.write",
				path, line, firstLine(call), src[m[2]:m[3]], src[m[2]:m[3]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// callText returns the call that starts at i, up to its closing
// parenthesis (parentheses in strings are not told apart: good enough
// for flag(...) calls).
func callText(src []byte, i int) string {
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return string(src[i : j+1])
			}
		}
	}
	return string(src[i:])
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func TestFormatFlagPattern(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{`flag("json", bool, help = "Print JSON.")`, true},
		{`flag('json', bool)`, true},
		{`flag("yaml", bool, help = "Write YAML (default: JSON).")`, false},
		{`flag(name = "json", type = bool)`, true},
		{`flag( "json",bool)`, true},
		{`flag("json_path", str)`, false},
		{`flag("format", str, choices = ["json", "csv"])`, false},
		{`myflag("json")`, false},
	} {
		if got := formatFlag.MatchString(tc.src); got != tc.want {
			t.Errorf("%s: match %v, want %v", tc.src, got, tc.want)
		}
	}
	if got := callText([]byte(`flag("json", bool, help = f("x")) + [1]`), 0); got != `flag("json", bool, help = f("x"))` {
		t.Errorf("callText = %q", got)
	}
}
