// Package xls reads the cells of the first worksheet of a legacy binary
// Excel workbook (.xls, BIFF8: Excel 97-2003 and what writes its format).
// The compound file around the workbook stream is read by
// github.com/richardlehane/mscfb; the BIFF8 records are read here: shared
// strings, labels, numbers (RK, MULRK, NUMBER), booleans, formulas' cached
// values and the number formats that make a number a date. Older BIFF
// versions, encrypted workbooks and chart sheets are refused with an error
// saying so. Reading is bounded by the stream's size: no record makes it
// allocate more than the bytes it was given.
package xls

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/richardlehane/mscfb"
)

// MaxStream is the largest workbook stream read (BIFF8 sheets hold at most
// 65,536 rows of 256 columns; real workbooks stay far below this).
const MaxStream = 512 << 20

// Record types.
const (
	recBOF        = 0x0809
	recEOF        = 0x000A
	recFilePass   = 0x002F
	recDateMode   = 0x0022
	recFormat     = 0x041E
	recXF         = 0x00E0
	recBoundSheet = 0x0085
	recSST        = 0x00FC
	recContinue   = 0x003C
	recLabelSST   = 0x00FD
	recLabel      = 0x0204
	recRK         = 0x027E
	recMulRK      = 0x00BD
	recNumber     = 0x0203
	recBoolErr    = 0x0205
	recFormula    = 0x0006
	recString     = 0x0207
)

// Kind is the type of a cell's value.
type Kind uint8

// The kinds of cells.
const (
	Empty Kind = iota
	Text
	Number
	Bool
	Date  // a number formatted as a date or time
	Error // an error value (#N/A, #DIV/0!): its text
)

// Cell is one cell's value.
type Cell struct {
	Kind Kind
	// Text is the value of Text and Error cells.
	Text string
	// Num is the value of Number cells, and of Bool cells (1 or 0).
	Num float64
	// Time is the value of Date cells (UTC; a date's time is midnight).
	Time time.Time
	// DateOnly says a Date cell has no time of day.
	DateOnly bool
}

// String returns the cell as text: numbers in their shortest form, dates
// as 2006-01-02 or 2006-01-02T15:04:05.999, booleans true or false.
func (c Cell) String() string {
	switch c.Kind {
	case Text, Error:
		return c.Text
	case Number:
		return strconv.FormatFloat(c.Num, 'g', -1, 64)
	case Bool:
		return strconv.FormatBool(c.Num != 0)
	case Date:
		if c.DateOnly {
			return c.Time.Format(time.DateOnly)
		}
		return c.Time.Format("2006-01-02T15:04:05.999")
	}
	return ""
}

// Sheet is a worksheet's cells: Rows[r][c], rows and columns from 0, each
// row as long as its last non-empty cell.
type Sheet struct {
	Name string
	Rows [][]Cell
}

// ErrNotXLS says the input is not a compound file holding a workbook.
var ErrNotXLS = errors.New("not a legacy Excel .xls workbook")

// ReadFirstSheet reads the first worksheet of the workbook in r, a file of
// size bytes.
func ReadFirstSheet(r io.ReaderAt, size int64) (*Sheet, error) {
	stream, err := workbookStream(r, size)
	if err != nil {
		return nil, err
	}
	return parse(stream)
}

// workbookStream returns the bytes of the compound file's Workbook stream,
// which cannot be larger than the file (a damaged file may say it is, and
// chain its sectors in a loop).
func workbookStream(r io.ReaderAt, size int64) ([]byte, error) {
	doc, err := mscfb.New(r)
	if err != nil {
		return nil, ErrNotXLS
	}
	for {
		f, err := doc.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%w: the file has no Workbook stream", ErrNotXLS)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotXLS, err)
		}
		switch f.Name {
		case "Workbook":
		case "Book":
			return nil, errors.New("an Excel 5.0/95 workbook, which cannot be read: save it as Excel 97-2003 (.xls), .xlsx or CSV")
		default:
			continue
		}
		if f.Size > MaxStream {
			return nil, fmt.Errorf("the workbook stream is %d bytes, over the %d MB this reads", f.Size, MaxStream>>20)
		}
		if f.Size > size {
			return nil, fmt.Errorf("%w: its Workbook stream says it is larger than the file", ErrNotXLS)
		}
		b, err := io.ReadAll(io.LimitReader(f, f.Size))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotXLS, err)
		}
		return b, nil
	}
}

