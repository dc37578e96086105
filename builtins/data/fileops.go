package data

import (
	"fmt"
	"github.com/fabricops/fabric/builtins"
	"os"
	"path/filepath"
	"time"

	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/logarchive"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// fileOpsModule holds local file operations: conversions between table
// formats and log-archive merging. None needs the fabric.
func fileOpsModule() starlark.Value {
	return doc.Module("file_ops", "Local file operations: table format conversions and log-archive merging.", starlark.StringDict{
		"copy": doc.Builtin("file_ops.copy", `copy(src, dst, src_format="auto", dst_format="auto")

Copies a table from one file to another, converting between formats
(csv, json, jsonl, parquet, xlsx; legacy .xls is read, not written;
compressed CSV by extension), streamed
in record batches and written atomically. Returns {rows, columns,
dtypes, size, ms}.`, copyBuiltin),
		"csv_to_parquet": doc.Builtin("file_ops.csv_to_parquet", `csv_to_parquet(src, dst)

Converts a CSV file to Parquet, streamed in chunks; returns {rows,
columns, dtypes, size, ms} (size of the output in bytes, time in ms).`, csvToParquet),
		"test_formats": doc.Builtin("file_ops.test_formats", `test_formats(dir, rows=100000)

Writes a generated table of rows rows in each format into dir, reads it
back, and returns one row per format: format, rows, size, write_ms,
read_ms, ok (the read-back matched).`, testFormats),
		"merge_logarchive_files": doc.Builtin("file_ops.merge_logarchive_files", `merge_logarchive_files(folder, tofile, sample=1.0, ts=None)

Merges the log-archive files (gzipped JSON lines, *.gz) under folder
into tofile (gzipped when it ends in .gz). sample (> 0 and <= 1.0) keeps
that share of the lines, the same lines for the same input; ts sorts by
that field. Returns {files, lines_in, lines_out, bytes}.`, mergeLogs),
	})
}

// conversion is what a format conversion reports.
type conversion struct {
	Rows    int64             `json:"rows"`
	Columns int               `json:"columns"`
	DTypes  map[string]string `json:"dtypes"`
	Size    int64             `json:"size"`
	MS      int64             `json:"ms"`
}

func converted(stats frame.Stats, path string, start time.Time) (starlark.Value, error) {
	c := conversion{Rows: stats.Rows, Columns: stats.Columns, DTypes: map[string]string{}, MS: time.Since(start).Milliseconds()}
	for _, d := range stats.DTypes {
		c.DTypes[d.Column] = d.DType
	}
	if st, err := os.Stat(path); err == nil {
		c.Size = st.Size()
	}
	return starvalue.ToStarlark(c)
}

func copyBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var src, dst string
	sf, df := "auto", "auto"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "src", &src, "dst", &dst, "src_format?", &sf, "dst_format?", &df); err != nil {
		return nil, err
	}
	from, err := frame.ParseFormat(sf)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	to, err := frame.ParseFormat(df)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	start := time.Now()
	in, err := openSource(thread, src, from)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	defer in.Close()
	stats, err := exportSource(thread, in, dst, to)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	return converted(stats, host.From(thread).Path(dst), start)
}

func csvToParquet(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var src, dst string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "src", &src, "dst", &dst); err != nil {
		return nil, err
	}
	io := host.From(thread)
	start := time.Now()
	stats, err := frame.CSVToParquet(io.Path(src), io.Path(dst))
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	return converted(stats, io.Path(dst), start)
}

// formatTest is one row of test_formats.
type formatTest struct {
	Format  string `json:"format"`
	Rows    int    `json:"rows"`
	Size    int64  `json:"size"`
	WriteMS int64  `json:"write_ms"`
	ReadMS  int64  `json:"read_ms"`
	OK      bool   `json:"ok"`
}

func testFormats(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dir string
	rows := 100000
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &dir, "rows?", &rows); err != nil {
		return nil, err
	}
	if rows < 1 {
		return nil, fmt.Errorf("%s: rows must be 1 or more", b.Name())
	}
	dir = host.From(thread).Path(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	table, err := generated(rows)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	defer table.Release()
	var out []formatTest
	for _, name := range []string{"csv", "csv.gz", "csv.zst", "json", "jsonl", "parquet", "xlsx"} {
		if name == "xlsx" && rows > 100000 {
			continue // Excel is for small tables
		}
		path := filepath.Join(dir, "test."+name)
		t := formatTest{Format: name, Rows: rows}
		start := time.Now()
		if err := table.Write(path, frame.Format("auto")); err != nil {
			return nil, fmt.Errorf("%s: writing %s: %v", b.Name(), name, err)
		}
		t.WriteMS = time.Since(start).Milliseconds()
		if st, err := os.Stat(path); err == nil {
			t.Size = st.Size()
		}
		start = time.Now()
		back, err := frame.Read(path, frame.Format("auto"))
		if err != nil {
			return nil, fmt.Errorf("%s: reading %s: %v", b.Name(), name, err)
		}
		t.ReadMS = time.Since(start).Milliseconds()
		t.OK = back.NumRows() == rows && back.NumCols() == table.NumCols()
		back.Release()
		out = append(out, t)
	}
	return starvalue.ToStarlark(out)
}

// generated returns a table of n rows of typical columns.
func generated(n int) (*frame.Frame, error) {
	cols := []string{"id", "host", "cpu", "healthy", "seen"}
	rows := make([][]any, n)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		rows[i] = []any{int64(i), fmt.Sprintf("host-%d", i%100), float64(i%1000) / 10, i%7 != 0, base.Add(time.Duration(i) * time.Second)}
	}
	return frame.FromRows(cols, rows)
}

func mergeLogs(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var folder, tofile string
	sample := 1.0
	var ts optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "folder", &folder, "tofile", &tofile, "sample?", &sample, "ts?", &ts); err != nil {
		return nil, err
	}
	io := host.From(thread)
	st, err := logarchive.Merge(io.Path(folder), io.Path(tofile), logarchive.MergeOptions{Sample: sample, TSColumn: string(ts)})
	if err != nil {
		return nil, builtins.Fail(b.Name(), builtins.TrimPathError(err))
	}
	return starvalue.ToStarlark(st)
}
