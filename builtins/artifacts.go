package builtins

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/runtime/stdlib"
	"go.starlark.net/starlark"
)

// artifactModules returns one module per declared artifact kind, all made
// by the same rule (see artifactModule).
func (e *Env) artifactModules() starlark.StringDict {
	m := starlark.StringDict{}
	for name, k := range client.ArtifactKinds {
		m[name] = e.artifactModule(name, k)
	}
	return m
}

// artifactRepo opens the tenant's artifact store.
func artifactRepo(ctx context.Context, c *client.Client) (*client.ArtifactRepo, error) {
	st, err := c.Data.Store(ctx)
	if err != nil {
		return nil, err
	}
	return &client.ArtifactRepo{Store: st}, nil
}

// artifactModule makes a kind's module: add, get, list, delete, and
// enable and disable for the kinds that toggle.
func (e *Env) artifactModule(name string, k *client.ArtifactKind) starlark.Value {
	repo := artifactRepo
	format := "JSON"
	if k.YAML {
		format = "YAML"
	}
	fns := starlark.StringDict{
		"add": doc.BuiltinLazy(name+".add", func() string {
			return fmt.Sprintf(`add(file=None, data=None, overwrite=False)

Adds a %[1]s from a %[2]s or JSON file, or from data (a dict, or the text
of one). It is checked first (the error names the field); an existing %[1]s
of that name is replaced only with overwrite=True. Returns its list row,
with replaced: True when it replaced a %[1]s of its name.`, k.Name, format)
		},
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var file optString
				var data starlark.Value = starlark.None
				var overwrite bool
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "file?", &file, "data?", &data, "overwrite?", &overwrite); err != nil {
					return nil, err
				}
				// A dict's JSON and its values come from one walk; anything
				// else is text to parse.
				var buf bytes.Buffer
				plain, isDict := plainJSON(data, 0, &buf)
				text := buf.Bytes()
				if !isDict || file != "" {
					isDict = false
					var err error
					if text, err = artifactInput(thread, string(file), data); err != nil {
						return nil, fail(b.Name(), err)
					}
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
					r, err := repo(ctx, c)
					if err != nil {
						return nil, err
					}
					var rec client.ArtifactRecord
					if isDict {
						d, err := client.ArtifactFromJSON(text, plain)
						if err != nil {
							return nil, err
						}
						rec, err = r.AddDoc(ctx, k, d, "json", overwrite)
						if err != nil {
							return nil, err
						}
					} else if rec, err = r.Add(ctx, k, text, overwrite); err != nil {
						return nil, err
					}
					row, err := rowValue(k, r.Row(k, rec))
					if d, ok := row.(*starlark.Dict); ok && err == nil {
						err = d.SetKey(starlark.String("replaced"), starlark.Bool(rec.Replaced))
					}
					return row, err
				})
			}),
		"get": doc.BuiltinLazy(name+".get", func() string {
			return fmt.Sprintf("get(name)\n\nReturns a %s as a dict, its keys in the order they were written.", k.Name)
		},
			e.nameCall(func(ctx context.Context, c *client.Client, n string) (any, error) {
				r, err := repo(ctx, c)
				if err != nil {
					return nil, err
				}
				text, err := r.GetJSON(ctx, k, n)
				if err != nil {
					return nil, err
				}
				v, err := stdlib.DecodeJSON(text)
				if err != nil {
					return nil, fmt.Errorf("the record of %s %q is corrupt: %v", k.Name, n, err)
				}
				return v, nil
			})),
		"fields": doc.BuiltinLazy(name+".fields", func() string {
			return fmt.Sprintf(`fields()

Returns the fields of a %s document as add's help shows them (from the
kind's schema: one a line, nested ones indented, required ones starred),
followed by an example document when the kind has one.`, k.Name)
		},
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
					return nil, err
				}
				text := k.Fields()
				if ex := k.Example(); ex != "" {
					text += "\n\nExample:\n\n    " + strings.ReplaceAll(strings.TrimRight(ex, "\n"), "\n", "\n    ")
				}
				return starlark.String(text), nil
			}),
		"list": doc.BuiltinLazy(name+".list", func() string {
			return fmt.Sprintf("list()\n\nReturns the list rows of the %s records (%v), by name.", k.Name, k.Columns)
		},
			e.listCall(func(ctx context.Context, c *client.Client) (any, error) {
				r, err := repo(ctx, c)
				if err != nil {
					return nil, err
				}
				recs, err := r.List(ctx, k)
				if err != nil {
					return nil, err
				}
				rows := make([]any, len(recs))
				for i, rec := range recs {
					if rows[i], err = rowValue(k, r.Row(k, rec)); err != nil {
						return nil, err
					}
				}
				return starlark.NewList(toValues(rows)), nil
			})),
		"delete": doc.BuiltinLazy(name+".delete", func() string { return fmt.Sprintf("delete(name)\n\nDeletes a %s.", k.Name) },
			e.nameCall(func(ctx context.Context, c *client.Client, n string) (any, error) {
				r, err := repo(ctx, c)
				if err != nil {
					return nil, err
				}
				return nil, r.Delete(ctx, k, n)
			})),
	}
	if k.Toggle {
		for _, on := range []bool{true, false} {
			verb := map[bool]string{true: "enable", false: "disable"}[on]
			fns[verb] = doc.BuiltinLazy(name+"."+verb, func() string {
				return fmt.Sprintf("%s(name)\n\n%ss a %s; returns False when it was so already.", verb, capitalize(verb), k.Name)
			},
				e.nameCall(func(ctx context.Context, c *client.Client, n string) (any, error) {
					r, err := repo(ctx, c)
					if err != nil {
						return nil, err
					}
					changed, err := r.SetEnabled(ctx, k, n, on)
					return starlark.Bool(changed), err
				}))
		}
	}
	what := fmt.Sprintf("The %s artifacts: add, get, list, delete%s", k.Name,
		map[bool]string{true: ", enable, disable", false: ""}[k.Toggle])
	if more, ok := kindFunctions[name]; ok {
		var extra []string
		for fn, v := range more(e) {
			fns[fn] = v
			extra = append(extra, fn)
		}
		sort.Strings(extra)
		what += "; " + strings.Join(extra, ", ")
	}
	return doc.Module(name, what+".", fns)
}

