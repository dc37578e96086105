package frame

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// textBatch holds rows of text fields, as a CSV or Excel reader splits
// them: field c of row r is data[pos[2k]:pos[2k+1]] with k = r*ncols+c.
type textBatch struct {
	data  []byte
	pos   []int32
	lines []int32 // the line (or sheet row) each row starts on
	rows  int
	ncols int
}

func (b *textBatch) field(r, c int) []byte {
	k := 2 * (r*b.ncols + c)
	return b.data[b.pos[k]:b.pos[k+1]]
}

// reset empties b for reuse.
func (b *textBatch) reset(ncols int) {
	b.data = b.data[:0]
	b.pos = b.pos[:0]
	b.lines = b.lines[:0]
	b.rows = 0
	b.ncols = ncols
}

// textColumn is a column read from text and the type it converts to.
type textColumn struct {
	name string
	kind kind
	zone bool // timestamps carry a zone: the column is UTC
}

func (tc textColumn) arrowType() arrow.DataType {
	switch tc.kind {
	case kInt:
		return arrow.PrimitiveTypes.Int64
	case kFloat:
		return arrow.PrimitiveTypes.Float64
	case kBool:
		return arrow.FixedWidthTypes.Boolean
	case kDate:
		return arrow.FixedWidthTypes.Date32
	case kTimestamp:
		if tc.zone {
			return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
		}
		return &arrow.TimestampType{Unit: arrow.Nanosecond}
	}
	return arrow.BinaryTypes.String
}

// typeName names a kind in errors.
func (tc textColumn) typeName() string {
	switch tc.kind {
	case kDate:
		return "a date"
	case kTimestamp:
		return "a timestamp"
	case kBool:
		return "bool"
	}
	return tc.arrowType().String()
}

