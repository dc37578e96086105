package data

import (
	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"github.com/fabricops/fabric/fabric/lib/starframe"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// frameModule is the frame module: reading tables into frames and building
// them from rows. It also records the docs of a frame's methods, as
// doc.Builtin does for the module's own.
func frameModule() starlark.Value {
	for name, text := range shellFrames.Docs() {
		doc.Register("frame."+name, text)
	}
	return doc.Module("frame", "Frames: Arrow-backed tables read from files or built from rows.", starlark.StringDict{
		"read": doc.Builtin("frame.read", `read(path, format="auto")

Reads a local file as a lazy frame: rows are read when a result is
needed, and a Parquet file reads only the columns and row groups the
frame's filters and selects need. format is auto (from the extension), csv,
json (an array of records), jsonl, parquet, xlsx or xls (the legacy
binary workbook, its first sheet); CSV and JSON may be
compressed (.gz, .bz2, .xz, .zst). Column types are inferred and named as
pandas names them: int64, float64, bool, object, datetime64[ns].`, frameRead),
		"from_rows": doc.Builtin("frame.from_rows", `from_rows(rows)

Builds a frame from a list of dicts, one per row. The columns are the keys
in the order they first appear; a row without a key has null there. A
column whose values are all instants as rows give them (strings such as
"2026-01-02T03:04:05.000000") is a datetime64[ns] column again.`, frameFromRows),
	})
}

func frameRead(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	format := "auto"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "format?", &format); err != nil {
		return nil, err
	}
	f, err := frame.ParseFormat(format)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	p := host.From(thread).Path(path)
	if _, _, err := frame.Detect(p, f); err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	ctx := host.Context(thread)
	t := lazy.New(lazy.NewFile(p, f))
	if err := t.Check(ctx); err != nil {
		return nil, builtins.Fail(b.Name(), builtins.TrimPathError(err))
	}
	return NewLazyFrame(ctx, t), nil
}

func frameFromRows(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rows starlark.Iterable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "rows", &rows); err != nil {
		return nil, err
	}
	fr, err := starframe.FromRows(rows, 0)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	return NewFrameValue(fr), nil
}

// columnNames accepts one column name or a list or tuple of them.
func columnNames(v starlark.Value) ([]string, error) { return starframe.ColumnNames(v) }
