package data

import (
	"context"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"github.com/fabricops/fabric/fabric/lib/starframe"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// Frame is the Starlark value of a frame (fabric/lib/starframe), which the
// bots of bot packages see too; the shell's frames add the methods that
// write files.
type Frame = starframe.Frame

// shellFrames is the kit of the shell's frames: a read is bounded by the
// thread's context (Ctrl-C), errors read as the shell's, and write,
// to_csv, to_json and to_parquet write local files.
var shellFrames = &starframe.Kit{
	Context: host.Context,
	Fail:    builtins.Fail,
	Methods: map[string]starframe.Method{
		"write": {Doc: `write(path, format="auto")

Writes the frame to a local file, atomically: csv, json, jsonl, parquet or
xlsx, from the extension with auto; .gz, .bz2, .xz, .zst compress CSV and
JSON. A lazy frame is streamed into the file. Returns the number of rows
written.`, Fn: write},
		"to_csv":     {Doc: "to_csv(path)\n\nWrites the frame as CSV (compressed by a .gz, .bz2, .xz or .zst extension); returns the rows written.", Fn: writeAs(frame.CSV)},
		"to_json":    {Doc: "to_json(path)\n\nWrites the frame as a JSON array of records; returns the rows written.", Fn: writeAs(frame.JSON)},
		"to_parquet": {Doc: "to_parquet(path)\n\nWrites the frame as Parquet; returns the rows written.", Fn: writeAs(frame.Parquet)},
	},
}

// NewFrameValue wraps f as a Starlark value.
func NewFrameValue(f *frame.Frame) *Frame { return shellFrames.New(f) }

// NewLazyFrame wraps a lazy table; reads that Starlark asks for without a
// thread (len, printing, iteration) run under ctx.
func NewLazyFrame(ctx context.Context, t *lazy.Table) *Frame { return shellFrames.NewLazy(ctx, t) }

// sourceOf opens the rows of v, if v is a frame, as a stream: a lazy
// frame runs its plan, batch by batch. The caller closes the source.
func sourceOf(ctx context.Context, v starlark.Value) (frame.Source, bool, error) {
	fv, ok := v.(*Frame)
	if !ok {
		return nil, false, nil
	}
	src, err := fv.Source(ctx)
	return src, true, err
}

// writeAs is the method writing a frame in one format.
func writeAs(f frame.Format) func(v *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return func(v *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var path string
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path); err != nil {
			return nil, err
		}
		return writeFile(v, thread, b, path, f)
	}
}

func write(v *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	format := "auto"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "format?", &format); err != nil {
		return nil, err
	}
	f, err := frame.ParseFormat(format)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	return writeFile(v, thread, b, path, f)
}

// writeFile writes the frame to path in format f: a lazy frame streams
// its plan into the file (see exportSource), holding a few batches.
func writeFile(v *Frame, thread *starlark.Thread, b *starlark.Builtin, path string, f frame.Format) (starlark.Value, error) {
	fr, lz := v.State()
	if lz != nil {
		src, err := lz.Open(host.Context(thread))
		if err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		defer src.Close()
		stats, err := exportSource(thread, src, path, f)
		if err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		return starlark.MakeInt64(stats.Rows), nil
	}
	if err := fr.Write(host.From(thread).Path(path), f); err != nil {
		return nil, builtins.Fail(b.Name(), builtins.TrimPathError(err))
	}
	return starlark.MakeInt(fr.NumRows()), nil
}
