package frame

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"

	"github.com/fabricops/fabric/fabric/lib/xls"
)

// newXLSSource reads the first worksheet of a legacy binary Excel workbook
// (.xls). Its first non-empty row names the columns; the rows below are
// the data, cut to the header's width, blank rows after the last dropped.
// The cells are laid out as CSV text (numbers in their shortest form,
// dates as 2006-01-02 or 2006-01-02T15:04:05, booleans true or false)
// and read as CSV is, so that types are inferred as for CSV files.
func newXLSSource(r io.Reader, name string, o options) (Source, error) {
	var ra io.ReaderAt
	var size int64
	if f, ok := r.(*os.File); ok {
		st, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		ra, size = f, st.Size()
	} else {
		data, err := io.ReadAll(io.LimitReader(r, xls.MaxStream+1<<20))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		ra, size = bytes.NewReader(data), int64(len(data))
	}
	sheet, err := xls.ReadFirstSheet(ra, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	rows := sheet.Rows
	blank := func(r []xls.Cell) bool {
		for _, c := range r {
			if c.Kind != xls.Empty {
				return false
			}
		}
		return true
	}
	for len(rows) > 0 && blank(rows[0]) {
		rows = rows[1:]
	}
	for len(rows) > 0 && blank(rows[len(rows)-1]) {
		rows = rows[:len(rows)-1]
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: sheet %q is empty: no header row", name, sheet.Name)
	}
	header := rows[0]
	for len(header) > 0 && header[len(header)-1].Kind == xls.Empty {
		header = header[:len(header)-1]
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	record := make([]string, len(header))
	for _, r := range rows {
		for c := range record {
			record[c] = ""
			if c < len(r) {
				record[c] = r[c].String()
			}
		}
		if err := w.Write(record); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
	}
	w.Flush()
	src, err := newCSVSource(bytes.NewReader(buf.Bytes()), name, o)
	if err != nil {
		return nil, err
	}
	return src, nil
}
