package data

import (
	"fmt"
	"github.com/fabricops/fabric/builtins"

	"github.com/fabricops/fabric/fabric/lib/cfxql"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// cfxqlModule is the cfxql module: the filter-expression language over
// dicts (frames filter with frame.filter("query")).
func cfxqlModule() starlark.Value {
	return doc.Module("cfxql", "The filter-expression language (CFXQL): conditions over dicts and frames.", starlark.StringDict{
		"match": doc.Builtin("cfxql.match", `match(query, d)

Reports whether the dict d satisfies the CFXQL query ("cpu_load1 <= 7.0 and
site is 'nyc'"); a key the query names that d lacks is null.`, cfxqlMatch),
		"check": doc.Builtin("cfxql.check", `check(query)

Parses a query and returns its GET columns as a list of (name, alias)
tuples; a syntax error fails naming its column ("col 14: ...").`, cfxqlCheck),
	})
}

func cfxqlMatch(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var query string
	var d *starlark.Dict
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "query", &query, "d", &d); err != nil {
		return nil, err
	}
	q, err := cfxql.Parse(query)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	row := make(map[string]any, d.Len())
	for _, item := range d.Items() {
		k, ok := starlark.AsString(item[0])
		if !ok {
			return nil, fmt.Errorf("%s: keys must be strings, not %s", b.Name(), item[0].Type())
		}
		v, err := starvalue.FromStarlark(item[1])
		if err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		row[k] = starvalue.Plain(v)
	}
	ok, err := q.Match(row)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	return starlark.Bool(ok), nil
}

func cfxqlCheck(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var query string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "query", &query); err != nil {
		return nil, err
	}
	q, err := cfxql.Parse(query)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	var cols []starlark.Value
	for _, c := range q.Projection() {
		cols = append(cols, starlark.Tuple{starlark.String(c.Name), starlark.String(c.Alias)})
	}
	return starlark.NewList(cols), nil
}