// artifactInput returns the text of an artifact given as a file or as
// data (a dict, or text).
func artifactInput(thread *starlark.Thread, file string, data starlark.Value) ([]byte, error) {
	switch {
	case file != "" && data != starlark.None:
		return nil, fmt.Errorf("give file or data, not both")
	case file != "":
		text, err := os.ReadFile(host.From(thread).Path(file))
		if err != nil {
			return nil, trimPathError(err)
		}
		return text, nil
	case data != starlark.None:
		if s, ok := data.(starlark.String); ok {
			return []byte(string(s)), nil
		}
		return stdlib.EncodeJSON(data, "", false)
	}
	return nil, fmt.Errorf("give file or data")
}

// plainJSON writes a dict (not any other value: ok is false) as compact
// JSON to buf and returns the plain values encoding/json reads that JSON
// into (maps, []any, float64, string, bool, nil), in one walk; ok is false
// when the dict holds a value it does not write (a struct, a tuple, a host
// value, a string that is not UTF-8), which the JSON encoder then does.
func plainJSON(v starlark.Value, depth int, buf *bytes.Buffer) (any, bool) {
	if depth == 0 {
		if _, ok := v.(*starlark.Dict); !ok {
			return nil, false
		}
	}
	if depth > 100 {
		return nil, false
	}
	switch x := v.(type) {
	case starlark.NoneType:
		buf.WriteString("null")
		return nil, true
	case starlark.Bool:
		if x {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
		return bool(x), true
	case starlark.String:
		if !utf8.ValidString(string(x)) {
			return nil, false
		}
		stdlib.WriteJSONString(buf, string(x))
		return string(x), true
	case starlark.Int:
		text := x.String()
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, false
		}
		buf.WriteString(text)
		return f, true
	case starlark.Float:
		f := float64(x)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, false
		}
		buf.WriteString(stdlib.PyFloat(f)) // as the JSON encoder writes it: 2.0 stays a float
		return f, true
	case *starlark.List:
		out := make([]any, x.Len())
		buf.WriteByte('[')
		for i := range out {
			if i > 0 {
				buf.WriteByte(',')
			}
			e, ok := plainJSON(x.Index(i), depth+1, buf)
			if !ok {
				return nil, false
			}
			out[i] = e
		}
		buf.WriteByte(']')
		return out, true
	case *starlark.Dict:
		out := make(map[string]any, x.Len())
		buf.WriteByte('{')
		for i, item := range x.Items() {
			k, ok := item[0].(starlark.String)
			if !ok || !utf8.ValidString(string(k)) {
				return nil, false
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			stdlib.WriteJSONString(buf, string(k))
			buf.WriteByte(':')
			e, ok := plainJSON(item[1], depth+1, buf)
			if !ok {
				return nil, false
			}
			out[string(k)] = e
		}
		buf.WriteByte('}')
		return out, true
	}
	return nil, false
}

// rowValue turns a list row into a dict in the kind's column order.
func rowValue(k *client.ArtifactKind, row map[string]any) (starlark.Value, error) {
	m := make(starvalue.Map, 0, len(k.Columns))
	for _, c := range k.Columns {
		m = append(m, starvalue.KV{Key: c, Value: row[c]})
	}
	return starvalue.ToStarlark(m)
}

func toValues(xs []any) []starlark.Value {
	out := make([]starlark.Value, len(xs))
	for i, x := range xs {
		out[i] = x.(starlark.Value)
	}
	return out
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
