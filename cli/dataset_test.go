package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/internal/testutil"
)

const salesCSV = "region,units,price,ok,when\nnorth,3,2.5,true,2026-01-02T03:04:05Z\nsouth,7,1.25,false,2026-02-03T04:05:06Z\neast,1,10,true,2026-03-04T05:06:07Z\n"

var salesDTypes = map[string]string{"region": "object", "units": "int64", "price": "float64", "ok": "bool", "when": "datetime64[ns]"}

func datasetMeta(t *testing.T, name string) api.Dataset {
	t.Helper()
	out, errOut, code := run(t, "", "dataset", "meta", "--name", name)
	var d api.Dataset
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil {
		t.Fatalf("meta %s: %d %q\n%s", name, code, errOut, out)
	}
	return d
}

// TestDatasetRoundTrip adds the same table in every format and reads it
// back, comparing values and dtypes.
func TestDatasetRoundTrip(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	dir := t.TempDir()
	src := write(t, dir, "sales.csv", salesCSV)
	var want string
	for i, format := range []string{"csv", "csv.gz", "csv.bz2", "csv.xz", "csv.zst", "json", "jsonl", "parquet", "xlsx"} {
		t.Run(format, func(t *testing.T) { roundTrip(t, i, format, dir, src, &want) })
	}
	if !strings.Contains(want, `"region":"north"`) && !strings.Contains(want, `"region": "north"`) {
		t.Errorf("unexpected JSON output: %s", want)
	}
}

// roundTrip adds src converted to format as a dataset, stored both ways,
// and reads it back; want is the JSON every format must read back as (set
// by the first).
func roundTrip(t *testing.T, i int, format, dir, src string, want *string) {
	// Make the file in that format with the client itself (bz2 cannot
	// be written: it comes from the system's bzip2, and only this
	// format is skipped without it).
	file := filepath.Join(dir, "in."+format)
	if format == "csv.bz2" {
		if err := bzip2File(src, file); err != nil {
			t.Skip(err)
		}
	} else if _, errOut, code := run(t, "", "file-ops", "copy", "--from", src, "--to", file); code != 0 {
		t.Fatalf("%s: copy: %s", format, errOut)
	}
	for _, remote := range []string{"parquet", "csv"} {
		name := fmt.Sprintf("sales-%d-%s", i, remote)
		if _, errOut, code := run(t, "", "dataset", "add", "--name", name, "--file", file, "--remote_format", remote); code != 0 || !strings.Contains(errOut, "not found: adding it") {
			t.Fatalf("%s -> %s: add: %d %s", format, remote, code, errOut)
		}
		d := datasetMeta(t, name)
		if d.NumRows != 3 || d.NumColumns != 5 || d.Format != remote || d.Datafile == "" || d.MemSizeMB <= 0 {
			t.Errorf("%s -> %s: meta %+v", format, remote, d)
		}
		for col, dt := range salesDTypes {
			if format == "xlsx" && col == "when" {
				continue // Excel keeps times as text unless typed
			}
			if d.DTypes[col] != dt {
				t.Errorf("%s -> %s: dtype of %s is %s, want %s", format, remote, col, d.DTypes[col], dt)
			}
		}
		out, errOut, code := run(t, "", "dataset", "get", "--name", name, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: get: %s", format, errOut)
		}
		if *want == "" {
			*want = out
		} else if out != *want && format != "xlsx" {
			t.Errorf("%s -> %s: values differ:\n%s\nwant\n%s", format, remote, out, *want)
		}
	}
}

func bzip2File(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	cmd := execCommand("bzip2", "-c")
	cmd.Stdin = strings.NewReader(string(data))
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("no bzip2 to make a .bz2 file: %v", err)
	}
	return os.WriteFile(dst, out, 0o644)
}

