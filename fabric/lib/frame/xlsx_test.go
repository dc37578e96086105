package frame_test

import (
	"path/filepath"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/xuri/excelize/v2"
)

// workbook saves a workbook built by fill into a temporary file.
func workbook(t *testing.T, date1904 bool, fill func(f *excelize.File, dateStyle, stampStyle int)) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if date1904 {
		yes := true
		if err := f.SetWorkbookProps(&excelize.WorkbookPropsOptions{Date1904: &yes}); err != nil {
			t.Fatal(err)
		}
	}
	dateStyle, err := f.NewStyle(&excelize.Style{NumFmt: 14})
	if err != nil {
		t.Fatal(err)
	}
	stamp := "yyyy-mm-dd hh:mm:ss.000"
	stampStyle, err := f.NewStyle(&excelize.Style{CustomNumFmt: &stamp})
	if err != nil {
		t.Fatal(err)
	}
	fill(f, dateStyle, stampStyle)
	p := filepath.Join(t.TempDir(), "book.xlsx")
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func set(t *testing.T, f *excelize.File, cell string, v any, style int) {
	t.Helper()
	if err := f.SetCellValue("Sheet1", cell, v); err != nil {
		t.Fatal(err)
	}
	if style != 0 {
		if err := f.SetCellStyle("Sheet1", cell, cell, style); err != nil {
			t.Fatal(err)
		}
	}
}

// TestXLSXRows: blank rows above the header are skipped, blank rows
// among the data are rows of nulls, blank rows after them are dropped.
func TestXLSXRows(t *testing.T) {
	p := workbook(t, false, func(f *excelize.File, _, _ int) {
		set(t, f, "B3", "n", 0)
		set(t, f, "C3", "s", 0)
		set(t, f, "B4", 1, 0)
		set(t, f, "C4", "007", 0)
		// Row 5 is missing, row 6 is there but empty.
		if err := f.SetRowHeight("Sheet1", 6, 30); err != nil {
			t.Fatal(err)
		}
		set(t, f, "B7", 2, 0)
		set(t, f, "C8", "x", 0)
		// Trailing rows that only have a format.
		if err := f.SetRowHeight("Sheet1", 12, 30); err != nil {
			t.Fatal(err)
		}
	})
	for _, batch := range []int{1, 2, 100} {
		s, err := frame.Open(p, frame.Auto, frame.WithBatchSize(batch))
		if err != nil {
			t.Fatal(err)
		}
		got, err := frame.ReadFrom(s)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		// Column A is empty: it is "Unnamed: 0", and text cells make a
		// string column even when they look like numbers.
		checkFrame(t, got, []string{"Unnamed: 0", "n", "s"}, []frame.DType{
			{Column: "Unnamed: 0", DType: "object"}, {Column: "n", DType: "int64"}, {Column: "s", DType: "object"},
		}, [][]any{
			{nil, int64(1), "007"},
			{nil, nil, nil},
			{nil, nil, nil},
			{nil, int64(2), nil},
			{nil, nil, "x"},
		})
	}
}

