package frame

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xuri/excelize/v2"
)

// xlsxSource reads the first sheet of an Excel workbook: its first
// non-empty row names the columns, the rows below are the data (blank
// rows among them are rows of nulls; blank rows after the last data row
// are dropped, as pandas does). Types are
// inferred from the first batch as for CSV, except that text cells make
// string columns, boolean cells bool columns, and cells formatted as dates
// date or timestamp columns.
type xlsxSource struct {
	name     string
	f        *excelize.File
	rows     *excelize.Rows
	row      int // sheet row last read (1-based)
	cols     []textColumn
	xcols    []xlsxColumn
	schema   *arrow.Schema
	sample   int
	first    arrow.Record
	batch    int
	b        textBatch
	err      error
	date1904 bool // the workbook counts dates from 1904

	// Blank rows are held back until a data row follows them: blank
	// rows between data rows are rows of nulls, trailing ones are
	// dropped.
	blanks int      // blank rows still to hand out before held
	held   []string // the data row after them
	heldAt int      // its sheet row
}

// xlsxColumn is how the cells of a column are read.
type xlsxColumn struct {
	bool, date, dateOnly, text bool
}

func newXLSXSource(r io.Reader, name string, o options) (*xlsxSource, error) {
	f, err := excelize.OpenReader(r)
	if err != nil {
		if strings.Contains(err.Error(), "zip") {
			return nil, fmt.Errorf("%s: not an Excel .xlsx workbook (a legacy binary workbook is read when named .xls or given the format xls)", name)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	s := &xlsxSource{name: name, f: f, batch: o.batch}
	if err := s.open(); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

func (s *xlsxSource) open() error {
	sheets := s.f.GetSheetList()
	if len(sheets) == 0 {
		return fmt.Errorf("%s: the workbook has no sheet", s.name)
	}
	sheet := sheets[0]
	if props, err := s.f.GetWorkbookProps(); err == nil && props.Date1904 != nil {
		s.date1904 = *props.Date1904
	}
	rows, err := s.f.Rows(sheet)
	if err != nil {
		return fmt.Errorf("%s: %v", s.name, err)
	}
	s.rows = rows
	var header []string
	for len(header) == 0 {
		cells, err := s.next()
		if err == io.EOF {
			return fmt.Errorf("%s: sheet %q is empty: no header row", s.name, sheet)
		}
		if err != nil {
			return err
		}
		for len(cells) > 0 && strings.TrimSpace(cells[len(cells)-1]) == "" {
			cells = cells[:len(cells)-1]
		}
		header = cells
	}
	for i, h := range header {
		header[i] = strings.ToValidUTF8(h, "\uFFFD")
	}
	names := uniqueNames(header)
	n := len(names)
	// Read the first batch as raw text, keeping the sheet rows.
	var sample [][]string
	var at []int
	for len(sample) < s.batch {
		cells, row, err := s.dataRow()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		sample = append(sample, cells)
		at = append(at, row)
	}
	// Look at the first cell of each column for its type and format.
	s.xcols = make([]xlsxColumn, n)
	for c := range n {
		for i, cells := range sample {
			if c >= len(cells) || cells[c] == "" {
				continue
			}
			ref, _ := excelize.CoordinatesToCellName(c+1, at[i])
			s.xcols[c] = s.cellKind(sheet, ref)
			break
		}
	}
	s.b.ncols = n
	for i, cells := range sample {
		s.add(cells, at[i])
	}
	s.cols = inferText(names, &s.b)
	for c := range s.cols {
		if s.xcols[c].text {
			s.cols[c].kind = kString
		}
	}
	s.schema = textSchema(s.cols)
	s.sample = s.b.rows
	rec, err := s.convert()
	if err != nil {
		return err
	}
	s.first = rec
	return nil
}

// cellKind tells how to read a column from the type and number format of
// one of its cells.
func (s *xlsxSource) cellKind(sheet, ref string) xlsxColumn {
	var xc xlsxColumn
	switch t, _ := s.f.GetCellType(sheet, ref); t {
	case excelize.CellTypeBool:
		xc.bool = true
		return xc
	case excelize.CellTypeSharedString, excelize.CellTypeInlineString, excelize.CellTypeFormula:
		xc.text = true
		return xc
	}
	id, err := s.f.GetCellStyle(sheet, ref)
	if err != nil || id == 0 {
		return xc
	}
	st, err := s.f.GetStyle(id)
	if err != nil {
		return xc
	}
	code := ""
	if st.CustomNumFmt != nil {
		code = *st.CustomNumFmt
	}
	xc.date, xc.dateOnly = isDateFormat(st.NumFmt, code)
	return xc
}

// isDateFormat tells whether a number format shows a date (and whether it
// shows only a date).
func isDateFormat(id int, code string) (date, dateOnly bool) {
	switch {
	case id >= 14 && id <= 17, id == 27, id >= 30 && id <= 31, id >= 34 && id <= 36, id >= 50 && id <= 58:
		return true, true
	case id == 22 || id >= 18 && id <= 21 || id >= 45 && id <= 47:
		return true, false
	}
	if code == "" {
		return false, false
	}
	// Drop quoted text and bracketed parts ([Red], [$-409]).
	var b strings.Builder
	quoted, bracket := false, false
	for _, r := range strings.ToLower(code) {
		switch {
		case r == '"':
			quoted = !quoted
		case quoted:
		case r == '[':
			bracket = true
		case r == ']':
			bracket = false
		case !bracket:
			b.WriteRune(r)
		}
	}
	c := b.String()
	hasDate := strings.ContainsAny(c, "yd")
	hasTime := strings.ContainsAny(c, "hs")
	return hasDate || hasTime, hasDate && !hasTime
}

func blank(cells []string) bool {
	for _, c := range cells {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// dataRow returns the raw cells of the next data row and its sheet row.
// Blank rows between data rows are returned as rows without cells (nulls);
// blank rows after the last data row are dropped.
func (s *xlsxSource) dataRow() ([]string, int, error) {
	if s.blanks > 0 {
		s.blanks--
		return nil, s.heldAt - s.blanks - 1, nil
	}
	if s.held != nil {
		cells := s.held
		s.held = nil
		return cells, s.heldAt, nil
	}
	n := 0
	for {
		cells, err := s.next()
		if err != nil {
			return nil, 0, err
		}
		if blank(cells) {
			n++
			continue
		}
		if n == 0 {
			return cells, s.row, nil
		}
		s.held, s.heldAt, s.blanks = cells, s.row, n-1
		return nil, s.row - n, nil
	}
}

// next reads the next sheet row's raw cells.
func (s *xlsxSource) next() ([]string, error) {
	if !s.rows.Next() {
		if err := s.rows.Error(); err != nil {
			return nil, fmt.Errorf("%s: %v", s.name, err)
		}
		return nil, io.EOF
	}
	s.row++
	cells, err := s.rows.Columns(excelize.Options{RawCellValue: true})
	if err != nil {
		return nil, fmt.Errorf("%s: row %d: %v", s.name, s.row, err)
	}
	return cells, nil
}

// add appends a row's cells to the batch as text.
func (s *xlsxSource) add(cells []string, row int) {
	b := &s.b
	for c := 0; c < b.ncols; c++ {
		start := len(b.data)
		if c < len(cells) {
			v := cells[c]
			xc := s.xcols[c]
			switch {
			case v == "":
			case xc.bool && v == "1":
				v = "true"
			case xc.bool && v == "0":
				v = "false"
			case xc.date:
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					if t, ok := excelTime(f, s.date1904); ok {
						if xc.dateOnly && t.Equal(t.Truncate(24*time.Hour)) {
							v = t.Format(time.DateOnly)
						} else {
							v = t.Format(naiveLayout)
						}
					}
				}
			}
			b.data = append(b.data, v...)
		}
		b.pos = append(b.pos, int32(start), int32(len(b.data)))
	}
	b.lines = append(b.lines, int32(row))
	b.rows++
}

func (s *xlsxSource) convert() (arrow.Record, error) {
	rec, cerr := convertText(s.schema, s.cols, &s.b)
	if cerr != nil {
		return nil, describeConvError(s.name, s.cols, &s.b, cerr, s.sample, "row")
	}
	s.b.reset(len(s.cols))
	return rec, nil
}

func (s *xlsxSource) Schema() *arrow.Schema { return s.schema }

func (s *xlsxSource) Next() (arrow.Record, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.first != nil {
		rec := s.first
		s.first = nil
		return rec, nil
	}
	for s.b.rows < s.batch {
		cells, row, err := s.dataRow()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.err = err
			return nil, err
		}
		s.add(cells, row)
	}
	if s.b.rows == 0 {
		s.err = io.EOF
		return nil, io.EOF
	}
	rec, err := s.convert()
	if err != nil {
		s.err = err
	}
	return rec, err
}

func (s *xlsxSource) Close() error {
	if s.first != nil {
		s.first.Release()
		s.first = nil
	}
	if s.err == nil {
		s.err = errors.New("source is closed")
	}
	if s.rows != nil {
		s.rows.Close()
	}
	return s.f.Close()
}

// excelTime converts an Excel date serial number to a UTC time rounded to
// the millisecond (excelize's ExcelDateToTime rounds to the second and is
// a day early before 1900-03-01). ok is
// false for serials out of Excel's range (up to 9999-12-31).
func excelTime(serial float64, date1904 bool) (time.Time, bool) {
	if serial < 0 || serial >= 2958466 || math.IsNaN(serial) {
		return time.Time{}, false
	}
	// Serial 25569 is 1970-01-01 in the 1900 date system, 24107 in 1904.
	epoch := 25569.0
	if date1904 {
		epoch = 24107
	} else if serial < 61 {
		// Excel counts a 1900-02-29 that never was (serial 60): the
		// serials before it are one day later, 1 being 1900-01-01.
		epoch = 25568
	}
	ms := math.Round((serial - epoch) * 86400e3)
	return time.UnixMilli(int64(ms)).UTC(), true
}

// excelEpoch is the first day Excel can hold.
var excelEpoch = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)

// maxExcelRows is the number of rows of a sheet.
const maxExcelRows = 1 << 20

// xlsxSink writes batches to the first sheet of a new workbook, with a
// header row; the workbook is written out on Close. Dates and timestamps
// are cells formatted as dates, except those before 1900, which Excel
// cannot hold: they are written as ISO 8601 text.
type xlsxSink struct {
	w          io.Writer
	f          *excelize.File
	sw         *excelize.StreamWriter
	row        int
	dateStyle  int
	stampStyle int
	vals       []any
	closed     bool
}

func newXLSXSink(w io.Writer, schema *arrow.Schema) (*xlsxSink, error) {
	f := excelize.NewFile()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("xlsx: %v", err)
	}
	s := &xlsxSink{w: w, f: f, sw: sw, row: 1}
	dateFmt, stampFmt := "yyyy-mm-dd", "yyyy-mm-dd hh:mm:ss"
	if s.dateStyle, err = f.NewStyle(&excelize.Style{CustomNumFmt: &dateFmt}); err == nil {
		s.stampStyle, err = f.NewStyle(&excelize.Style{CustomNumFmt: &stampFmt})
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("xlsx: %v", err)
	}
	header := make([]any, schema.NumFields())
	for i, fd := range schema.Fields() {
		header[i] = fd.Name
	}
	if err := sw.SetRow("A1", header); err != nil {
		f.Close()
		return nil, fmt.Errorf("xlsx: %v", err)
	}
	return s, nil
}

func (s *xlsxSink) Write(rec arrow.Record) error {
	if s.closed {
		return errClosed
	}
	if s.row+int(rec.NumRows()) > maxExcelRows {
		return fmt.Errorf("xlsx: more than %d rows do not fit an Excel sheet", maxExcelRows-1)
	}
	cols := rec.Columns()
	for i := 0; i < int(rec.NumRows()); i++ {
		s.vals = s.vals[:0]
		for _, col := range cols {
			v := ValueAt(col, i)
			switch x := v.(type) {
			case time.Time:
				style, layout := s.stampStyle, naiveLayout
				if col.DataType().ID() == arrow.DATE32 || col.DataType().ID() == arrow.DATE64 {
					style, layout = s.dateStyle, time.DateOnly
				}
				if x.Before(excelEpoch) {
					// Excel has no dates before 1900 (excelize would
					// write 1899-12-31): write the ISO text.
					v = x.Format(layout)
				} else {
					v = excelize.Cell{StyleID: style, Value: x}
				}
			case float64:
				if math.IsNaN(x) || math.IsInf(x, 0) {
					v = nil
				}
			}
			s.vals = append(s.vals, v)
		}
		s.row++
		ref, _ := excelize.CoordinatesToCellName(1, s.row)
		if err := s.sw.SetRow(ref, s.vals); err != nil {
			return fmt.Errorf("xlsx: %v", err)
		}
	}
	return nil
}

func (s *xlsxSink) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	defer s.f.Close()
	if err := s.sw.Flush(); err != nil {
		return fmt.Errorf("xlsx: %v", err)
	}
	if err := s.f.Write(s.w); err != nil {
		return fmt.Errorf("xlsx: %v", err)
	}
	return nil
}
