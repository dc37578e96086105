package repl

import (
	"sort"
	"strings"

	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// keywords are the Starlark words the REPL completes beside names.
var keywords = []string{"and", "break", "continue", "def", "elif", "else", "for", "if", "in",
	"lambda", "load", "not", "or", "pass", "return", "while", "True", "False", "None"}

// Completer proposes completions for the word before the cursor.
type Completer struct {
	// Names returns the names in scope (globals and predeclared).
	Names func() starlark.StringDict
	// Commands lists the command names for ":command" completion.
	Commands func() []string
}

// Candidates returns the completions of the word that ends line: global
// names, builtins and keywords for a plain word, members for a dotted one
// (json.<TAB>), commands after a leading colon. Each candidate is the whole
// word, as it would replace the typed one.
func (c *Completer) Candidates(line string) []string {
	if cmd, ok := strings.CutPrefix(strings.TrimLeft(line, " "), ":"); ok && !strings.Contains(cmd, " ") && c.Commands != nil {
		return withPrefix(c.Commands(), cmd)
	}
	word := lastWord(line)
	if i := strings.LastIndexByte(word, '.'); i >= 0 {
		obj := c.resolve(word[:i])
		attrs, ok := obj.(starlark.HasAttrs)
		if !ok {
			return nil
		}
		var out []string
		for _, name := range withPrefix(attrs.AttrNames(), word[i+1:]) {
			out = append(out, word[:i+1]+name)
		}
		return out
	}
	var names []string
	if c.Names != nil {
		for n := range c.Names() {
			names = append(names, n)
		}
	}
	// Inside a call, the callee's parameters complete as keywords (name=).
	if callee := c.resolve(openCall(line[:len(line)-len(word)])); callee != nil {
		for _, p := range params(callee) {
			names = append(names, p+"=")
		}
	}
	for n := range starlark.Universe {
		names = append(names, n)
	}
	names = append(names, keywords...)
	return withPrefix(names, word)
}

// resolve evaluates a dotted name (a.b.c) by lookups and attribute access.
func (c *Completer) resolve(dotted string) starlark.Value {
	parts := strings.Split(dotted, ".")
	var v starlark.Value
	if c.Names != nil {
		v = c.Names()[parts[0]]
	}
	if v == nil {
		v = starlark.Universe[parts[0]]
	}
	for _, p := range parts[1:] {
		obj, ok := v.(starlark.HasAttrs)
		if !ok {
			return nil
		}
		next, err := obj.Attr(p)
		if err != nil || next == nil {
			return nil
		}
		v = next
	}
	return v
}

// openCall returns the dotted name of the innermost call left open at the
// end of text ("dataset.add(name='x', " gives "dataset.add"), or "".
func openCall(text string) string {
	depth := 0
	for i := len(text) - 1; i >= 0; i-- {
		switch text[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			depth--
		case '(':
			if depth == 0 {
				return lastWord(text[:i])
			}
			depth--
		}
		if depth < 0 {
			return ""
		}
	}
	return ""
}

// params lists the parameter names of a function or documented builtin.
func params(v starlark.Value) []string {
	var names []string
	switch fn := v.(type) {
	case *starlark.Function:
		for i := 0; i < fn.NumParams(); i++ {
			name, _ := fn.Param(i)
			names = append(names, name)
		}
	case *starlark.Builtin:
		d, _ := doc.Of(fn)
		sig, _, _ := strings.Cut(d, "\n")
		open, close := strings.IndexByte(sig, '('), strings.LastIndexByte(sig, ')')
		if open < 0 || close < open {
			return nil
		}
		for _, p := range strings.Split(sig[open+1:close], ",") {
			p, _, _ = strings.Cut(strings.TrimSpace(p), "=")
			if p != "" && !strings.HasPrefix(p, "*") {
				names = append(names, p)
			}
		}
	}
	return names
}

// lastWord returns the identifier-and-dots word that ends line.
func lastWord(line string) string {
	i := len(line)
	for i > 0 {
		ch := line[i-1]
		if ch == '_' || ch == '.' || ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' {
			i--
			continue
		}
		break
	}
	return line[i:]
}

func withPrefix(names []string, prefix string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		hidden := strings.HasPrefix(n, "_") && !strings.HasPrefix(prefix, "_")
		if strings.HasPrefix(n, prefix) && !seen[n] && !hidden {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Do implements readline's AutoCompleter: it returns the suffixes to insert
// after the typed part of the word.
func (c *Completer) Do(line []rune, pos int) ([][]rune, int) {
	before := string(line[:pos])
	word := lastWord(before)
	if cmd, ok := strings.CutPrefix(strings.TrimLeft(before, " "), ":"); ok && !strings.Contains(cmd, " ") {
		word = cmd
	}
	typed := word
	if i := strings.LastIndexByte(word, '.'); i >= 0 {
		typed = word[i+1:]
	}
	var out [][]rune
	for _, cand := range c.Candidates(before) {
		name := cand
		if i := strings.LastIndexByte(cand, '.'); i >= 0 && !strings.HasPrefix(strings.TrimLeft(before, " "), ":") {
			name = cand[i+1:]
		}
		out = append(out, []rune(strings.TrimPrefix(name, typed)))
	}
	return out, len([]rune(typed))
}