// TestXLSXDates reads date serials in both of Excel's date systems, with
// millisecond precision and Excel's 1900-02-29.
func TestXLSXDates(t *testing.T) {
	for _, tc := range []struct {
		name     string
		date1904 bool
		dates    []float64
		stamps   []float64
		want     [][]any
	}{
		{"1900", false,
			[]float64{1, 59, 61, 45293},
			[]float64{45293.5, 45293 + (12*3600+0.123)/86400, 25569, 60.25},
			[][]any{
				{ts("1900-01-01T00:00:00Z"), ts("2024-01-02T12:00:00Z")},
				{ts("1900-02-28T00:00:00Z"), ts("2024-01-02T12:00:00.123Z")},
				{ts("1900-03-01T00:00:00Z"), ts("1970-01-01T00:00:00Z")},
				{ts("2024-01-02T00:00:00Z"), ts("1900-03-01T06:00:00Z")},
			}},
		{"1904", true,
			[]float64{0, 1, 43831, 43831},
			[]float64{0.5, 24107, 43831.75, 43831},
			[][]any{
				{ts("1904-01-01T00:00:00Z"), ts("1904-01-01T12:00:00Z")},
				{ts("1904-01-02T00:00:00Z"), ts("1970-01-01T00:00:00Z")},
				{ts("2024-01-02T00:00:00Z"), ts("2024-01-02T18:00:00Z")},
				{ts("2024-01-02T00:00:00Z"), ts("2024-01-02T00:00:00Z")},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := workbook(t, tc.date1904, func(f *excelize.File, dateStyle, stampStyle int) {
				set(t, f, "A1", "d", 0)
				set(t, f, "B1", "t", 0)
				for i := range tc.dates {
					row := string(rune('2' + i))
					set(t, f, "A"+row, tc.dates[i], dateStyle)
					set(t, f, "B"+row, tc.stamps[i], stampStyle)
				}
			})
			got, err := frame.Read(p, frame.Auto)
			if err != nil {
				t.Fatal(err)
			}
			checkFrame(t, got, []string{"d", "t"}, []frame.DType{
				{Column: "d", DType: "datetime64[ns]"}, {Column: "t", DType: "datetime64[ns]"},
			}, tc.want)
			if typ := got.Schema().Field(0).Type.String(); typ != "date32" {
				t.Errorf("d is %s, want date32", typ)
			}
		})
	}
}

// TestXLSXOldTimes: Excel has no dates before 1900; such times are
// written as ISO text, which reads back as the same timestamps.
func TestXLSXOldTimes(t *testing.T) {
	want := [][]any{
		{ts("2024-01-02T03:04:05.678Z")},
		{ts("1850-06-01T12:00:00Z")},
		{ts("1899-12-31T23:59:59.999Z")},
		{ts("1900-01-01T00:00:00Z")},
		{nil},
		{ts("1900-02-28T23:00:00Z")},
		{ts("1900-03-01T01:00:00Z")},
	}
	src, err := frame.FromRows([]string{"t"}, want)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "old.xlsx")
	if err := src.Write(p, frame.Auto); err != nil {
		t.Fatal(err)
	}
	got, err := frame.Read(p, frame.Auto)
	if err != nil {
		t.Fatal(err)
	}
	checkFrame(t, got, []string{"t"}, []frame.DType{{Column: "t", DType: "datetime64[ns]"}}, want)
}

// TestXLSXLimits: an empty sheet has no header, a header alone makes a
// frame without rows, legacy .xls files are refused clearly.
func TestXLSXLimits(t *testing.T) {
	p := workbook(t, false, func(*excelize.File, int, int) {})
	_, err := frame.Read(p, frame.Auto)
	wantErr(t, err, `sheet "Sheet1" is empty: no header row`)

	p = workbook(t, false, func(f *excelize.File, _, _ int) { set(t, f, "A1", "only", 0) })
	got, err := frame.Read(p, frame.Auto)
	if err != nil {
		t.Fatal(err)
	}
	checkFrame(t, got, []string{"only"}, []frame.DType{{Column: "only", DType: "object"}}, nil)

	_, err = frame.Read(writeFile(t, "old.xls", "\xd0\xcf\x11\xe0 legacy"), frame.Auto)
	wantErr(t, err, "old.xls: not a legacy Excel .xls workbook")
}

// TestXLSXPrecision: Excel keeps timestamps to the millisecond.
func TestXLSXPrecision(t *testing.T) {
	src, err := frame.FromRows([]string{"t"}, [][]any{
		{ts("2024-01-02T03:04:05.123456789Z")}, {ts("2024-01-02T03:04:05.9996Z")}, {ts("2200-12-31T23:59:59.001Z")},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "ns.xlsx")
	if err := src.Write(p, frame.Auto); err != nil {
		t.Fatal(err)
	}
	got, err := frame.Read(p, frame.Auto)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, got, [][]any{
		{ts("2024-01-02T03:04:05.123Z")}, {ts("2024-01-02T03:04:06Z")}, {ts("2200-12-31T23:59:59.001Z")},
	})
}
