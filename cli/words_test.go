package cli

import (
	"strings"
	"testing"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		line string
		want []string
		err  string
	}{
		{"checksum --pipeline p.json", []string{"checksum", "--pipeline", "p.json"}, ""},
		{"  a   b\tc ", []string{"a", "b", "c"}, ""},
		{`x --q 'cpu > 90 and a = "b"'`, []string{"x", "--q", `cpu > 90 and a = "b"`}, ""},
		{`x "say \"hi\"" it\'s`, []string{"x", `say "hi"`, "it's"}, ""},
		{`x '' ""`, []string{"x", "", ""}, ""},
		{`a'b'c`, []string{"abc"}, ""},
		{`x 'open`, nil, "unterminated ' quote"},
		{`x \`, nil, "line ends with a backslash"},
	}
	for _, tt := range tests {
		got, err := splitWords(tt.line)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("splitWords(%q) error = %v, want %q", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
}

// FuzzSplitWords checks that no line panics the splitter and that words
// it returns, re-quoted, split back to themselves.
func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{"a b", `'x y' "z"`, `\ \'`, `"a\"b"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := splitWords(line)
		if err != nil {
			return
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		}
		again, err := splitWords(strings.Join(quoted, " "))
		if err != nil || strings.Join(again, "\x00") != strings.Join(words, "\x00") || len(again) != len(words) {
			t.Fatalf("%q -> %q -> %q (%v)", line, words, again, err)
		}
	})
}
