package data

import (
	"fmt"
	"os"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/lib/viewer"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// vizMaxRows bounds the rows the viewer reads into memory, for a table
// it cannot read by row group (a CSV file, a filtered frame).
const vizMaxRows = 2_000_000

// vizBuiltin is viz(frame, title=""): the terminal's table viewer.
func vizBuiltin() *starlark.Builtin {
	return doc.Builtin("viz", `viz(frame, title="")

Shows a frame in the terminal's table viewer, full-screen: scroll by row
and page (arrows, PgUp/PgDn), move by column, sort by the column under
the cursor (s), filter with a CFXQL query (/), jump to a row (:), a
column's summary (i), q to leave. It reads lazily: a dataset, a job's
output or a Parquet file by row group, only the rows on the screen; a
sort reads its column, a filter its query's columns, in the background
(Esc cancels). Other frames are read into memory as they are shown, at
most 2,000,000 rows. When the standard input or output is not a
terminal, viz prints the frame as print does, with a notice on stderr.`, viz)
}

func viz(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	var title string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "frame", &v, "title?", &title); err != nil {
		return nil, err
	}
	fv, ok := v.(*Frame)
	if !ok {
		return nil, fmt.Errorf("%s: frame must be a frame, not %s", b.Name(), v.Type())
	}
	hio := host.From(thread)
	in, out, term := terminal(hio)
	if !term {
		f, err := fv.Read(thread, b)
		if err != nil {
			return nil, err
		}
		if _, err := fmt.Fprintln(hio.Stdout, f.String()); err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		fmt.Fprintln(hio.Stderr, "warning: viz: not a terminal; printing the table")
		return starlark.None, nil
	}
	ctx := host.Context(thread)
	rows, plan := fv.State()
	var t viewer.Table
	if plan != nil {
		var err error
		if t, err = viewer.Open(ctx, plan, vizMaxRows); err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
	} else {
		t = viewer.FromFrame(rows)
	}
	if err := viewer.Run(ctx, t, in, out, viewer.Options{Title: title}); err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	return starlark.None, nil
}

// terminal returns the terminal the viewer reads keys from and draws
// on, and whether the script's input and output are one. The shell
// wraps its streams (a buffer, a broken-pipe watch): the terminal is the
// process's own, when the script's streams stand for it.
func terminal(hio *host.IO) (in, out *os.File, ok bool) {
	if !hio.StdoutTerminal || !host.IsTerminal(os.Stdout) || !host.IsTerminal(os.Stdin) {
		return nil, nil, false
	}
	if _, isFile := hio.Stdin.(*os.File); isFile && hio.Stdin != os.Stdin {
		return nil, nil, false
	}
	return os.Stdin, os.Stdout, true
}