// textSchema returns the Arrow schema of text columns.
func textSchema(cols []textColumn) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: c.arrowType(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// inferText infers the columns of a batch of text.
func inferText(names []string, b *textBatch) []textColumn {
	cols := make([]textColumn, len(names))
	for c, name := range names {
		in := newInferrer()
		for r := 0; r < b.rows; r++ {
			in.add(b.field(r, c))
		}
		cols[c] = textColumn{name: name, kind: in.kind(), zone: in.zone}
	}
	return cols
}

// convError reports a value that does not fit its column's type.
type convError struct {
	row, col int
	value    string
}

// convertText builds a record of the batch's rows.
func convertText(schema *arrow.Schema, cols []textColumn, b *textBatch) (arrow.Record, *convError) {
	rec, row, col := buildRecord(schema, b.rows, func(c int) (arrow.Array, int) {
		return convertColumn(cols[c], b, c)
	})
	if rec == nil {
		return nil, &convError{row: row, col: col, value: string(b.field(row, col))}
	}
	return rec, nil
}

// buildRecord builds a record of n rows whose column c is made by
// column(c), which returns the array or the row of a value that does not
// fit. On such a value rec is nil, and row and col tell where it is.
func buildRecord(schema *arrow.Schema, n int, column func(c int) (arrow.Array, int)) (rec arrow.Record, row, col int) {
	arrs := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for c := range arrs {
		a, bad := column(c)
		if bad >= 0 {
			return nil, bad, c
		}
		arrs[c] = a
	}
	return array.NewRecord(schema, arrs, int64(n)), 0, 0
}

// bitmap is a validity bitmap made on the first null.
type bitmap struct {
	bits  []byte
	nulls int
}

func (m *bitmap) setNull(n, i int) {
	if m.bits == nil {
		m.bits = make([]byte, (n+7)/8)
		for j := range m.bits {
			m.bits[j] = 0xff
		}
	}
	m.bits[i>>3] &^= 1 << (i & 7)
	m.nulls++
}

func (m *bitmap) buffer() *memory.Buffer {
	if m.bits == nil {
		return nil
	}
	return memory.NewBufferBytes(m.bits)
}

func makeArray(dt arrow.DataType, n int, valid *bitmap, bufs ...[]byte) arrow.Array {
	buffers := make([]*memory.Buffer, 1, 1+len(bufs))
	buffers[0] = valid.buffer()
	for _, b := range bufs {
		buffers = append(buffers, memory.NewBufferBytes(b))
	}
	d := array.NewData(dt, n, buffers, nil, valid.nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// convertColumn converts column c of b. bad is the row of a value that does
// not fit, or -1.
func convertColumn(tc textColumn, b *textBatch, c int) (a arrow.Array, bad int) {
	dt := tc.arrowType()
	switch tc.kind {
	case kInt:
		return parseColumn(dt, b, c, parseInt, arrow.Int64Traits.CastToBytes)
	case kFloat:
		return parseColumn(dt, b, c, parseFloat, arrow.Float64Traits.CastToBytes)
	case kBool:
		return parseColumn(dt, b, c, parseBool, packBools)
	case kDate:
		return parseColumn(dt, b, c, parseDate, arrow.Int32Traits.CastToBytes)
	case kTimestamp:
		return parseColumn(dt, b, c, parseTimestamp, arrow.Int64Traits.CastToBytes)
	}
	n := b.rows
	var valid bitmap
	offsets := make([]int32, n+1)
	size := 0
	for r := 0; r < n; r++ {
		size += len(b.field(r, c))
	}
	data := make([]byte, 0, size)
	for r := 0; r < n; r++ {
		f := b.field(r, c)
		if len(f) == 0 {
			valid.setNull(n, r)
		}
		data = appendUTF8(data, f)
		offsets[r+1] = int32(len(data))
	}
	return makeArray(dt, n, &valid, arrow.Int32Traits.CastToBytes(offsets), data), -1
}

// parseColumn builds a fixed-width column of type dt from column c of b:
// blank fields are nulls, the others are read by parse and the values
// laid out by toBytes. bad is the row of a field parse rejects, or -1.
func parseColumn[T any](dt arrow.DataType, b *textBatch, c int, parse func([]byte) (T, bool), toBytes func([]T) []byte) (a arrow.Array, bad int) {
	n := b.rows
	var valid bitmap
	vals := make([]T, n)
	for r := 0; r < n; r++ {
		f := trimSpace(b.field(r, c))
		if len(f) == 0 {
			valid.setNull(n, r)
			continue
		}
		v, ok := parse(f)
		if !ok {
			return nil, r
		}
		vals[r] = v
	}
	return makeArray(dt, n, &valid, toBytes(vals)), -1
}

// parseDate reads a date column's field as days since the epoch.
func parseDate(f []byte) (int32, bool) {
	t, ok := parseISO(f)
	if !ok || !t.dateOnly || int64(int32(t.days)) != t.days {
		return 0, false
	}
	return int32(t.days), true
}

// parseTimestamp reads a timestamp column's field as nanoseconds since
// the epoch.
func parseTimestamp(f []byte) (int64, bool) {
	t, ok := parseISO(f)
	if !ok {
		return 0, false
	}
	return t.unixNanos()
}

// packBools lays bools out as an Arrow bitmap.
func packBools(vals []bool) []byte {
	bits := make([]byte, (len(vals)+7)/8)
	for i, v := range vals {
		if v {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return bits
}

// appendUTF8 appends text to d, replacing the bytes that are not valid
// UTF-8 (a Latin-1 file, say) with U+FFFD: Arrow strings must be UTF-8.
func appendUTF8(d, text []byte) []byte {
	if utf8.Valid(text) {
		return append(d, text...)
	}
	return append(d, bytes.ToValidUTF8(text, []byte("\uFFFD"))...)
}

// describeConvError renders a convError of a text source.
func describeConvError(name string, cols []textColumn, b *textBatch, e *convError, sample int, unit string) error {
	return fmt.Errorf("%s: %s %d, column %q: cannot read %q as %s (the type inferred from the first %d rows)",
		name, unit, b.lines[e.row], cols[e.col].name, shorten(e.value), cols[e.col].typeName(), sample)
}

// shorten cuts a value quoted in an error to 60 bytes.
func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
