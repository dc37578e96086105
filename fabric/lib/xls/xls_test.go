package xls

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The workbooks in testdata were written by SheetJS (testdata/*.js, with
// bookType "biff8"), as a program other than this one writes them.

func readSheet(t *testing.T, name string) *Sheet {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadFirstSheet(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func texts(r []Cell) []string {
	var out []string
	for _, c := range r {
		out = append(out, c.String())
	}
	return out
}

// TestTypedCells: text, numbers, booleans, dates with and without a time
// and an empty cell, from the first of two sheets.
func TestTypedCells(t *testing.T) {
	s := readSheet(t, "hosts.xls")
	if s.Name != "hosts" {
		t.Errorf("sheet %q, want the first, hosts", s.Name)
	}
	want := [][]string{
		{"host", "cpu", "up", "seen", "note"},
		{"r1", "91.5", "true", "2026-11-25T10:00:00", "edge"},
		{"r2", "12", "false", "2026-11-25T10:30:00"},
		{"sw 3", "-3.25", "true", "2026-11-26", `core, "east"`},
	}
	if len(s.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(s.Rows), len(want))
	}
	for i, w := range want {
		if got := texts(s.Rows[i]); strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("row %d = %q, want %q", i, got, w)
		}
	}
	kinds := []Kind{Text, Number, Bool, Date, Text}
	for c, k := range kinds {
		if got := s.Rows[1][c].Kind; got != k {
			t.Errorf("row 1 cell %d is kind %d, want %d", c, got, k)
		}
	}
	if !s.Rows[3][3].DateOnly || s.Rows[1][3].DateOnly {
		t.Errorf("date-only flags: %v %v", s.Rows[3][3].DateOnly, s.Rows[1][3].DateOnly)
	}
}

// TestManyRows: 600 rows of accented and plain strings (LABEL records),
// integers and fractions (RK, NUMBER).
func TestManyRows(t *testing.T) {
	s := readSheet(t, "many.xls")
	if len(s.Rows) != 602 {
		t.Fatalf("%d rows, want 602", len(s.Rows))
	}
	if got := texts(s.Rows[1]); strings.Join(got, "|") != "0|plain 0"+strings.Repeat("x", 40)+"|0" {
		t.Errorf("row 1 = %q", got)
	}
	if got := texts(s.Rows[600]); strings.Join(got, "|") != "599|héllo wörld ✓ 599xxx|74.875" {
		t.Errorf("row 600 = %q", got)
	}
	if got := s.Rows[601][1].Text; got != strings.Repeat("é", 200)+"end" {
		t.Errorf("row 601 = %q", got)
	}
}

// TestSharedStringsAcrossRecords: Excel writes the shared strings table
// in records of at most 8,224 bytes; a string whose characters run over
// into the next CONTINUE record goes on after a byte restating their
// width, which may change. Its rich-text runs and extended data are
// skipped, across records too.
func TestSharedStringsAcrossRecords(t *testing.T) {
	u16 := func(v int) []byte { return []byte{byte(v), byte(v >> 8)} }
	wide := func(s string) []byte {
		var b []byte
		for _, r := range s {
			b = append(b, u16(int(r))...)
		}
		return b
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	parts := [][]byte{
		cat([]byte{3, 0, 0, 0, 3, 0, 0, 0},
			u16(5), []byte{0}, []byte("ab"), // "abcdé": 2 narrow characters here...
		),
		cat([]byte{1}, wide("cdé"), // ...3 wide ones in the next record
			u16(2), []byte{0x08}, u16(1), []byte("xy"), []byte{1, 2}), // "xy", one rich run split...
		cat([]byte{3, 4}, // ...over the records
			u16(3), []byte{0x01}, wide("ñ✓z")),
	}
	got := readSST(parts)
	want := []string{"abcdé", "xy", "ñ✓z"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("strings %q, want %q", got, want)
	}
	// A count far above what the bytes hold allocates by the bytes.
	if got := readSST([][]byte{{0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F}}); len(got) != 0 {
		t.Errorf("%q from an empty table", got)
	}
}

// TestNotAWorkbook: other files are refused with an error saying what
// they are not.
func TestNotAWorkbook(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("a,b\n1,2\n"), []byte("PK\x03\x04 an xlsx")} {
		if _, err := ReadFirstSheet(bytes.NewReader(data), int64(len(data))); err == nil || !strings.Contains(err.Error(), "not a legacy Excel .xls workbook") {
			t.Errorf("%q: %v", data, err)
		}
	}
}

// FuzzReadFirstSheet: damaged workbooks (the fixtures with bytes
// changed) give an error or cells, never a panic or a hang.
func FuzzReadFirstSheet(f *testing.F) {
	for _, name := range []string{"hosts.xls"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadFirstSheet(bytes.NewReader(data), int64(len(data)))
		if err == nil && s == nil {
			t.Fatal("no sheet and no error")
		}
	})
}

// FuzzParse: the same for the workbook stream alone, past the compound
// file, where the BIFF records are read.
func FuzzParse(f *testing.F) {
	b, err := os.ReadFile("testdata/hosts.xls")
	if err != nil {
		f.Fatal(err)
	}
	stream, err := workbookStream(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(stream)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = parse(data)
	})
}
