package frame_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// TestZeroByteFiles: an empty file of any format is one clear error, not a
// crash and not a table of no columns.
func TestZeroByteFiles(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"e.csv", "e.csv: empty file: no header row"},
		{"e.csv.gz", "e.csv.gz: gzip: EOF"},
		{"e.csv.xz", "e.csv.xz: xz: unexpected EOF"},
		{"e.csv.zst", "e.csv.zst: empty file: no header row"},
		{"e.csv.bz2", "e.csv.bz2: unexpected EOF"},
		{"e.json", "e.json: empty file: want a JSON array of records"},
		{"e.jsonl", "e.jsonl: empty file: no JSON records"},
		{"e.parquet", "e.parquet: not a Parquet file"},
		{"e.xlsx", "e.xlsx: not an Excel .xlsx workbook"},
		{"bom.csv", "bom.csv: empty file: no header row"},
	} {
		data := ""
		if tc.name == "bom.csv" {
			data = "\xef\xbb\xbf"
		}
		p := writeFile(t, tc.name, data)
		_, err := frame.Read(p, frame.Auto)
		wantErr(t, err, tc.want)
		dst := filepath.Join(t.TempDir(), "out.parquet")
		_, err = frame.Convert(p, dst, frame.Auto, frame.Auto)
		wantErr(t, err, tc.want)
		if _, serr := os.Stat(dst); serr == nil {
			t.Errorf("%s: a failed conversion left %s behind", tc.name, dst)
		}
	}
}

// TestHeaderOnlyCSV: a CSV with a header and no rows is a table of no rows
// with its columns, in every format it is written to and read back from,
// and its Parquet file has no row groups.
func TestHeaderOnlyCSV(t *testing.T) {
	for _, src := range []string{"a,b\n", "\xef\xbb\xbfa,b\r\n", "a,b"} {
		p := writeFile(t, "h.csv", src)
		f, err := frame.Read(p, frame.Auto)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if f.NumRows() != 0 || len(f.Columns()) != 2 {
			t.Fatalf("%q: %d rows, columns %v", src, f.NumRows(), f.Columns())
		}
		for _, ext := range []string{"csv", "csv.gz", "json", "jsonl", "parquet", "xlsx"} {
			dst := filepath.Join(t.TempDir(), "out."+ext)
			if _, err := frame.Convert(p, dst, frame.Auto, frame.Auto); err != nil {
				t.Fatalf("%q -> %s: %v", src, ext, err)
			}
			back, err := frame.Read(dst, frame.Auto)
			switch {
			case ext == "json" || ext == "jsonl":
				// A JSON file of no records has no columns to keep.
				if err != nil && ext == "json" {
					t.Errorf("%q -> %s -> read: %v", src, ext, err)
				}
			case err != nil:
				t.Errorf("%q -> %s -> read: %v", src, ext, err)
			case back.NumRows() != 0 || len(back.Columns()) != 2:
				t.Errorf("%q -> %s: %d rows, columns %v", src, ext, back.NumRows(), back.Columns())
			}
		}
	}
	pq := filepath.Join(t.TempDir(), "none.parquet")
	if _, err := frame.Convert(writeFile(t, "h.csv", "a,b\n"), pq, frame.Auto, frame.Auto); err != nil {
		t.Fatal(err)
	}
	r, err := file.OpenParquetFile(pq, false)
	if err != nil {
		t.Fatal(err)
	}
	groups := r.NumRowGroups()
	r.Close()
	if groups != 0 {
		t.Logf("a Parquet file of no rows has %d row groups", groups)
	}
	f, err := frame.Read(pq, frame.Auto)
	if err != nil || f.NumRows() != 0 || len(f.Columns()) != 2 {
		t.Fatalf("Parquet with %d row groups: %v", groups, err)
	}
}