func TestDatasetCommands(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	dir := t.TempDir()
	src := write(t, dir, "sales.csv", salesCSV)
	if _, errOut, code := run(t, "", "dataset-add", "--name", "sales", "--file", src); code != 0 {
		t.Fatal(errOut)
	}
	out, _, _ := run(t, "", "dataset", "list")
	if !strings.HasPrefix(out, "name   format   mem_size_mb  num_rows  num_columns  saved_time") || !strings.Contains(out, "sales  parquet") {
		t.Fatalf("list:\n%s", out)
	}
	// get to a file, in each format, and the deprecated --json.
	// A missing directory is an error, not created silently.
	pq := filepath.Join(dir, "out", "sales.parquet")
	if _, errOut, code := run(t, "", "dataset", "get", "--name", "sales", "--tofile", pq); code != 1 || errOut != "error: dataset get: write "+pq+": its directory "+filepath.Join(dir, "out")+" does not exist\n" {
		t.Fatalf("get --tofile into a missing directory: %d %q", code, errOut)
	}
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, "", "dataset", "get", "--name", "sales", "--tofile", pq); code != 0 || !strings.Contains(errOut, "wrote 3 rows") {
		t.Fatalf("get --tofile: %d %q", code, errOut)
	}
	out, errOut, code := run(t, "", "dataset", "get", "--name", "sales", "--json")
	if code != 0 || !strings.Contains(errOut, "warning: --json is deprecated, use --format json") || !strings.Contains(out, "north") {
		t.Fatalf("--json: %d %q %q", code, out, errOut)
	}
	out, _, _ = run(t, "", "dataset", "get", "--name", "sales")
	if !strings.Contains(out, "[3 rows x 5 columns]") {
		t.Fatalf("printed table:\n%s", out)
	}
	if _, errOut, code := run(t, "", "dataset", "get", "--name", "sales", "--format", "parquet"); code != 2 || !strings.Contains(errOut, "give --tofile") {
		t.Fatalf("parquet to stdout: %d %q", code, errOut)
	}
	// Replacing keeps one data file.
	if _, errOut, code := run(t, "", "dataset", "add", "--name", "sales", "--file", pq); code != 0 || !strings.Contains(errOut, "replaced dataset") {
		t.Fatalf("replace: %d %q", code, errOut)
	}
	c, _ := client.Connect(f.Configs["a"])
	defer c.Close()
	s, _ := c.Store(context.Background())
	blobs, _ := s.Blobs(context.Background())
	if len(blobs) != 1 || blobs[0] != datasetMeta(t, "sales").Datafile {
		t.Fatalf("blobs after replace: %v", blobs)
	}
	// delete asks; n keeps it; --yes deletes.
	if _, errOut, _ := run(t, "n\n", "dataset", "delete", "--name", "sales"); !strings.Contains(errOut, "not deleted") {
		t.Fatalf("delete n: %q", errOut)
	}
	if _, errOut, code := run(t, "", "dataset", "delete", "--name", "sales", "--yes"); code != 0 {
		t.Fatal(errOut)
	}
	if _, errOut, code := run(t, "", "dataset", "meta", "--name", "sales"); code != 1 || errOut != "error: dataset meta: no dataset named \"sales\"\n" {
		t.Fatalf("meta after delete: %d %q", code, errOut)
	}
}

func TestDatasetBadInput(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	dir := t.TempDir()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sales.csv" {
			w.Write([]byte(salesCSV))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	if _, errOut, code := run(t, "", "dataset", "add", "--name", "web", "--file", srv.URL+"/sales.csv"); code != 0 || datasetMeta(t, "web").NumRows != 3 {
		t.Fatalf("add from URL: %d %q", code, errOut)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"malformed CSV", []string{"--file", write(t, dir, "bad.csv", "a,b\n1,2\n3,4,5\n")}, 1, "line 3"},
		{"unknown format", []string{"--file", write(t, dir, "x.dat", "1")}, 1, `cannot tell the format of`},
		{"missing file", []string{"--file", filepath.Join(dir, "none.csv")}, 1, "none.csv: no such file or directory"},
		{"unreachable URL", []string{"--file", "http://127.0.0.1:1/x.csv"}, 1, "cannot fetch http://127.0.0.1:1/x.csv"},
		{"missing URL", []string{"--file", srv.URL + "/gone.csv"}, 1, "404 Not Found"},
		{"orc", []string{"--file", write(t, dir, "x.orc", "ORC")}, 1, "ORC is not supported"},
		{"bad local format", []string{"--file", "x", "--local_format", "xml"}, 2, `"xml" is not one of`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, "", append([]string{"dataset", "add", "--name", "bad"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, tt.code, tt.want)
			}
		})
	}
}

