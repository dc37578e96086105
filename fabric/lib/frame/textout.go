package frame

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// This file writes batches as CSV and JSON text.

// jsonMetaKey marks a string field whose values are JSON text (nested JSON
// objects and arrays read from JSON): JSON sinks write them as they are.
const jsonMetaKey = "fabric:json"

// cellKind tells how a formatted cell is written.
type cellKind uint8

const (
	cellText   cellKind = iota // quote when needed (CSV), a JSON string
	cellNumber                 // never quoted; written bare in JSON
	cellJSON                   // JSON text: bare in JSON, quoted as needed in CSV
)

// formatter appends the text of the (non-null) value i of a column. ok is
// false for a float that JSON cannot hold (NaN, Inf): JSON writes null.
type formatter struct {
	kind   cellKind
	format func(dst []byte, i int) (out []byte, ok bool)
}

func isJSONField(f arrow.Field) bool {
	v, ok := f.Metadata.GetValue(jsonMetaKey)
	return ok && v == "true"
}

const naiveLayout = "2006-01-02T15:04:05.999999999"

// newFormatter returns the formatter of a column.
func newFormatter(arr arrow.Array, field arrow.Field) formatter {
	num := func(f func(dst []byte, i int) []byte) formatter {
		return formatter{kind: cellNumber, format: func(dst []byte, i int) ([]byte, bool) { return f(dst, i), true }}
	}
	switch a := arr.(type) {
	case *array.Int64:
		return num(func(d []byte, i int) []byte { return strconv.AppendInt(d, a.Value(i), 10) })
	case *array.Int32:
		return num(func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) })
	case *array.Int16:
		return num(func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) })
	case *array.Int8:
		return num(func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) })
	case *array.Uint64:
		return num(func(d []byte, i int) []byte { return strconv.AppendUint(d, a.Value(i), 10) })
	case *array.Uint32:
		return num(func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) })
	case *array.Uint16:
		return num(func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) })
	case *array.Uint8:
		return num(func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) })
	case *array.Float64:
		return formatter{kind: cellNumber, format: func(d []byte, i int) ([]byte, bool) { return appendFloat(d, a.Value(i), 64) }}
	case *array.Float32:
		return formatter{kind: cellNumber, format: func(d []byte, i int) ([]byte, bool) { return appendFloat(d, float64(a.Value(i)), 32) }}
	case *array.Boolean:
		return num(func(d []byte, i int) []byte { return strconv.AppendBool(d, a.Value(i)) })
	case *array.String:
		kind := cellText
		if isJSONField(field) {
			kind = cellJSON
		}
		return formatter{kind: kind, format: func(d []byte, i int) ([]byte, bool) { return append(d, a.Value(i)...), true }}
	case *array.LargeString:
		return formatter{kind: cellText, format: func(d []byte, i int) ([]byte, bool) { return append(d, a.Value(i)...), true }}
	case *array.Binary:
		return formatter{kind: cellText, format: func(d []byte, i int) ([]byte, bool) { return append(d, a.Value(i)...), true }}
	case *array.Date32:
		return formatter{kind: cellText, format: func(d []byte, i int) ([]byte, bool) {
			return a.Value(i).ToTime().AppendFormat(d, time.DateOnly), true
		}}
	case *array.Date64:
		return formatter{kind: cellText, format: func(d []byte, i int) ([]byte, bool) {
			return a.Value(i).ToTime().AppendFormat(d, time.DateOnly), true
		}}
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		zone := tt.TimeZone != ""
		return formatter{kind: cellText, format: func(d []byte, i int) ([]byte, bool) {
			d = a.Value(i).ToTime(tt.Unit).AppendFormat(d, naiveLayout)
			if zone {
				d = append(d, 'Z')
			}
			return d, true
		}}
	case *array.Dictionary:
		inner := newFormatter(a.Dictionary(), arrow.Field{})
		return formatter{kind: inner.kind, format: func(d []byte, i int) ([]byte, bool) {
			return inner.format(d, a.GetValueIndex(i))
		}}
	}
	if _, ok := arr.DataType().(arrow.DecimalType); ok {
		// A JSON number with its scale's digits: 1.50 stays 1.50.
		return num(func(d []byte, i int) []byte {
			s, _ := decimalText(arr, i)
			return append(d, s...)
		})
	}
	return formatter{kind: cellJSON, format: func(d []byte, i int) ([]byte, bool) {
		b, err := json.Marshal(arr.GetOneForMarshal(i))
		if err != nil {
			return append(d, arr.ValueStr(i)...), true
		}
		return append(d, b...), true
	}}
}

// appendFloat writes a float so that it reads back as a float: 3 as "3.0".
// NaN and infinities are written as NaN, +Inf and -Inf (ok is false).
func appendFloat(d []byte, v float64, bits int) ([]byte, bool) {
	switch {
	case math.IsNaN(v):
		return append(d, "NaN"...), false
	case math.IsInf(v, 1):
		return append(d, "+Inf"...), false
	case math.IsInf(v, -1):
		return append(d, "-Inf"...), false
	}
	n := len(d)
	d = strconv.AppendFloat(d, v, 'g', -1, bits)
	if bytes.IndexAny(d[n:], ".e") < 0 {
		d = append(d, ".0"...)
	}
	return d, true
}

// textWriter is the part the CSV and JSON sinks share: it formats the
// rows of a batch into a buffer and writes the text out in blocks.
type textWriter struct {
	w      io.Writer
	schema *arrow.Schema
	buf    []byte
	closed bool
}

// flush writes the buffered text.
func (t *textWriter) flush() error {
	if len(t.buf) == 0 {
		return nil
	}
	_, err := t.w.Write(t.buf)
	t.buf = t.buf[:0]
	return err
}

