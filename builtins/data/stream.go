package data

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/fabricops/fabric/builtins"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/runtime/stdlib"
	"go.starlark.net/starlark"
)

// streamModule is the stream module: the tenant's persistent streams
// (SPEC 6), each message a record.
func (e env) streamModule() starlark.Value {
	return doc.Module("stream", "Persistent streams: named streams of records (JSON objects), kept by age and size.", starlark.StringDict{
		"add": doc.Builtin("stream.add", `add(name, description="", retention_hours=0, max_size_mb=0)

Adds a persistent stream that keeps its records retention_hours (0: by
age, forever) and at most max_size_mb (0: no bound of its own; the
oldest records go first). Returns its description (name, description,
system, retention_hours, max_size_mb, max_messages, messages, size_mb,
first_time, last_time, created).`, e.streamAdd),
		"get": doc.Builtin("stream.get", `get(name)

Returns a stream's description.`, e.streamNameCall(func(ctx context.Context, c *client.Client, name string) (any, error) {
			return client.StreamGet(ctx, c.JetStream(), name)
		})),
		"list": doc.Builtin("stream.list", `list()

Returns the description of every stream, the system ones too.`, e.streamList),
		"delete": doc.Builtin("stream.delete", `delete(name)

Deletes a stream and its records (not a system stream).`, e.streamNameCall(func(ctx context.Context, c *client.Client, name string) (any, error) {
			return nil, client.StreamDelete(ctx, c.JetStream(), name)
		})),
		"write": doc.Builtin("stream.write", `write(name, rows=None, file=None)

Writes records to a stream: rows (a list of dicts), or a file: JSON lines
(each line a record, as written), a JSON array, CSV or Parquet (each row
a record); file "-" is standard input (JSON lines, or CSV with a
header). Returns {"stream", "written"} once the stream has
acknowledged every record. A malformed row or file writes nothing.`, e.streamWrite),
		"read": doc.Builtin("stream.read", `read(name, from_=None, max_rows=0)

Returns the records of a stream (a list of dicts), from the first it
keeps or from from_ (an ISO 8601 time, UTC unless it says its zone;
epoch seconds; or a duration before now such as "-15m"), at most
max_rows when above 0. A message that is not a JSON object comes as
{"message": text}.`, e.streamRead),
		"follow": doc.Builtin("stream.follow", `follow(name, fn, from_=None, max_rows=0, timeout=None)

Calls fn(record) for each record of a stream, from from_ (default: the
records written from now on), and goes on with the new ones until
Ctrl-C, max_rows records or timeout seconds. Returns how many it read.`, e.streamFollow),
	})
}

func (e env) streamNameCall(do func(ctx context.Context, c *client.Client, name string) (any, error)) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var name string
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
			return nil, err
		}
		return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) { return do(ctx, c, name) })
	}
}

func (e env) streamAdd(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, description string
	var hoursV, sizeV starlark.Value = starlark.MakeInt(0), starlark.MakeInt(0)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "description?", &description, "retention_hours?", &hoursV, "max_size_mb?", &sizeV); err != nil {
		return nil, err
	}
	hours, ok1 := starlark.AsFloat(hoursV)
	sizeMB, ok2 := starlark.AsFloat(sizeV)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%s: retention_hours and max_size_mb are numbers", b.Name())
	}
	if hours < 0 || sizeMB < 0 {
		return nil, fmt.Errorf("%s: retention_hours and max_size_mb cannot be negative", b.Name())
	}
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return client.StreamAdd(ctx, c.JetStream(), client.StreamConfig{Name: name, Description: description,
			MaxAge: time.Duration(hours * float64(time.Hour)), MaxBytes: int64(sizeMB * (1 << 20))})
	})
}

func (e env) streamList(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) { return client.StreamList(ctx, c.JetStream()) })
}

func (e env) streamWrite(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var rows *starlark.List
	var file optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "rows?", &rows, "file?", &file); err != nil {
		return nil, err
	}
	if (rows == nil) == (file == "") {
		return nil, fmt.Errorf("%s: give rows or file, one of them", b.Name())
	}
	// The records, each JSON object's text, before anything is written:
	// a bad row or file stops the write before the stream gets any.
	var records func(yield func([]byte) error) error
	if rows != nil {
		data := make([][]byte, 0, rows.Len())
		for i := range rows.Len() {
			if _, ok := rows.Index(i).(*starlark.Dict); !ok {
				return nil, fmt.Errorf("%s: rows[%d] is a %s, not a dict", b.Name(), i, rows.Index(i).Type())
			}
			d, err := stdlib.EncodeJSON(rows.Index(i), "", false)
			if err != nil {
				return nil, fmt.Errorf("%s: rows[%d]: %v", b.Name(), i, err)
			}
			data = append(data, d)
		}
		records = func(yield func([]byte) error) error {
			for _, d := range data {
				if err := yield(d); err != nil {
					return err
				}
			}
			return nil
		}
	} else {
		// A file is read twice: checked whole, then written; standard
		// input is kept in a temporary file for that.
		h := host.From(thread)
		label := string(file)
		var f *os.File
		var err error
		if file == "-" {
			label = "standard input"
			if f, err = spoolStdin(h.Stdin); err != nil {
				return nil, builtins.Fail(b.Name(), err)
			}
			defer os.Remove(f.Name())
		} else if f, err = os.Open(h.Path(string(file))); err != nil {
			return nil, builtins.Fail(b.Name(), builtins.TrimPathError(err))
		}
		defer f.Close()
		if err := fileRecords(f, label, func([]byte) error { return nil }); err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		records = func(yield func([]byte) error) error {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			return fileRecords(f, label, yield)
		}
	}
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		w, err := client.StreamNewWriter(ctx, c.JetStream(), name)
		if err != nil {
			return nil, err
		}
		err = records(func(d []byte) error { return w.Write(ctx, d) })
		if ferr := w.Flush(ctx); err == nil {
			err = ferr
		}
		if err != nil {
			return nil, fmt.Errorf("%v (%d records written before)", err, w.Written())
		}
		return map[string]any{"stream": name, "written": w.Written()}, nil
	})
}

