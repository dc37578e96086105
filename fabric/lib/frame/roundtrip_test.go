package frame_test

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// writableFiles are the file names Write understands, one per format and
// compression it can write.
var writableFiles = []string{
	"t.csv", "t.csv.gz", "t.csv.xz", "t.csv.zst",
	"t.json", "t.jsonl", "t.json.gz", "t.jsonl.zst", "t.json.xz",
	"t.parquet", "t.xlsx",
}

func TestRoundTrip(t *testing.T) {
	src := sampleFrame(t)
	checkFrame(t, src, sampleColumns, sampleDTypes, sampleRows())
	for _, name := range writableFiles {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name)
			if err := src.Write(p, frame.Auto); err != nil {
				t.Fatal(err)
			}
			got, err := frame.Read(p, frame.Auto)
			if err != nil {
				t.Fatal(err)
			}
			// Excel keeps timestamps (as dates formatted with a time),
			// at millisecond precision, without their zone: they read
			// back as naive timestamps of the same wall time, which Row
			// gives in UTC. Every format keeps the pandas dtypes.
			checkFrame(t, got, sampleColumns, sampleDTypes, sampleRows())
			wantType := "timestamp[ns, tz=UTC]"
			if name == "t.xlsx" {
				wantType = "timestamp[ns]"
			}
			if typ := got.Schema().Field(4).Type.String(); typ != wantType {
				t.Errorf("when is %s, want %s", typ, wantType)
			}
		})
	}
}

// TestRoundTripMultiBatch writes a frame of several batches and reads it
// back in batches of 2, through every format.
func TestRoundTripMultiBatch(t *testing.T) {
	src := multiBatch(t, numbersCSV(11))
	want := rows(src)
	for _, name := range writableFiles {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name)
			if err := src.Write(p, frame.Auto); err != nil {
				t.Fatal(err)
			}
			s, err := frame.Open(p, frame.Auto, frame.WithBatchSize(2))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got, err := frame.ReadFrom(s)
			if err != nil {
				t.Fatal(err)
			}
			checkFrame(t, got, src.Columns(), src.DTypes(), want)
		})
	}
}

// TestRoundTripSingleColumnNulls: a null in a one-column CSV must not
// become a blank line (which readers skip); a row of nulls in Excel must
// not be dropped.
func TestRoundTripSingleColumnNulls(t *testing.T) {
	for _, vals := range [][]any{{int64(1), nil, int64(3)}, {"a", nil, "c"}, {nil, 1.5, nil}} {
		want := [][]any{{vals[0]}, {vals[1]}, {vals[2]}}
		src, err := frame.FromRows([]string{"only"}, want)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"t.csv", "t.json", "t.jsonl", "t.parquet", "t.xlsx"} {
			p := filepath.Join(t.TempDir(), name)
			if err := src.Write(p, frame.Auto); err != nil {
				t.Fatal(err)
			}
			got, err := frame.Read(p, frame.Auto)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			w := want
			if name == "t.xlsx" && vals[2] == nil {
				// Excel drops blank rows after the last data row, as
				// pandas does: a trailing row of nulls is lost.
				w = want[:2]
			}
			checkFrame(t, got, []string{"only"}, src.DTypes(), w)
		}
	}
}

// TestRoundTripDates: date columns (read from CSV) stay dates.
func TestRoundTripDates(t *testing.T) {
	src := multiBatch(t, "d,n\n2024-02-29,1\n,2\n1900-01-01,3\n9999-12-31,4\n1970-01-01,5\n")
	want := rows(src)
	dts := []frame.DType{{Column: "d", DType: "datetime64[ns]"}, {Column: "n", DType: "int64"}}
	checkFrame(t, src, []string{"d", "n"}, dts, want)
	if got := src.Schema().Field(0).Type.String(); got != "date32" {
		t.Fatalf("type = %s, want date32", got)
	}
	for _, name := range writableFiles {
		p := filepath.Join(t.TempDir(), name)
		if err := src.Write(p, frame.Auto); err != nil {
			t.Fatal(err)
		}
		got, err := frame.Read(p, frame.Auto)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkFrame(t, got, []string{"d", "n"}, dts, want)
		if typ := got.Schema().Field(0).Type.String(); typ != "date32" {
			t.Errorf("%s: type = %s, want date32", name, typ)
		}
	}
}

// TestRoundTripSpecialFloats: NaN and infinities survive CSV and
// Parquet; JSON cannot hold them and writes null.
func TestRoundTripSpecialFloats(t *testing.T) {
	in := [][]any{{math.NaN()}, {math.Inf(1)}, {math.Inf(-1)}, {1.0}}
	src, err := frame.FromRows([]string{"x"}, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want [][]any
	}{
		{"t.csv", in},
		{"t.parquet", in},
		{"t.json", [][]any{{nil}, {nil}, {nil}, {1.0}}},
		{"t.jsonl", [][]any{{nil}, {nil}, {nil}, {1.0}}},
	} {
		p := filepath.Join(t.TempDir(), tc.name)
		if err := src.Write(p, frame.Auto); err != nil {
			t.Fatal(err)
		}
		got, err := frame.Read(p, frame.Auto)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkFrame(t, got, []string{"x"}, []frame.DType{{Column: "x", DType: "float64"}}, tc.want)
	}
}

// TestReadBzip2 reads CSV and JSON compressed by the bzip2 tool: bzip2 is
// read-only.
func TestReadBzip2(t *testing.T) {
	bz, err := exec.LookPath("bzip2")
	if err != nil {
		t.Skip("no bzip2 tool")
	}
	src := sampleFrame(t)
	for _, name := range []string{"t.csv", "t.json", "t.jsonl"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name)
			if err := src.Write(p, frame.Auto); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bz, "-z", p).CombinedOutput(); err != nil {
				t.Fatalf("bzip2: %v\n%s", err, out)
			}
			got, err := frame.Read(p+".bz2", frame.Auto)
			if err != nil {
				t.Fatal(err)
			}
			checkFrame(t, got, sampleColumns, sampleDTypes, sampleRows())
		})
	}
	err = src.Write(filepath.Join(t.TempDir(), "t.csv.bz2"), frame.Auto)
	wantErr(t, err, "bzip2 is not supported")
}