// write appends the text of every row of rec to the buffer with row,
// writing it out each time it fills a block, and then the rest.
func (t *textWriter) write(rec arrow.Record, row func(cols []arrow.Array, fmts []formatter, i int)) error {
	if t.closed {
		return errClosed
	}
	cols := rec.Columns()
	fmts := make([]formatter, len(cols))
	for c, col := range cols {
		fmts[c] = newFormatter(col, t.schema.Field(c))
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		row(cols, fmts, i)
		if len(t.buf) >= 1<<16 {
			if err := t.flush(); err != nil {
				return err
			}
		}
	}
	return t.flush()
}

// close appends the trailer (the end of a JSON array) and writes out the
// buffer, once.
func (t *textWriter) close(trailer func()) error {
	if t.closed {
		return nil
	}
	t.closed = true
	if trailer != nil {
		trailer()
	}
	return t.flush()
}

// csvSink writes CSV with a header row.
type csvSink struct {
	textWriter
	cell []byte
}

func newCSVSink(w io.Writer, schema *arrow.Schema) *csvSink {
	s := &csvSink{textWriter: textWriter{w: w, schema: schema}}
	for i, f := range schema.Fields() {
		if i > 0 {
			s.buf = append(s.buf, ',')
		}
		s.buf = appendCSVField(s.buf, []byte(f.Name))
	}
	s.buf = append(s.buf, '\n')
	return s
}

// appendCSVField appends a field, quoted when it holds a comma, a quote, a
// newline or nothing.
func appendCSVField(d, v []byte) []byte {
	if len(v) > 0 && bytes.IndexAny(v, ",\"\n\r") < 0 {
		return append(d, v...)
	}
	d = append(d, '"')
	for {
		i := bytes.IndexByte(v, '"')
		if i < 0 {
			break
		}
		d = append(d, v[:i+1]...)
		d = append(d, '"')
		v = v[i+1:]
	}
	d = append(d, v...)
	return append(d, '"')
}

func (s *csvSink) Write(rec arrow.Record) error { return s.write(rec, s.row) }

// row appends row i as a CSV line.
func (s *csvSink) row(cols []arrow.Array, fmts []formatter, i int) {
	for c, col := range cols {
		if c > 0 {
			s.buf = append(s.buf, ',')
		}
		if col.IsNull(i) {
			if len(cols) == 1 {
				// A lone empty field would be a blank line, which
				// readers skip: quote it, as Python's csv module does.
				s.buf = append(s.buf, `""`...)
			}
			continue
		}
		f := fmts[c]
		if f.kind == cellNumber {
			s.buf, _ = f.format(s.buf, i)
			continue
		}
		s.cell, _ = f.format(s.cell[:0], i)
		s.buf = appendCSVField(s.buf, s.cell)
	}
	s.buf = append(s.buf, '\n')
}

func (s *csvSink) Close() error { return s.close(nil) }

// jsonSink writes a JSON array of records, or JSON lines.
type jsonSink struct {
	textWriter
	lines bool
	keys  [][]byte // `"name":`
	n     int64
	cell  []byte
}

func newJSONSink(w io.Writer, schema *arrow.Schema, lines bool) *jsonSink {
	s := &jsonSink{textWriter: textWriter{w: w, schema: schema}, lines: lines}
	for _, f := range schema.Fields() {
		k := appendJSONString(nil, []byte(f.Name))
		s.keys = append(s.keys, append(k, ':'))
	}
	if !lines {
		s.buf = append(s.buf, '[')
	}
	return s
}

// appendJSONString appends v as a JSON string.
func appendJSONString(d, v []byte) []byte {
	if !utf8.Valid(v) {
		b, _ := json.Marshal(string(v))
		return append(d, b...)
	}
	d = append(d, '"')
	start := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		d = append(d, v[start:i]...)
		switch c {
		case '"', '\\':
			d = append(d, '\\', c)
		case '\n':
			d = append(d, '\\', 'n')
		case '\r':
			d = append(d, '\\', 'r')
		case '\t':
			d = append(d, '\\', 't')
		default:
			d = append(d, `\u00`...)
			d = append(d, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		}
		start = i + 1
	}
	d = append(d, v[start:]...)
	return append(d, '"')
}

func (s *jsonSink) Write(rec arrow.Record) error { return s.write(rec, s.row) }

// row appends row i as a JSON object.
func (s *jsonSink) row(cols []arrow.Array, fmts []formatter, i int) {
	if !s.lines {
		if s.n > 0 {
			s.buf = append(s.buf, ',')
		}
		s.buf = append(s.buf, '\n')
	}
	s.n++
	s.buf = append(s.buf, '{')
	for c, col := range cols {
		if c > 0 {
			s.buf = append(s.buf, ',')
		}
		s.buf = append(s.buf, s.keys[c]...)
		if col.IsNull(i) {
			s.buf = append(s.buf, "null"...)
			continue
		}
		f := fmts[c]
		var ok bool
		switch f.kind {
		case cellNumber:
			n := len(s.buf)
			if s.buf, ok = f.format(s.buf, i); !ok {
				s.buf = append(s.buf[:n], "null"...)
			}
		case cellJSON:
			s.buf, _ = f.format(s.buf, i)
		default:
			s.cell, _ = f.format(s.cell[:0], i)
			s.buf = appendJSONString(s.buf, s.cell)
		}
	}
	s.buf = append(s.buf, '}')
	if s.lines {
		s.buf = append(s.buf, '\n')
	}
}

func (s *jsonSink) Close() error {
	return s.close(func() {
		if !s.lines {
			if s.n > 0 {
				s.buf = append(s.buf, '\n')
			}
			s.buf = append(s.buf, "]\n"...)
		}
	})
}