// TestInterruptedAddKeepsOldDataset fails an add midway (a malformed line
// far into a large file) and checks that the old dataset is intact and no
// chunks are left behind.
func TestInterruptedAddKeepsOldDataset(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	dir := t.TempDir()
	src := write(t, dir, "sales.csv", salesCSV)
	if _, errOut, code := run(t, "", "dataset", "add", "--name", "sales", "--file", src); code != 0 {
		t.Fatal(errOut)
	}
	before := datasetMeta(t, "sales")
	var b strings.Builder
	b.WriteString("region,units,price,ok,when\n")
	for i := 0; i < 200000; i++ {
		fmt.Fprintf(&b, "r%d,%d,%d.5,true,2026-01-02T03:04:05Z\n", i, i, i)
	}
	b.WriteString("broken,line\n")
	big := write(t, dir, "big.csv", b.String())
	if _, errOut, code := run(t, "", "dataset", "add", "--name", "sales", "--file", big); code != 1 || !strings.Contains(errOut, "line 200002") {
		t.Fatalf("interrupted add: %d %q", code, errOut)
	}
	after := datasetMeta(t, "sales")
	if after.Datafile != before.Datafile || after.NumRows != 3 {
		t.Fatalf("the old dataset changed: %+v", after)
	}
	if out, _, code := run(t, "", "dataset", "get", "--name", "sales", "--format", "csv"); code != 0 || !strings.Contains(out, "north") {
		t.Fatalf("old dataset unreadable: %d %q", code, out)
	}
	c, _ := client.Connect(f.Configs["a"])
	defer c.Close()
	s, _ := c.Store(context.Background())
	if blobs, _ := s.Blobs(context.Background()); len(blobs) != 1 {
		t.Fatalf("orphaned data after a failed add: %v", blobs)
	}
}

