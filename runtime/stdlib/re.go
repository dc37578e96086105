package stdlib

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"

	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

func reModule() starlark.Value {
	return doc.Module("re", `Regular expressions (Go's RE2 syntax: no backreferences or lookaround;
named groups are (?P<name>...) or (?<name>...)).

A match is a list [whole, group1, group2, ...] with None for groups that
did not take part; functions return None when nothing matches.`, starlark.StringDict{
		"match": doc.Builtin("re.match", `match(pattern, s)

Matches pattern at the start of s. Returns [whole, group1, ...] or None.`, reMatch),
		"search": doc.Builtin("re.search", `search(pattern, s)

Finds the first match of pattern anywhere in s. Returns [whole, group1, ...]
or None.`, reMatch),
		"fullmatch": doc.Builtin("re.fullmatch", `fullmatch(pattern, s)

Matches pattern against the whole of s. Returns [whole, group1, ...] or
None.`, reMatch),
		"findall": doc.Builtin("re.findall", `findall(pattern, s)

Returns every non-overlapping match of pattern in s, as Python does: a list
of the matched strings when pattern has no group, of the group's text when
it has one, and of tuples of the groups' texts when it has several
("" for a group that did not take part).`, reFindall),
		"sub": doc.Builtin("re.sub", `sub(pattern, repl, s, count=0)

Returns s with the matches of pattern replaced by repl, at most count of
them (all when count is 0). In repl, \1 or \g<1> inserts a group and
\g<name> a named group; \\ is a backslash. repl may also be a function,
called with each match ([whole, group1, ...]) and returning the
replacement text.`, reSub),
		"split": doc.Builtin("re.split", `split(pattern, s, maxsplit=0)

Splits s at the matches of pattern, at most maxsplit times (no limit when
0). The texts of pattern's groups, if any, are included between the parts,
as Python does.`, reSplit),
		"escape": doc.Builtin("re.escape", `escape(s)

Returns s with every regular expression metacharacter escaped, so that it
matches itself literally.`, reEscape),
		"named": doc.Builtin("re.named", `named(pattern, s)

Finds the first match of pattern in s and returns a dict from each named
group to its text (None when the group did not take part), or None when
nothing matches.`, reNamed),
	})
}

const reCacheSize = 256

type reKey struct {
	mode    string // "search", "match" or "fullmatch"
	pattern string
}

var reCache = struct {
	sync.Mutex
	m map[reKey]*regexp.Regexp
}{m: map[reKey]*regexp.Regexp{}}

// compileRE compiles pattern for fn, anchored for re.match and re.fullmatch,
// through a bounded cache.
func compileRE(fn, pattern, mode string) (*regexp.Regexp, error) {
	key := reKey{mode, pattern}
	reCache.Lock()
	re, ok := reCache.m[key]
	reCache.Unlock()
	if ok {
		return re, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, patternError(fn, pattern, err)
	}
	switch mode {
	case "match":
		re, err = regexp.Compile(`\A(?:` + pattern + `)`)
	case "fullmatch":
		re, err = regexp.Compile(`\A(?:` + pattern + `)\z`)
	}
	if err != nil {
		return nil, patternError(fn, pattern, err)
	}
	reCache.Lock()
	if len(reCache.m) >= reCacheSize {
		for k := range reCache.m { // evict an arbitrary entry
			delete(reCache.m, k)
			break
		}
	}
	reCache.m[key] = re
	reCache.Unlock()
	return re, nil
}

func patternError(fn, pattern string, err error) error {
	var se *syntax.Error
	if errors.As(err, &se) {
		msg := se.Code.String()
		if se.Expr != "" && se.Expr != pattern {
			msg += fmt.Sprintf(" at `%s`", se.Expr)
		}
		return fmt.Errorf("%s: invalid pattern %q: %s", fn, pattern, msg)
	}
	return fmt.Errorf("%s: invalid pattern %q: %v", fn, pattern, err)
}

// groups turns a submatch index into [whole, group1, ...], None for
// groups that did not take part.
func groups(s string, loc []int) *starlark.List {
	elems := make([]starlark.Value, len(loc)/2)
	for i := range elems {
		if loc[2*i] < 0 {
			elems[i] = starlark.None
		} else {
			elems[i] = starlark.String(s[loc[2*i]:loc[2*i+1]])
		}
	}
	return starlark.NewList(elems)
}

func reMatch(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pattern, s string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "s", &s); err != nil {
		return nil, err
	}
	re, err := compileRE(b.Name(), pattern, strings.TrimPrefix(b.Name(), "re."))
	if err != nil {
		return nil, err
	}
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		return starlark.None, nil
	}
	return groups(s, loc), nil
}