// fileRecords reads records from r: JSON lines as they are (each checked
// to be one JSON object), anything else (a JSON array, CSV, Parquet)
// through frame, each row a JSON object.
func fileRecords(r io.Reader, label string, yield func([]byte) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(512)
	if first := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(first) > 0 && first[0] == '{' {
		line := 0
		for {
			text, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(text)) > 0 {
				line++
				rec := bytes.TrimSpace(text)
				if !json.Valid(rec) || rec[0] != '{' {
					return fmt.Errorf("%s: line %d is not a JSON object", label, line)
				}
				if err := yield(rec); err != nil {
					return err
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s: %v", label, err)
			}
		}
	}
	format := frame.CSV
	switch strings.ToLower(filepath.Ext(label)) {
	case ".json":
		format = frame.JSON
	case ".parquet":
		format = frame.Parquet
	default:
		if first := bytes.TrimLeft(head, " \t\r\n"); len(first) > 0 && first[0] == '[' {
			format = frame.JSON
		}
	}
	src, err := frame.OpenReader(br, format, frame.NoCompression)
	if err != nil {
		return fmt.Errorf("%s: %v", label, err)
	}
	defer src.Close()
	sink, err := frame.NewSink(&client.StreamLineSplitter{Yield: yield}, frame.JSONL, frame.NoCompression, src.Schema())
	if err != nil {
		return err
	}
	if _, err := frame.Copy(sink, src); err != nil {
		sink.Close()
		return fmt.Errorf("%s: %v", label, err)
	}
	return sink.Close()
}

// spoolStdin copies r into a temporary file, rewound (the caller removes it).
func spoolStdin(r io.Reader) (*os.File, error) {
	f, err := os.CreateTemp("", "fabric-stream-*")
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("reading standard input: %v", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// readWhen reads a from_ argument (None: the zero time).
func readWhen(b *starlark.Builtin, from starlark.Value) (time.Time, error) {
	switch v := from.(type) {
	case starlark.NoneType:
		return time.Time{}, nil
	case starlark.String:
		t, err := api.ParseWhen(string(v), time.Now())
		if err != nil {
			return time.Time{}, fmt.Errorf("%s: from: %v", b.Name(), err)
		}
		return t, nil
	case starlark.Int, starlark.Float:
		secs, _ := starlark.AsFloat(v)
		return time.Unix(0, int64(secs*1e9)).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%s: from_ must be a time (a string or epoch seconds), not %s", b.Name(), from.Type())
}

// recordValue is a message as a Starlark value: its JSON object, or
// {"message": text}.
func recordValue(data []byte) starlark.Value {
	if v, err := stdlib.DecodeJSON(data); err == nil {
		if d, ok := v.(*starlark.Dict); ok {
			return d
		}
	}
	d := starlark.NewDict(1)
	_ = d.SetKey(starlark.String("message"), starlark.String(data))
	return d
}

func (e env) streamRead(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var from starlark.Value = starlark.None
	var maxRows int
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "from_?", &from, "max_rows?", &maxRows); err != nil {
		return nil, err
	}
	t, err := readWhen(b, from)
	if err != nil {
		return nil, err
	}
	var out []starlark.Value
	_, err = e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		_, err := client.StreamRead(ctx, c.JetStream(), name, client.StreamReadOptions{From: t, MaxRows: maxRows}, func(m client.StreamMessage) error {
			out = append(out, recordValue(m.Data))
			return nil
		})
		return nil, err
	})
	if err != nil {
		return nil, err
	}
	return starlark.NewList(out), nil
}

func (e env) streamFollow(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var fn starlark.Callable
	var from, timeout starlark.Value = starlark.None, starlark.None
	var maxRows int
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "fn", &fn, "from_?", &from, "max_rows?", &maxRows, "timeout?", &timeout); err != nil {
		return nil, err
	}
	t, err := readWhen(b, from)
	if err != nil {
		return nil, err
	}
	if t.IsZero() {
		t = time.Now()
	}
	ctx, cancel, err := builtins.TimeoutContext(thread, b, timeout)
	if err != nil {
		return nil, err
	}
	defer cancel()
	c, err := e.Connect(b)
	if err != nil {
		return nil, err
	}
	n, err := client.StreamRead(ctx, c.JetStream(), name, client.StreamReadOptions{From: t, MaxRows: maxRows, Follow: true}, func(m client.StreamMessage) error {
		_, err := starlark.Call(thread, fn, starlark.Tuple{recordValue(m.Data)}, nil)
		return err
	})
	if err != nil {
		if _, isEval := err.(*starlark.EvalError); isEval {
			return nil, err
		}
		return nil, builtins.Fail(b.Name(), err)
	}
	return starlark.MakeInt(n), nil
}
