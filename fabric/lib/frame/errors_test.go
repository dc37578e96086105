package frame_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// drain reads every batch of a source opened on data, and returns the
// first error (from OpenReader or Next), or nil.
func drain(data string, f frame.Format, c frame.Compression, batch int) (rows int, err error) {
	s, err := frame.OpenReader(strings.NewReader(data), f, c, frame.WithBatchSize(batch))
	if err != nil {
		return 0, err
	}
	defer s.Close()
	for {
		rec, err := s.Next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		rows += int(rec.NumRows())
		rec.Release()
	}
}

// csvRows makes a CSV of a header and n rows "i,i".
func csvRows(n int) string {
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d,%d\n", i, i)
	}
	return b.String()
}

func TestCSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		data  string
		batch int
		want  []string
	}{
		{"too many fields", "a,b\n1,2\n1,2,3\n", 100, []string{"csv: line 3: wrong number of fields (3, want 2)"}},
		{"too few fields", "a,b\n1,2\n1\n", 100, []string{"line 3: wrong number of fields (1, want 2)"}},
		{"late bad row", csvRows(500) + "1,2,3\n", 7, []string{"line 502: wrong number of fields"}},
		{"late bad row in first batch", csvRows(5) + "1\n" + csvRows(50)[4:], 7, []string{"line 7: wrong number"}},
		{"late bad row, CRLF and blank lines", strings.ReplaceAll(csvRows(100), "\n", "\r\n\n") + "x\r\n", 3, []string{"line 203: wrong number"}},
		{"late bad row after quoted newlines", "a,b\n" + strings.Repeat("\"x\ny\",1\n", 40) + "1,2,3\n", 4, []string{"line 82: wrong number"}},
		{"late bad value", csvRows(300) + "x,1\n", 10, []string{
			`csv: line 302, column "a": cannot read "x" as int64 (the type inferred from the first 10 rows)`}},
		{"late bad date", "d\n2024-01-01\n2024-01-02\n2024-13-01\n", 2, []string{`line 4, column "d": cannot read "2024-13-01" as a date`}},
		{"late bad timestamp", "d\n2024-01-01T00:00\n2024-01-02T00:00\nnope\n", 2, []string{`line 4, column "d": cannot read "nope" as a timestamp`}},
		{"late bad bool", "d\ntrue\nfalse\nyes\n", 2, []string{`line 4, column "d": cannot read "yes" as bool`}},
		{"long value is cut", "d\n1\n2\n" + strings.Repeat("x", 100) + "\n", 2, []string{`cannot read "` + strings.Repeat("x", 57) + `..." as int64`}},
		{"unclosed quote", "a,b\n1,\"open\n2,3\n", 100, []string{"line 2: quoted field is not closed"}},
		{"late unclosed quote", csvRows(20) + "1,\"open\n", 3, []string{"line 22: quoted field is not closed"}},
		{"empty", "", 100, []string{"csv: empty file: no header row"}},
		{"only blank lines", "\n\r\n\n", 100, []string{"empty file: no header row"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := drain(tc.data, frame.CSV, frame.NoCompression, tc.batch)
			wantErr(t, err, tc.want...)
		})
	}
}

// TestCSVErrorKeepsEarlierBatches: batches before a bad row are handed
// out, then the error, again on every later Next.
func TestCSVErrorKeepsEarlierBatches(t *testing.T) {
	s, err := frame.OpenReader(strings.NewReader(csvRows(10)+"bad\n"+csvRows(10)[4:]), frame.CSV, frame.NoCompression, frame.WithBatchSize(3))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows := 0
	for {
		rec, err := s.Next()
		if err != nil {
			wantErr(t, err, "line 12: wrong number of fields")
			break
		}
		rows += int(rec.NumRows())
		rec.Release()
	}
	if rows != 9 {
		t.Errorf("read %d rows before the error, want 9", rows)
	}
	_, err = s.Next()
	wantErr(t, err, "line 12")
}

func TestJSONErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     frame.Format
		data  string
		batch int
		want  []string
	}{
		{"bad value", frame.JSON, "[{\"a\":1},\n{\"a\":}]", 100, []string{"json: line 2, column 6: invalid character '}'"}},
		{"missing comma", frame.JSON, "[{\"a\":1},\n {\"a\":1 \"b\":2}]", 100, []string{"line 2, column 9: invalid character '\"' after object key:value pair"}},
		{"truncated", frame.JSON, "[{\"a\":1},\n {\"a\":1}", 100, []string{"line 2, column 9: unexpected end of JSON input"}},
		{"truncated early", frame.JSON, "[", 100, []string{"unexpected end of JSON input"}},
		{"data after array", frame.JSON, "[{\"a\":1}]\n 5", 100, []string{"line 2, column 2: data after the end of the array"}},
		{"record not object", frame.JSON, "[{\"a\":1},\n 5]", 100, []string{"record 2 (line 2, column 2): record is not a JSON object"}},
		{"not an array", frame.JSON, "{\"a\":1}", 100, []string{"want a JSON array of records (or use the jsonl format"}},
		{"empty", frame.JSON, "  ", 100, []string{"json: empty file"}},
		{"late bad value", frame.JSON, "[" + strings.Repeat("{\"a\":1},\n", 300) + "{\"a\":x}]", 7, []string{"line 301, column 6: invalid character 'x'"}},
		{"jsonl bad literal", frame.JSONL, "{\"a\":1}\n{\"a\":tru}\n", 100, []string{"jsonl: line 2, column 6: invalid character 't'"}},
		{"jsonl trailing", frame.JSONL, "{\"a\":1}\n{\"a\":1}}\n", 100, []string{"line 2, column 8: invalid character '}' after the record"}},
		{"jsonl not object", frame.JSONL, "{\"a\":1}\n\n[1]\n", 100, []string{"line 3, column 1: record is not a JSON object"}},
		{"jsonl bad number", frame.JSONL, "{\"a\":1}\n{\"a\":1.2.3}\n", 100, []string{"line 2, column 6: invalid number \"1.2.3\""}},
		{"jsonl unclosed string", frame.JSONL, "{\"a\":\"x}\n", 100, []string{"line 1, column 6: string is not closed"}},
		{"jsonl bad escape", frame.JSONL, "{\"a\":\"\\q\"}\n", 100, []string{"line 1", "invalid string escape"}},
		{"jsonl truncated nested", frame.JSONL, "{\"a\":[1,{\"b\":2}\n", 100, []string{"line 1", "unexpected end of JSON input"}},
		{"new key after first batch", frame.JSONL, "{\"a\":1}\n{\"a\":2}\n{\"a\":3,\"b\":4}\n", 2, []string{`jsonl: line 3: key "b" is not in the first 2 records`}},
		{"new key after first batch (array)", frame.JSON, "[{\"a\":1},{\"a\":2},{\"a\":3},{\"b\":4}]", 2, []string{`json: record 4: key "b" is not in the first 2 records`}},
		{"late type change", frame.JSONL, "{\"a\":1}\n{\"a\":2}\n{\"a\":\"x\"}\n", 2, []string{`line 3, key "a": cannot read "x" as int64 (the type inferred from the first 2 records)`}},
		{"late type change (array)", frame.JSON, "[{\"a\":true},{\"a\":false},{\"a\":3}]", 2, []string{`record 3, key "a": cannot read 3 as bool`}},
		{"late float in int column", frame.JSONL, "{\"a\":1}\n{\"a\":2}\n{\"a\":2.5}\n", 2, []string{`line 3, key "a": cannot read 2.5 as int64`}},
		{"late bad date", frame.JSONL, "{\"d\":\"2024-01-01\"}\n{\"d\":\"2024-01-02\"}\n{\"d\":\"later\"}\n", 2, []string{`line 3, key "d": cannot read "later" as a date`}},
		{"number out of range", frame.JSONL, "{\"a\":1.5}\n{\"a\":1e400}\n", 100, []string{`line 2, key "a": cannot read 1e400 as float64`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := drain(tc.data, tc.f, frame.NoCompression, tc.batch)
			wantErr(t, err, tc.want...)
		})
	}
}

// TestLateKeyInFirstBatchIsAColumn: a key first seen late in the first
// batch is a column, null before.
func TestLateKeyInFirstBatchIsAColumn(t *testing.T) {
	rows, err := drain("{\"a\":1}\n{\"a\":2}\n{\"a\":3,\"b\":4}\n", frame.JSONL, frame.NoCompression, 3)
	if err != nil || rows != 3 {
		t.Fatalf("rows = %d, err = %v", rows, err)
	}
}