func reNamed(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pattern, s string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "s", &s); err != nil {
		return nil, err
	}
	re, err := compileRE(b.Name(), pattern, "search")
	if err != nil {
		return nil, err
	}
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		return starlark.None, nil
	}
	d := starlark.NewDict(0)
	for i, name := range re.SubexpNames() {
		if i == 0 || name == "" {
			continue
		}
		var v starlark.Value = starlark.None
		if loc[2*i] >= 0 {
			v = starlark.String(s[loc[2*i]:loc[2*i+1]])
		}
		if err := d.SetKey(starlark.String(name), v); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func reFindall(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pattern, s string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "s", &s); err != nil {
		return nil, err
	}
	re, err := compileRE(b.Name(), pattern, "search")
	if err != nil {
		return nil, err
	}
	text := func(loc []int, i int) starlark.String {
		if loc[2*i] < 0 {
			return ""
		}
		return starlark.String(s[loc[2*i]:loc[2*i+1]])
	}
	var out []starlark.Value
	for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
		switch n := re.NumSubexp(); n {
		case 0:
			out = append(out, text(loc, 0))
		case 1:
			out = append(out, text(loc, 1))
		default:
			t := make(starlark.Tuple, n)
			for i := range t {
				t[i] = text(loc, i+1)
			}
			out = append(out, t)
		}
	}
	return starlark.NewList(out), nil
}

func reSub(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		pattern, s string
		repl       starlark.Value
		count      int
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "repl", &repl, "s", &s, "count?", &count); err != nil {
		return nil, err
	}
	re, err := compileRE(b.Name(), pattern, "search")
	if err != nil {
		return nil, err
	}
	var (
		template string
		fn       starlark.Callable
	)
	switch r := repl.(type) {
	case starlark.String:
		template, err = replTemplate(re, string(r))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name(), err)
		}
	case starlark.Callable:
		fn = r
	default:
		return nil, fmt.Errorf("%s: for parameter repl: got %s, want str or function", b.Name(), repl.Type())
	}
	n := -1
	if count > 0 {
		n = count
	}
	var out []byte
	last := 0
	for _, loc := range re.FindAllStringSubmatchIndex(s, n) {
		out = append(out, s[last:loc[0]]...)
		if fn != nil {
			v, err := starlark.Call(thread, fn, starlark.Tuple{groups(s, loc)}, nil)
			if err != nil {
				return nil, err
			}
			str, ok := starlark.AsString(v)
			if !ok {
				return nil, fmt.Errorf("%s: repl function returned %s, want str", b.Name(), v.Type())
			}
			out = append(out, str...)
		} else {
			out = re.ExpandString(out, template, s, loc)
		}
		last = loc[1]
	}
	out = append(out, s[last:]...)
	return starlark.String(out), nil
}

// replTemplate translates a Python replacement string (\1, \g<1>,
// \g<name>, \\, \n...) into a template for regexp.Expand.
func replTemplate(re *regexp.Regexp, repl string) (string, error) {
	var b strings.Builder
	group := func(ref string) error {
		if n, err := strconv.Atoi(ref); err == nil {
			if n > re.NumSubexp() {
				return fmt.Errorf("invalid group reference %d", n)
			}
			fmt.Fprintf(&b, "${%d}", n)
			return nil
		}
		if re.SubexpIndex(ref) < 0 {
			return fmt.Errorf("unknown group name %q", ref)
		}
		fmt.Fprintf(&b, "${%s}", ref)
		return nil
	}
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c == '$' {
			b.WriteString("$$")
			continue
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(repl) {
			return "", fmt.Errorf("bad escape (end of replacement)")
		}
		c = repl[i]
		switch {
		case c >= '0' && c <= '9':
			j := i + 1
			if j < len(repl) && repl[j] >= '0' && repl[j] <= '9' {
				j++
			}
			if err := group(repl[i:j]); err != nil {
				return "", err
			}
			i = j - 1
		case c == 'g':
			end := strings.IndexByte(repl[i:], '>')
			if i+1 >= len(repl) || repl[i+1] != '<' || end < 0 {
				return "", fmt.Errorf("missing group name in \\g<...>")
			}
			if err := group(repl[i+2 : i+end]); err != nil {
				return "", err
			}
			i += end
		case c == '\\':
			b.WriteByte('\\')
		case strings.IndexByte("abfnrtv", c) >= 0:
			b.WriteByte("\a\b\f\n\r\t\v"[strings.IndexByte("abfnrtv", c)])
		case c < 0x80 && (c|0x20 >= 'a' && c|0x20 <= 'z'):
			return "", fmt.Errorf("bad escape \\%c", c)
		default:
			b.WriteByte('\\') // Python keeps unknown escapes of punctuation
			if c == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(c)
			}
		}
	}
	return b.String(), nil
}

func reSplit(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		pattern, s string
		maxsplit   int
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "s", &s, "maxsplit?", &maxsplit); err != nil {
		return nil, err
	}
	re, err := compileRE(b.Name(), pattern, "search")
	if err != nil {
		return nil, err
	}
	n := -1
	if maxsplit > 0 {
		n = maxsplit
	}
	var out []starlark.Value
	last := 0
	for _, loc := range re.FindAllStringSubmatchIndex(s, n) {
		out = append(out, starlark.String(s[last:loc[0]]))
		g := groups(s, loc)
		for i := 1; i < g.Len(); i++ {
			out = append(out, g.Index(i))
		}
		last = loc[1]
	}
	out = append(out, starlark.String(s[last:]))
	return starlark.NewList(out), nil
}

func reEscape(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "s", &s); err != nil {
		return nil, err
	}
	return starlark.String(regexp.QuoteMeta(s)), nil
}
