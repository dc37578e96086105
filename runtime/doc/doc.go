// Package doc keeps the documentation of every Starlark builtin and module
// the shell offers, so that help(x) and the REPL's completion can show it.
//
// Builtins are created through Builtin, which names them by their qualified
// name ("json.encode") and records their doc; modules through Module.
package doc

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

var (
	mu   sync.RWMutex
	docs = make(map[string]string, 1024) // the shell registers some 700
	// lazy are the docs written only when first looked up (BuiltinLazy).
	lazy = map[string]func() string{}
)

// Builtin returns a Starlark builtin named name (qualified, such as
// "json.encode") whose documentation is text. The first line of text is the
// signature, the rest a description.
func Builtin(name, text string, fn func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) *starlark.Builtin {
	Register(name, text)
	return starlark.NewBuiltin(name, fn)
}

// BuiltinLazy is Builtin with the documentation written by text when it is
// first looked up: a family of builtins made at every start (one per
// artifact kind) does not format docs that no one reads.
func BuiltinLazy(name string, text func() string, fn func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) *starlark.Builtin {
	mu.Lock()
	delete(docs, name)
	lazy[name] = text
	mu.Unlock()
	return starlark.NewBuiltin(name, fn)
}

// Module returns a module value named name with the given members and
// records text as its documentation.
func Module(name, text string, members starlark.StringDict) *starlarkstruct.Module {
	Register(name, text)
	return &starlarkstruct.Module{Name: name, Members: members}
}

// Register records text as the documentation of the qualified name.
func Register(name, text string) {
	mu.Lock()
	defer mu.Unlock()
	delete(lazy, name)
	docs[name] = strings.TrimSpace(text)
}

// Lookup returns the documentation recorded for a qualified name.
func Lookup(name string) (string, bool) {
	mu.RLock()
	d, ok := docs[name]
	text := lazy[name]
	mu.RUnlock()
	if ok || text == nil {
		return d, ok
	}
	d = strings.TrimSpace(text())
	mu.Lock()
	if _, still := lazy[name]; still {
		delete(lazy, name)
		docs[name] = d
	}
	mu.Unlock()
	return d, true
}

// Names lists every documented qualified name in sorted order.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(docs)+len(lazy))
	for n := range docs {
		names = append(names, n)
	}
	for n := range lazy {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Summary returns the first line of the documentation of name, or "".
func Summary(name string) string {
	d, _ := Lookup(name)
	return FirstSentence(d)
}

// FirstSentence returns the first sentence of a text's first paragraph,
// with its wrapped lines joined, for one-line summaries.
func FirstSentence(text string) string {
	para, _, _ := strings.Cut(strings.TrimSpace(text), "\n\n")
	para = strings.Join(strings.Fields(para), " ")
	if i := strings.Index(para, ". "); i >= 0 {
		return para[:i+1]
	}
	return para
}

// Of returns the documentation of a Starlark value: a builtin's or module's
// recorded doc, a Starlark function's signature and docstring, or a short
// description of any other value. ok is false when nothing is documented.
func Of(v starlark.Value) (text string, ok bool) {
	switch x := v.(type) {
	case *starlark.Builtin:
		if d, ok := Lookup(x.Name()); ok {
			// Show a member's signature with its module: json.encode(...).
			if i := strings.LastIndexByte(x.Name(), '.'); i >= 0 && strings.HasPrefix(d, x.Name()[i+1:]+"(") {
				d = x.Name()[:i+1] + d
			}
			return d, true
		}
		if x.Receiver() != nil {
			return fmt.Sprintf("%s.%s: a method of %s", x.Receiver().Type(), x.Name(), x.Receiver().Type()), true
		}
		return "", false
	case *starlarkstruct.Module:
		var b strings.Builder
		if d, ok := Lookup(x.Name); ok {
			b.WriteString(d)
			b.WriteString("\n\n")
		}
		names := make([]string, 0, len(x.Members))
		width := 0
		for n := range x.Members {
			names = append(names, n)
			width = max(width, len(n))
		}
		sort.Strings(names)
		b.WriteString("Members:\n")
		for _, n := range names {
			summary := ""
			if bi, ok := x.Members[n].(*starlark.Builtin); ok {
				summary = Summary(bi.Name())
			} else {
				summary = x.Members[n].Type() + " " + trimRepr(x.Members[n].String())
			}
			fmt.Fprintf(&b, "  %-*s  %s\n", width, n, summary)
		}
		return strings.TrimRight(b.String(), "\n"), true
	case *starlark.Function:
		return FunctionSignature(x) + describe(x.Doc()), true
	}
	return "", false
}

// FunctionSignature renders a Starlark function's name and parameters, as in
// "def add(a, b = 1, *args, **kwargs)".
func FunctionSignature(fn *starlark.Function) string {
	var params []string
	for i := 0; i < fn.NumParams(); i++ {
		name, _ := fn.Param(i)
		def := fn.ParamDefault(i)
		if def != nil {
			params = append(params, fmt.Sprintf("%s = %s", name, def.String()))
		} else {
			params = append(params, name)
		}
	}
	// Starlark keeps *args and **kwargs as the last parameters.
	n := len(params)
	if fn.HasKwargs() && n > 0 {
		params[n-1] = "**" + params[n-1]
		n--
	}
	if fn.HasVarargs() && n > 0 {
		params[n-1] = "*" + params[n-1]
	}
	return fmt.Sprintf("def %s(%s)", fn.Name(), strings.Join(params, ", "))
}

func describe(docstring string) string {
	docstring = strings.TrimSpace(docstring)
	if docstring == "" {
		return ""
	}
	return "\n\n" + docstring
}

func trimRepr(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}