func TestJSONBOM(t *testing.T) {
	for _, f := range []frame.Format{frame.JSON, frame.JSONL} {
		data := "\xef\xbb\xbf{\"a\":1}\n"
		if f == frame.JSON {
			data = "\xef\xbb\xbf[{\"a\":1}]"
		}
		if rows, err := drain(data, f, frame.NoCompression, 10); err != nil || rows != 1 {
			t.Errorf("%s: rows = %d, err = %v", f, rows, err)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.csv")
	_, err := frame.Open(missing, frame.Auto)
	wantErr(t, err, missing)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v is not ErrNotExist", err)
	}
	_, err = frame.Read(missing, frame.Auto)
	wantErr(t, err, missing)

	_, err = frame.Open(filepath.Join(dir, "data.txt"), frame.Auto)
	wantErr(t, err, `cannot tell the format of "data.txt" from its extension`)
	_, err = frame.Open(filepath.Join(dir, "data"), frame.Auto)
	wantErr(t, err, "cannot tell the format of")

	orc := writeFile(t, "data.orc", "ORC")
	_, err = frame.Open(orc, frame.Auto)
	wantErr(t, err, orc, "ORC is not supported")
	_, err = frame.Open(filepath.Join(dir, "missing.orc"), frame.Auto)
	wantErr(t, err, "ORC is not supported")
	_, err = frame.Open(writeFile(t, "x.csv", "a\n1\n"), frame.ORC)
	wantErr(t, err, "ORC is not supported")
	_, err = frame.OpenReader(strings.NewReader(""), frame.ORC, frame.NoCompression)
	wantErr(t, err, "ORC is not supported")
	_, err = frame.Convert(writeFile(t, "x.csv", "a\n1\n"), filepath.Join(dir, "out.orc"), frame.Auto, frame.Auto)
	wantErr(t, err, "ORC is not supported")

	_, err = frame.Open(dir, frame.CSV)
	wantErr(t, err, dir, "is a directory")

	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"bad.parquet", "not parquet at all", []string{"bad.parquet: not a Parquet file"}},
		{"bad.xlsx", "not a zip", []string{"bad.xlsx: not an Excel .xlsx workbook"}},
		{"bad.csv.gz", "not gzip", []string{"bad.csv.gz: gzip:"}},
		{"bad.csv.xz", "not xz", []string{"bad.csv.xz: xz:"}},
		{"bad.json.zst", "not zstd", []string{"bad.json.zst"}},
		{"bad.csv.bz2", "not bzip2", []string{"bad.csv.bz2"}},
		{"empty.csv", "", []string{"empty.csv: empty file: no header row"}},
		{"bad.json", "[1,", []string{"bad.json: record 1 (line 1, column 2): record is not a JSON object"}},
	} {
		p := writeFile(t, tc.name, tc.data)
		_, err := frame.Read(p, frame.Auto)
		wantErr(t, err, tc.want...)
	}

	_, err = frame.OpenReader(strings.NewReader("a\n1\n"), frame.Auto, frame.NoCompression)
	wantErr(t, err, "OpenReader needs a format")
	_, err = frame.OpenReader(strings.NewReader("a\n1\n"), frame.Parquet, frame.Gzip)
	wantErr(t, err, "parquet: gzip compression applies to csv, json and jsonl only")
	_, err = frame.OpenReader(strings.NewReader("a\n1\n"), "sqlite", frame.NoCompression)
	wantErr(t, err, `unknown format "sqlite"`)
}

// TestTruncatedCompressedInput: a compressed file cut short is an error,
// not a silent short read.
func TestTruncatedCompressedInput(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(csvRows(2000)))
	zw.Close()
	cut := buf.Bytes()[:buf.Len()/2]
	_, err := drain(string(cut), frame.CSV, frame.Gzip, 100)
	wantErr(t, err, "unexpected EOF")
}

// TestClosedSource: Next after Close is an error, and Close twice is fine.
func TestClosedSource(t *testing.T) {
	for _, f := range []frame.Format{frame.CSV, frame.JSONL} {
		data := csvRows(10)
		if f == frame.JSONL {
			data = strings.Repeat("{\"a\":1}\n", 10)
		}
		s, err := frame.OpenReader(strings.NewReader(data), f, frame.NoCompression, frame.WithBatchSize(2))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		_, err = s.Next()
		wantErr(t, err, "source is closed")
	}
}