// record is one BIFF record.
type record struct {
	typ  uint16
	data []byte
	pos  int // offset of its header in the stream
}

// records splits a stream into records from offset at, up to an EOF
// record (included) or the end.
func records(stream []byte, at int) ([]record, error) {
	var out []record
	for at+4 <= len(stream) {
		typ := binary.LittleEndian.Uint16(stream[at:])
		n := int(binary.LittleEndian.Uint16(stream[at+2:]))
		if at+4+n > len(stream) {
			return nil, fmt.Errorf("%w: a record runs past the end of the stream", ErrNotXLS)
		}
		out = append(out, record{typ, stream[at+4 : at+4+n], at})
		at += 4 + n
		if typ == recEOF {
			break
		}
	}
	return out, nil
}

// book is what the globals say.
type book struct {
	date1904 bool
	formats  map[uint16]string // custom number formats by id
	xfs      []uint16          // each XF's number format id
	sst      []string
}

func parse(stream []byte) (*Sheet, error) {
	globals, err := records(stream, 0)
	if err != nil {
		return nil, err
	}
	if len(globals) == 0 || globals[0].typ != recBOF || len(globals[0].data) < 4 {
		return nil, fmt.Errorf("%w: the workbook stream does not begin with a BOF record", ErrNotXLS)
	}
	if v := binary.LittleEndian.Uint16(globals[0].data); v != 0x0600 {
		return nil, fmt.Errorf("a BIFF version %#x workbook, which cannot be read: save it as Excel 97-2003 (.xls), .xlsx or CSV", v)
	}
	b := &book{formats: map[uint16]string{}}
	first := -1
	var firstName string
	for i := 0; i < len(globals); i++ {
		rec := globals[i]
		d := rec.data
		switch rec.typ {
		case recFilePass:
			return nil, errors.New("the workbook is encrypted: save it without a password")
		case recDateMode:
			b.date1904 = len(d) >= 2 && binary.LittleEndian.Uint16(d) == 1
		case recFormat:
			if len(d) >= 2 {
				s, _, _ := unicodeString(d[2:])
				b.formats[binary.LittleEndian.Uint16(d)] = s
			}
		case recXF:
			if len(d) >= 4 {
				b.xfs = append(b.xfs, binary.LittleEndian.Uint16(d[2:]))
			}
		case recBoundSheet:
			// The first worksheet (type 0) is the one read.
			if len(d) >= 6 && first < 0 && d[5] == 0 {
				first = int(binary.LittleEndian.Uint32(d))
				firstName, _, _ = shortString(d[6:])
			}
		case recSST:
			parts := [][]byte{d}
			for i+1 < len(globals) && globals[i+1].typ == recContinue {
				i++
				parts = append(parts, globals[i].data)
			}
			b.sst = readSST(parts)
		}
	}
	if first < 0 {
		return nil, errors.New("the workbook has no worksheet")
	}
	if first >= len(stream) {
		return nil, fmt.Errorf("%w: sheet %q starts past the end of the stream", ErrNotXLS, firstName)
	}
	recs, err := records(stream, first)
	if err != nil {
		return nil, err
	}
	return b.sheet(firstName, recs)
}

