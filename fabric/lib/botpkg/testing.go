package botpkg

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// TestResult is one test function of a package's test_*.star files.
type TestResult struct {
	// File and Name are the test's module and function.
	File, Name string
	// Err is why it failed (nil: it passed), one line with file:line:col.
	Err error
}

// assertModule is the assert module of test modules.
var assertModule = &starlarkstruct.Module{Name: "assert", Members: starlark.StringDict{
	"eq":       starlark.NewBuiltin("assert.eq", assertEq),
	"ne":       starlark.NewBuiltin("assert.ne", assertNe),
	"true":     starlark.NewBuiltin("assert.true", assertTrue),
	"contains": starlark.NewBuiltin("assert.contains", assertContains),
	"fails":    starlark.NewBuiltin("assert.fails", assertFails),
}}

func assertEq(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var got, want starlark.Value
	msg := ""
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "got", &got, "want", &want, "msg?", &msg); err != nil {
		return nil, err
	}
	eq, err := starlark.Equal(got, want)
	if err != nil {
		return nil, err
	}
	if !eq {
		return nil, fmt.Errorf("%sgot %s, want %s", prefix(msg), got.String(), want.String())
	}
	return starlark.None, nil
}

func assertNe(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var got, other starlark.Value
	msg := ""
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "got", &got, "other", &other, "msg?", &msg); err != nil {
		return nil, err
	}
	eq, err := starlark.Equal(got, other)
	if err != nil {
		return nil, err
	}
	if eq {
		return nil, fmt.Errorf("%sgot %s, want another value", prefix(msg), got.String())
	}
	return starlark.None, nil
}

func assertTrue(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cond starlark.Value
	msg := ""
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "cond", &cond, "msg?", &msg); err != nil {
		return nil, err
	}
	if !cond.Truth() {
		return nil, fmt.Errorf("%s%s is not true", prefix(msg), cond.String())
	}
	return starlark.None, nil
}

func assertContains(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var coll, x starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &coll, &x); err != nil {
		return nil, err
	}
	in, err := starlark.Binary(syntax.IN, x, coll)
	if err != nil {
		return nil, err
	}
	if !in.Truth() {
		return nil, fmt.Errorf("%s does not contain %s", coll.String(), x.String())
	}
	return starlark.None, nil
}

// assertFails calls fn(*args) and checks it fails with an error
// containing want.
func assertFails(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("%s: want (fn, text, *args)", b.Name())
	}
	want, ok := starlark.AsString(args[1])
	if !ok {
		return nil, fmt.Errorf("%s: the text is a %s", b.Name(), args[1].Type())
	}
	_, err := starlark.Call(thread, args[0], args[2:], kwargs)
	if err == nil {
		return nil, fmt.Errorf("the call did not fail (want an error containing %q)", want)
	}
	msg := err.Error()
	if ee, ok := err.(*starlark.EvalError); ok {
		msg = ee.Msg
	}
	if !strings.Contains(msg, want) {
		return nil, fmt.Errorf("the call failed with %q, not with an error containing %q", msg, want)
	}
	return starlark.String(msg), nil
}

func prefix(msg string) string {
	if msg == "" {
		return ""
	}
	return msg + ": "
}

// Fixtures makes the frame a test's fixture(name) returns of its rows (a
// list of dicts): the frame value bots get (fabric/lib/starframe), given
// by the build that runs the tests; nil leaves the list as it is.
type Fixtures func(thread *starlark.Thread, rows starlark.Value) (starlark.Value, error)

// fixtureBuiltin is fixture(name): the rows of the package's
// fixtures/NAME.json (a list of objects), a fixture frame for tests; or
// fixture(rows): a frame of a list of dicts.
func fixtureBuiltin(fsys fs.FS, frames Fixtures) *starlark.Builtin {
	return starlark.NewBuiltin("fixture", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var arg starlark.Value
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &arg); err != nil {
			return nil, err
		}
		rows, what := arg, "fixture(rows)"
		if name, ok := starlark.AsString(arg); ok {
			what = fmt.Sprintf("fixture(%q)", name)
			if strings.Contains(name, "/") || strings.Contains(name, "..") {
				return nil, fmt.Errorf("%s: a fixture is named, not a path", what)
			}
			data, err := fs.ReadFile(fsys, path.Join("fixtures", name+".json"))
			if err != nil {
				return nil, fmt.Errorf("%s: the package has no fixtures/%s.json", what, name)
			}
			if rows, err = starlark.Call(thread, jsonModule.Members["decode"], starlark.Tuple{starlark.String(data)}, nil); err != nil {
				return nil, fmt.Errorf("%s: %v", what, err)
			}
		}
		if frames == nil {
			return rows, nil
		}
		v, err := frames(thread, rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", what, err)
		}
		return v, nil
	})
}

// RunTests loads the package of fsys and runs the functions named test_*
// of its test_*.star modules, each in a fresh thread under the step
// budget; a test module sees assert and fixture besides what a module
// sees; fixture(name) is a frame made by frames. A package that does not
// load is an error; a failing test is a result.
func RunTests(ctx context.Context, fsys fs.FS, l Limits, frames Fixtures) ([]TestResult, error) {
	p, err := Load(ctx, fsys, l)
	if err != nil {
		return nil, err
	}
	l = p.limit
	files, err := readFiles(fsys, l)
	if err != nil {
		return nil, err
	}
	var tests []string
	for _, name := range p.Files {
		if IsTest(name) {
			tests = append(tests, name)
		}
	}
	var out []TestResult
	for _, file := range tests {
		ld := &loader{files: files, limit: l, progs: map[string]*starlark.Program{}, done: map[string]*entry{}, fixtures: fsys, frames: frames}
		for name := range files {
			if strings.HasSuffix(name, ".star") {
				if err := ld.compile(name, IsTest(name)); err != nil {
					return nil, err
				}
			}
		}
		thread := newThread(ctx, "test "+file, l.Steps)
		thread.Load = ld.load
		thread.SetLocal(httpKey, newHTTPPolicy(nil, nil))
		stop := watchContext(ctx, thread)
		globals, err := ld.exec(thread, file)
		stop()
		if err != nil {
			out = append(out, TestResult{File: file, Err: callError(ctx, thread, l, err)})
			continue
		}
		var names []string
		for name, v := range globals {
			if _, ok := v.(*starlark.Function); ok && strings.HasPrefix(name, "test_") {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			t := newThread(ctx, file+":"+name, l.Steps)
			t.SetLocal(httpKey, newHTTPPolicy(nil, nil))
			stop := watchContext(ctx, t)
			_, err := starlark.Call(t, globals[name], nil, nil)
			stop()
			r := TestResult{File: file, Name: name}
			if err != nil {
				r.Err = callError(ctx, t, l, err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}