func TestBoundedDatasets(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	dir := t.TempDir()
	schema := write(t, dir, "hosts.json", `{"type": "object", "required": ["host", "cpu"],
	  "properties": {"host": {"type": "string"}, "cpu": {"type": "number", "minimum": 0, "maximum": 100}}}`)
	if _, errOut, code := run(t, "", "schema", "add", "--name", "hosts", "--file", schema); code != 0 {
		t.Fatal(errOut)
	}
	bad := write(t, dir, "bad-schema.json", `{"type": 12}`)
	if _, errOut, code := run(t, "", "schema", "add", "--name", "broken", "--file", bad); code != 1 || !strings.Contains(errOut, "is not a valid JSON Schema") {
		t.Fatalf("invalid schema: %d %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "dataset", "bounded-add", "--name", "inv", "--schema", "nope"); code != 1 || !strings.Contains(errOut, `no schema named "nope"`) {
		t.Fatalf("unknown schema: %d %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "dataset", "bounded-add", "--name", "inv", "--schema", "hosts"); code != 0 {
		t.Fatal(errOut)
	}
	good := write(t, dir, "good.csv", "host,cpu\nweb-1,12.5\nweb-2,99\n")
	violating := write(t, dir, "violating.csv", "host,cpu\nweb-1,12.5\nweb-2,150\n")
	if _, errOut, code := run(t, "", "dataset", "bounded-import", "--name", "inv", "--file", violating, "--yes"); code != 1 || !strings.Contains(errOut, "row 2 does not fit schema \"hosts\"") || !strings.Contains(errOut, "/cpu") {
		t.Fatalf("schema violation: %d %q", code, errOut)
	}
	// n: kept as a draft; --yes: published.
	if _, errOut, code := run(t, "n\n", "dataset", "bounded-import", "--name", "inv", "--file", good); code != 0 || !strings.Contains(errOut, "kept as draft") {
		t.Fatalf("draft import: %d %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "dataset", "bounded-import", "--name", "inv", "--file", good, "--yes"); code != 0 || !strings.Contains(errOut, "imported 2 rows") {
		t.Fatalf("publish: %d %q", code, errOut)
	}
	out, _, _ := run(t, "", "dataset", "bounded-list")
	if !strings.Contains(out, "inv   hosts   draft-") || !strings.Contains(out, "  2         2") {
		t.Fatalf("bounded-list:\n%s", out)
	}
	out, _, _ = run(t, "", "dataset", "bounded-get", "--name", "inv", "--format", "csv")
	if !strings.Contains(out, "web-2,99") {
		t.Fatalf("bounded-get:\n%s", out)
	}
	if _, errOut, code := run(t, "", "schema", "delete", "--name", "hosts"); code != 1 || !strings.Contains(errOut, "is used by bounded dataset \"inv\"") {
		t.Fatalf("schema in use: %d %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "dataset", "bounded-delete", "--name", "inv", "--yes"); code != 0 {
		t.Fatal(errOut)
	}
	if _, errOut, code := run(t, "", "schema", "delete", "--name", "hosts"); code != 0 {
		t.Fatal(errOut)
	}
}

func TestFileOps(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "sales.csv", salesCSV)
	pq := filepath.Join(dir, "sales.parquet")
	out, errOut, code := run(t, "", "file-ops", "csv-to-parquet", "--from", src, "--to", pq)
	if code != 0 || !strings.HasPrefix(out, "Wrote "+pq+": ") || !strings.Contains(out, " ms") {
		t.Fatalf("csv-to-parquet: %d %q %q", code, out, errOut)
	}
	checkParquet(t, pq)
	out, errOut, code = run(t, "", "file-ops", "test-formats", "--rows", "500", "--dir", dir)
	if code != 0 || strings.Count(out, "True") != 7 {
		t.Fatalf("test-formats: %d %q\n%s", code, errOut, out)
	}
}

func TestMergeLogarchiveFiles(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteGz(t, filepath.Join(dir, "a", "2026", "01", "x.gz"), `{"ts": 3, "m": "c"}`+"\n"+`{"ts": 1, "m": "a"}`+"\n")
	testutil.WriteGz(t, filepath.Join(dir, "a", "2026", "02", "y.gz"), `{"ts": 2, "m": "b"}`+"\n")
	to := filepath.Join(dir, "merged.jsonl")
	_, errOut, code := run(t, "", "merge-logarchive-files", "--folder", filepath.Join(dir, "a"), "--tofile", to, "--ts", "ts")
	if code != 0 || !strings.Contains(errOut, "merged 2 files: 3 of 3 lines") {
		t.Fatalf("merge: %d %q", code, errOut)
	}
	if data, _ := os.ReadFile(to); string(data) != `{"ts": 1, "m": "a"}`+"\n"+`{"ts": 2, "m": "b"}`+"\n"+`{"ts": 3, "m": "c"}`+"\n" {
		t.Fatalf("merged:\n%s", data)
	}
	for _, s := range []string{"0", "1.5", "-1"} {
		if _, errOut, code := run(t, "", "merge-logarchive-files", "--folder", dir, "--tofile", to, "--sample", s); code != 2 || !strings.Contains(errOut, "--sample must be > 0 and <= 1.0") {
			t.Errorf("--sample %s: %d %q", s, code, errOut)
		}
	}
	if _, errOut, code := run(t, "", "merge-logarchive-files", "--folder", filepath.Join(dir, "none"), "--tofile", to); code != 1 || !strings.Contains(errOut, "no such file or directory") {
		t.Fatalf("missing folder: %d %q", code, errOut)
	}
}

// checkParquet reads a Parquet file with the Arrow Parquet reader itself
// (not through fabric/frame) and compares it with salesCSV.
func checkParquet(t *testing.T, path string) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("parquet reader: %v", err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != 3 || tbl.NumCols() != 5 {
		t.Fatalf("parquet shape %dx%d, want 3x5", tbl.NumRows(), tbl.NumCols())
	}
	wantTypes := []arrow.Type{arrow.STRING, arrow.INT64, arrow.FLOAT64, arrow.BOOL, arrow.TIMESTAMP}
	for i, f := range tbl.Schema().Fields() {
		if want := strings.Split("region,units,price,ok,when", ",")[i]; f.Name != want || f.Type.ID() != wantTypes[i] {
			t.Errorf("column %d is %s %s, want %s %s", i, f.Name, f.Type, want, wantTypes[i])
		}
	}
	col := func(i int) arrow.Array { return tbl.Column(i).Data().Chunk(0) }
	if got := col(0).(*array.String).Value(1); got != "south" {
		t.Errorf("region[1] = %q", got)
	}
	if got := col(1).(*array.Int64).Value(1); got != 7 {
		t.Errorf("units[1] = %d", got)
	}
	if got := col(2).(*array.Float64).Value(2); got != 10 {
		t.Errorf("price[2] = %v", got)
	}
	if got := col(3).(*array.Boolean).Value(1); got {
		t.Errorf("ok[1] = %v", got)
	}
	ts := col(4).(*array.Timestamp)
	unit := ts.DataType().(*arrow.TimestampType).Unit
	if got := ts.Value(0).ToTime(unit).UTC().Format(time.RFC3339); got != "2026-01-02T03:04:05Z" {
		t.Errorf("when[0] = %s", got)
	}
}
