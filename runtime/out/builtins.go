package out

import (
	"fmt"
	"strings"

	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/runtime/stdlib"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

func tableBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		rows    starlark.Iterable
		columns starlark.Value = starlark.None
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "rows", &rows, "columns?", &columns); err != nil {
		return nil, err
	}
	return starlark.None, printTable(thread, b.Name(), rows, columns)
}

func printTable(thread *starlark.Thread, fn string, rowsV starlark.Iterable, columnsV starlark.Value) error {
	rows := elements(rowsV)
	h := host.From(thread)
	if len(rows) == 0 {
		return writeErr(fn, fprint(h.Stderr, "no rows\n"))
	}
	var (
		cols []column
		err  error
	)
	if columnsV != starlark.None {
		cols, err = parseColumns(fn, columnsV)
	} else {
		cols, err = defaultColumns(fn, rows)
	}
	if err != nil {
		return err
	}
	if len(cols) == 0 {
		return nil
	}
	headers := make([]string, len(cols))
	for i, c := range cols {
		headers[i] = oneLine(c.header)
	}
	cells := make([][]string, len(rows))
	for i, row := range rows {
		line := make([]string, len(cols))
		switch r := row.(type) {
		case *starlark.Dict:
			for j, c := range cols {
				if v, found, _ := r.Get(c.key); found {
					line[j] = Cell(v)
				}
			}
		case *starlarkstruct.Struct:
			for j, c := range cols {
				if name, ok := starlark.AsString(c.key); ok {
					if v, err := r.Attr(name); err == nil && v != nil {
						line[j] = Cell(v)
					}
				}
			}
		case *starlark.List, starlark.Tuple:
			elems := elements(r.(starlark.Iterable))
			for j := range cols {
				if j < len(elems) {
					line[j] = Cell(elems[j])
				}
			}
		default:
			return fmt.Errorf("%s: row %d is a %s, want dict or list", fn, i, row.Type())
		}
		cells[i] = line
	}
	return writeErr(fn, WriteTable(h.Stdout, headers, cells, !h.NoColor, h.TableColumns()))
}

// column is a table column: its header and the key of its cells.
type column struct {
	header string
	key    starlark.Value
}

// parseColumns reads the columns argument: keys, or (header, key) pairs.
func parseColumns(fn string, v starlark.Value) ([]column, error) {
	it, ok := v.(starlark.Iterable)
	if !ok || isString(v) {
		return nil, fmt.Errorf("%s: for parameter columns: got %s, want list", fn, v.Type())
	}
	var cols []column
	for _, c := range elements(it) {
		switch x := c.(type) {
		case starlark.String:
			cols = append(cols, column{string(x), x})
		case starlark.Tuple, *starlark.List:
			pair := elements(x.(starlark.Iterable))
			if len(pair) != 2 {
				return nil, fmt.Errorf("%s: column %s: want a key or a (header, key) pair", fn, c)
			}
			header, ok := starlark.AsString(pair[0])
			if !ok {
				return nil, fmt.Errorf("%s: column %s: header must be a str", fn, c)
			}
			cols = append(cols, column{header, pair[1]})
		default:
			return nil, fmt.Errorf("%s: column %s: want a key or a (header, key) pair", fn, c)
		}
	}
	return cols, nil
}

// defaultColumns returns the keys of the first dict row in order, then
// any new keys of later rows.
func defaultColumns(fn string, rows []starlark.Value) ([]column, error) {
	var cols []column
	seen := map[string]bool{}
	add := func(k starlark.Value) {
		header, ok := starlark.AsString(k)
		if !ok {
			header = k.String()
		}
		id := k.Type() + ":" + k.String()
		if !seen[id] {
			seen[id] = true
			cols = append(cols, column{header, k})
		}
	}
	for i, row := range rows {
		switch r := row.(type) {
		case *starlark.Dict:
			for _, k := range r.Keys() {
				add(k)
			}
		case *starlarkstruct.Struct:
			for _, name := range r.AttrNames() {
				add(starlark.String(name))
			}
		case *starlark.List, starlark.Tuple:
			return nil, fmt.Errorf("%s: rows are lists, so columns must be given", fn)
		default:
			return nil, fmt.Errorf("%s: row %d is a %s, want dict or list", fn, i, row.Type())
		}
	}
	return cols, nil
}

func isString(v starlark.Value) bool {
	_, ok := v.(starlark.String)
	return ok
}

// elements returns the elements of an iterable.
func elements(x starlark.Iterable) []starlark.Value {
	var out []starlark.Value
	it := x.Iterate()
	defer it.Done()
	var v starlark.Value
	for it.Next(&v) {
		out = append(out, v)
	}
	return out
}

func printJSON(thread *starlark.Thread, fn string, v starlark.Value) error {
	data, err := stdlib.EncodeJSON(v, "  ", false)
	if err != nil {
		return fmt.Errorf("%s: %v", fn, err)
	}
	return writeErr(fn, fprint(host.From(thread).Stdout, string(data)+"\n"))
}

func jsonBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "v", &v); err != nil {
		return nil, err
	}
	return starlark.None, printJSON(thread, b.Name(), v)
}

func yamlBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "v", &v); err != nil {
		return nil, err
	}
	return starlark.None, printYAML(thread, b.Name(), v)
}

func printYAML(thread *starlark.Thread, fn string, v starlark.Value) error {
	data, err := stdlib.EncodeYAML(v)
	if err != nil {
		return fmt.Errorf("%s: %s", fn, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return writeErr(fn, fprint(host.From(thread).Stdout, string(data)))
}

func noticeBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: unexpected keyword argument %s", b.Name(), kwargs[0][0])
	}
	parts := make([]string, len(args))
	for i, a := range args {
		s, ok := starlark.AsString(a)
		if !ok {
			s = a.String()
		}
		parts[i] = s
	}
	msg := strings.Join(parts, " ")
	if b.Name() == "out.warn" {
		msg = "warning: " + msg
	}
	return starlark.None, writeErr(b.Name(), fprint(host.From(thread).Stderr, msg+"\n"))
}

func textBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "s", &s); err != nil {
		return nil, err
	}
	var text string
	switch x := s.(type) {
	case starlark.String:
		text = string(x)
	case starlark.Bytes:
		text = string(x)
	default:
		return nil, fmt.Errorf("%s: for parameter s: got %s, want str or bytes", b.Name(), s.Type())
	}
	return starlark.None, writeErr(b.Name(), fprint(host.From(thread).Stdout, text))
}