// TestWriteToStreams checks WriteTo and OpenReader on every format and
// compression, in memory.
func TestWriteToStreams(t *testing.T) {
	src := sampleFrame(t)
	for _, tc := range []struct {
		f frame.Format
		c frame.Compression
	}{
		{frame.CSV, frame.NoCompression}, {frame.CSV, frame.Gzip}, {frame.CSV, frame.XZ}, {frame.CSV, frame.Zstd},
		{frame.JSON, frame.NoCompression}, {frame.JSON, frame.Zstd}, {frame.JSONL, frame.Gzip},
		{frame.Parquet, frame.NoCompression}, {frame.XLSX, frame.NoCompression},
	} {
		var buf bytes.Buffer
		if err := src.WriteTo(&buf, tc.f, tc.c); err != nil {
			t.Fatalf("%s/%s: %v", tc.f, tc.c, err)
		}
		// Hide bytes.Reader's ReaderAt: Parquet reads into memory.
		s, err := frame.OpenReader(struct{ *bytes.Buffer }{&buf}, tc.f, tc.c)
		if err != nil {
			t.Fatalf("%s/%s: %v", tc.f, tc.c, err)
		}
		got, err := frame.ReadFrom(s)
		s.Close()
		if err != nil {
			t.Fatalf("%s/%s: %v", tc.f, tc.c, err)
		}
		checkFrame(t, got, sampleColumns, sampleDTypes, sampleRows())
	}
	for _, tc := range []struct {
		f    frame.Format
		c    frame.Compression
		want string
	}{
		{frame.Parquet, frame.Gzip, "compression applies to csv, json and jsonl only"},
		{frame.XLSX, frame.Zstd, "compression applies to csv, json and jsonl only"},
		{frame.CSV, frame.Bzip2, "bzip2 is not supported"},
		{frame.CSV, "lzma", "unknown compression"},
		{frame.Auto, frame.NoCompression, "needs a format"},
		{frame.ORC, frame.NoCompression, "ORC is not supported"},
		{"dbf", frame.NoCompression, "unknown format"},
	} {
		err := src.WriteTo(&bytes.Buffer{}, tc.f, tc.c)
		wantErr(t, err, tc.want)
	}
}

// TestCSVOutput pins the CSV text: header, quoting, nulls, floats that
// stay floats, timestamps with a Z when they carry a zone.
func TestCSVOutput(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleFrame(t).WriteTo(&buf, frame.CSV, frame.NoCompression); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"id,price,ok,name,when",
		"1,1.5,true,plain,2024-01-02T03:04:05.123Z",
		`-2,-0.25,false,"comma, ""quote""",1999-12-31T23:59:59Z`,
		",,,,",
		"1099511627776,0.001,true,\"multi\nline\r\ntext\",1970-01-01T00:00:00Z",
		"0,12345.678,,naïve ☃ \\ \t tab,",
		",2.5,false,  spaced  ,1960-06-15T12:00:00.5Z",
		"",
	}, "\n")
	if got := buf.String(); got != want {
		t.Errorf("CSV =\n%q\nwant\n%q", got, want)
	}
}

// TestJSONOutput pins the JSON and JSON lines text.
func TestJSONOutput(t *testing.T) {
	f, err := frame.FromRows([]string{"a", "b"}, [][]any{{int64(1), "x\"y"}, {nil, nil}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f    frame.Format
		want string
	}{
		{frame.JSON, "[\n{\"a\":1,\"b\":\"x\\\"y\"},\n{\"a\":null,\"b\":null}\n]\n"},
		{frame.JSONL, "{\"a\":1,\"b\":\"x\\\"y\"}\n{\"a\":null,\"b\":null}\n"},
	} {
		var buf bytes.Buffer
		if err := f.WriteTo(&buf, tc.f, frame.NoCompression); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tc.want {
			t.Errorf("%s = %q, want %q", tc.f, buf.String(), tc.want)
		}
	}
	empty, err := frame.FromRows([]string{"a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := empty.WriteTo(&buf, frame.JSON, frame.NoCompression); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "[]\n" {
		t.Errorf("empty JSON = %q", buf.String())
	}
}

// TestWriteAtomicReplaces checks that Write replaces an existing file and
// leaves no temporary file.
func TestWriteAtomicReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sampleFrame(t).Write(p, frame.Auto); err != nil {
		t.Fatal(err)
	}
	if names := dirEntries(t, dir); len(names) != 1 || names[0] != "out.csv" {
		t.Errorf("directory holds %q", names)
	}
	got, err := frame.Read(p, frame.CSV)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, got, sampleRows())
	// A format given explicitly wins over the extension.
	q := filepath.Join(dir, "out.data")
	if err := sampleFrame(t).Write(q, frame.JSONL); err != nil {
		t.Fatal(err)
	}
	got, err = frame.Read(q, frame.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, got, sampleRows())
	wantErr(t, sampleFrame(t).Write(filepath.Join(dir, "x.orc"), frame.Auto), "ORC is not supported")
	wantErr(t, sampleFrame(t).Write(filepath.Join(dir, "x.txt"), frame.Auto), "cannot tell the format of")
	wantErr(t, sampleFrame(t).Write(filepath.Join(dir, "no", "such", "dir.csv"), frame.Auto), "its directory", "does not exist")
}