// sheet reads the cells of a worksheet's records.
func (b *book) sheet(name string, recs []record) (*Sheet, error) {
	s := &Sheet{Name: name}
	set := func(row, col uint16, c Cell) {
		if c.Kind == Empty || col >= 256 {
			return
		}
		for int(row) >= len(s.Rows) {
			s.Rows = append(s.Rows, nil)
		}
		r := s.Rows[row]
		for int(col) >= len(r) {
			r = append(r, Cell{})
		}
		r[col] = c
		s.Rows[row] = r
	}
	for i, rec := range recs {
		d := rec.data
		if len(d) < 6 {
			continue
		}
		row, col, xf := binary.LittleEndian.Uint16(d), binary.LittleEndian.Uint16(d[2:]), binary.LittleEndian.Uint16(d[4:])
		switch rec.typ {
		case recLabelSST:
			if len(d) >= 10 {
				if k := binary.LittleEndian.Uint32(d[6:]); int(k) < len(b.sst) {
					set(row, col, Cell{Kind: Text, Text: b.sst[k]})
				}
			}
		case recLabel:
			t, _, _ := unicodeString(d[6:])
			set(row, col, Cell{Kind: Text, Text: t})
		case recRK:
			if len(d) >= 10 {
				set(row, col, b.number(xf, rk(binary.LittleEndian.Uint32(d[6:]))))
			}
		case recMulRK:
			// colFirst, then (xf, rk) pairs, then colLast.
			for at, c := 4, col; at+6 <= len(d)-2; at, c = at+6, c+1 {
				set(row, c, b.number(binary.LittleEndian.Uint16(d[at:]), rk(binary.LittleEndian.Uint32(d[at+2:]))))
			}
		case recNumber:
			if len(d) >= 14 {
				set(row, col, b.number(xf, math.Float64frombits(binary.LittleEndian.Uint64(d[6:]))))
			}
		case recBoolErr:
			if len(d) >= 8 {
				set(row, col, boolErr(d[6], d[7] != 0))
			}
		case recFormula:
			if len(d) >= 14 {
				set(row, col, b.formula(xf, d[6:14], recs[i+1:]))
			}
		}
	}
	return s, nil
}

// formula returns a formula's cached value: a number, or (when its last
// two bytes are 0xFFFF) a string (in the STRING record that follows), a
// boolean, an error or nothing.
func (b *book) formula(xf uint16, v []byte, rest []record) Cell {
	if v[6] != 0xFF || v[7] != 0xFF {
		return b.number(xf, math.Float64frombits(binary.LittleEndian.Uint64(v)))
	}
	switch v[0] {
	case 0:
		for _, r := range rest {
			if r.typ == recString {
				t, _, _ := unicodeString(r.data)
				return Cell{Kind: Text, Text: t}
			}
			if r.typ != 0x04BC && r.typ != 0x0221 { // SHRFMLA, ARRAY may come between
				break
			}
		}
	case 1:
		return boolErr(v[2], false)
	case 2:
		return boolErr(v[2], true)
	}
	return Cell{}
}

// boolErr is a BOOLERR value: a boolean, or an error code.
func boolErr(v byte, isErr bool) Cell {
	if !isErr {
		return Cell{Kind: Bool, Num: float64(min(v, 1))}
	}
	names := map[byte]string{0x00: "#NULL!", 0x07: "#DIV/0!", 0x0F: "#VALUE!", 0x17: "#REF!", 0x1D: "#NAME?", 0x24: "#NUM!", 0x2A: "#N/A"}
	if n, ok := names[v]; ok {
		return Cell{Kind: Error, Text: n}
	}
	return Cell{Kind: Error, Text: "#ERROR!"}
}

// rk decodes an RK number: a 30-bit integer or the high 30 bits of a
// float, divided by 100 when its low bit says so.
func rk(v uint32) float64 {
	var f float64
	if v&2 != 0 {
		f = float64(int32(v) >> 2)
	} else {
		f = math.Float64frombits(uint64(v&0xFFFFFFFC) << 32)
	}
	if v&1 != 0 {
		f /= 100
	}
	return f
}

// number is a number cell, a Date cell when its format is a date's.
func (b *book) number(xf uint16, f float64) Cell {
	if int(xf) < len(b.xfs) && isDateFormat(b.xfs[xf], b.formats) && !math.IsNaN(f) && f >= 0 && f < 2958466 {
		t, dateOnly := serialTime(f, b.date1904)
		return Cell{Kind: Date, Time: t, DateOnly: dateOnly}
	}
	return Cell{Kind: Number, Num: f}
}

// serialTime converts a serial date (days since the epoch of the 1900 or
// 1904 date system) to a time, rounded to the millisecond.
func serialTime(f float64, date1904 bool) (time.Time, bool) {
	epoch := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	if date1904 {
		epoch = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	} else if f < 60 {
		// Excel counts a 29 February 1900 that never was: serials before
		// it are one day later than the epoch says.
		epoch = epoch.AddDate(0, 0, 1)
	}
	days := math.Floor(f)
	ms := math.Round((f - days) * 86400000)
	t := epoch.AddDate(0, 0, int(days)).Add(time.Duration(ms) * time.Millisecond)
	return t, ms == 0
}
