package frame_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// hostsXLS is a legacy .xls workbook written by SheetJS (see
// fabric/lib/xls/testdata/hosts.js).
const hostsXLS = "../xls/testdata/hosts.xls"

// TestReadXLS: a legacy binary workbook reads beside .xlsx, told from its
// extension or named as xls: typed columns (text, float, bool, timestamp)
// and a null for an empty cell.
func TestReadXLS(t *testing.T) {
	want := "{\"host\":\"r1\",\"cpu\":91.5,\"up\":true,\"seen\":\"2026-11-25T10:00:00\",\"note\":\"edge\"}\n" +
		"{\"host\":\"r2\",\"cpu\":12.0,\"up\":false,\"seen\":\"2026-11-25T10:30:00\",\"note\":null}\n" +
		"{\"host\":\"sw 3\",\"cpu\":-3.25,\"up\":true,\"seen\":\"2026-11-26T00:00:00\",\"note\":\"core, \\\"east\\\"\"}\n"
	data, err := os.ReadFile(hostsXLS)
	if err != nil {
		t.Fatal(err)
	}
	renamed := filepath.Join(t.TempDir(), "HOSTS.XLS")
	if err := os.WriteFile(renamed, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{hostsXLS, renamed} {
		f, err := frame.Read(path, frame.Auto)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := f.WriteTo(&buf, frame.JSONL, frame.NoCompression); err != nil {
			t.Fatal(err)
		}
		if buf.String() != want {
			t.Errorf("%s:\n%s\nwant\n%s", path, buf.String(), want)
		}
		if got := frame.DTypes(f.Schema()); len(got) != 5 || got[1].DType != "float64" || got[2].DType != "bool" || got[3].DType != "datetime64[ns]" {
			t.Errorf("%s: dtypes %v", path, got)
		}
	}
	src, err := frame.OpenReader(bytes.NewReader(data), frame.XLS, frame.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	src.Close()
}

// TestXLSRefusals: what is not a legacy workbook says so; .xls is not
// written; an .xlsx file named .xls is told apart.
func TestXLSRefusals(t *testing.T) {
	dir := t.TempDir()
	csvAsXLS := filepath.Join(dir, "a.xls")
	if err := os.WriteFile(csvAsXLS, []byte("a,b\n1,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := frame.Read(csvAsXLS, frame.Auto); err == nil || !strings.Contains(err.Error(), "a.xls: not a legacy Excel .xls workbook") {
		t.Errorf("CSV named .xls: %v", err)
	}
	f, err := frame.Read(hostsXLS, frame.Auto)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Write(filepath.Join(dir, "out.xls"), frame.Auto); err == nil || !strings.Contains(err.Error(), "legacy .xls workbooks are read, not written") {
		t.Errorf("writing .xls: %v", err)
	}
	if _, err := frame.Convert(hostsXLS, filepath.Join(dir, "out.xls"), frame.Auto, frame.Auto); err == nil || !strings.Contains(err.Error(), "read, not written") {
		t.Errorf("converting to .xls: %v", err)
	}
	if _, err := frame.Convert(hostsXLS, filepath.Join(dir, "out.csv"), frame.Auto, frame.Auto); err != nil {
		t.Errorf("converting .xls to CSV: %v", err)
	}
}
