package frame

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// This file builds columns from Go values: the records of a JSON file and
// the rows given to FromRows.

// jsonText is the text of a nested JSON object or array.
type jsonText string

// valueColumn is a column built from Go values and the type it has.
type valueColumn struct {
	textColumn
	json bool // kString holding JSON text
}

func (vc valueColumn) field() arrow.Field {
	f := arrow.Field{Name: vc.name, Type: vc.arrowType(), Nullable: true}
	if vc.json {
		f.Metadata = arrow.NewMetadata([]string{jsonMetaKey}, []string{"true"})
	}
	return f
}

func valueSchema(cols []valueColumn) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = c.field()
	}
	return arrow.NewSchema(fields, nil)
}

// value classes seen by inferValues.
const (
	seenInt = 1 << iota
	seenFloat
	seenBool
	seenString
	seenTime
	seenJSON
	seenOther
)

// inferValues infers the columns of rows of values (one per name in each
// row).
func inferValues(names []string, rows [][]any, isoStrings bool) []valueColumn {
	cols := make([]valueColumn, len(names))
	for c, name := range names {
		cols[c] = inferValueColumn(name, rows, c, isoStrings)
	}
	return cols
}

// inferValueColumn infers the type of column c of rows from its values.
// With isoStrings, strings that are all ISO 8601 dates or timestamps make
// a date or timestamp column.
func inferValueColumn(name string, rows [][]any, c int, isoStrings bool) valueColumn {
	seen := 0
	iso := newInferrer()
	iso.mask = mDate | mTime
	strs := 0
	for _, row := range rows {
		switch x := row[c].(type) {
		case nil:
		case bool:
			seen |= seenBool
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
			seen |= seenInt
		case float32, float64:
			seen |= seenFloat
		case json.Number:
			if isIntNumber(string(x)) {
				seen |= seenInt
			} else {
				seen |= seenFloat
			}
		case string:
			seen |= seenString
			strs++
			if isoStrings && iso.mask != 0 {
				iso.add([]byte(x))
			}
		case time.Time:
			seen |= seenTime
		case jsonText:
			seen |= seenJSON
		default:
			seen |= seenOther
		}
	}
	vc := valueColumn{textColumn: textColumn{name: name, kind: kString}}
	switch seen {
	case seenInt:
		vc.kind = kInt
	case seenFloat, seenInt | seenFloat:
		vc.kind = kFloat
	case seenBool:
		vc.kind = kBool
	case seenTime:
		vc.kind, vc.zone = kTimestamp, true
	case seenJSON:
		vc.json = true
	case seenString:
		if isoStrings && iso.values == strs && strs > 0 {
			switch k := iso.kind(); k {
			case kDate, kTimestamp:
				vc.kind, vc.zone = k, iso.zone
			}
		}
	}
	return vc
}

func isIntNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// valueError reports a value that does not fit its column.
type valueError struct {
	row, col int
	value    any
}

// buildValues builds a record from rows of values (row-major, one value
// per column; missing values are nil).
func buildValues(schema *arrow.Schema, cols []valueColumn, rows [][]any) (arrow.Record, *valueError) {
	rec, row, col := buildRecord(schema, len(rows), func(c int) (arrow.Array, int) {
		return buildValueColumn(cols[c], rows, c)
	})
	if rec == nil {
		return nil, &valueError{row: row, col: col, value: rows[row][col]}
	}
	return rec, nil
}

func buildValueColumn(vc valueColumn, rows [][]any, c int) (arrow.Array, int) {
	dt := vc.field().Type
	switch vc.kind {
	case kInt:
		return valueColumnOf(dt, rows, c, toInt, arrow.Int64Traits.CastToBytes)
	case kTimestamp:
		return valueColumnOf(dt, rows, c, toNanos, arrow.Int64Traits.CastToBytes)
	case kFloat:
		return valueColumnOf(dt, rows, c, toFloat, arrow.Float64Traits.CastToBytes)
	case kBool:
		return valueColumnOf(dt, rows, c, toBool, packBools)
	case kDate:
		return valueColumnOf(dt, rows, c, toDate, arrow.Int32Traits.CastToBytes)
	}
	n := len(rows)
	var valid bitmap
	offsets := make([]int32, n+1)
	var data []byte
	for r, row := range rows {
		if row[c] == nil {
			valid.setNull(n, r)
		} else {
			start := len(data)
			if vc.json {
				data = appendJSONValue(data, row[c])
			} else {
				data = appendText(data, row[c])
			}
			if !utf8.Valid(data[start:]) {
				data = appendUTF8(data[:start], bytes.Clone(data[start:]))
			}
		}
		offsets[r+1] = int32(len(data))
	}
	return makeArray(dt, n, &valid, arrow.Int32Traits.CastToBytes(offsets), data), -1
}

// valueColumnOf builds a fixed-width column of type dt from value c of
// each row: nil is null, the others are converted by conv and the values
// laid out by toBytes. bad is the row of a value conv rejects, or -1.
func valueColumnOf[T any](dt arrow.DataType, rows [][]any, c int, conv func(any) (T, bool), toBytes func([]T) []byte) (a arrow.Array, bad int) {
	n := len(rows)
	var valid bitmap
	vals := make([]T, n)
	for r, row := range rows {
		if row[c] == nil {
			valid.setNull(n, r)
			continue
		}
		v, ok := conv(row[c])
		if !ok {
			return nil, r
		}
		vals[r] = v
	}
	return makeArray(dt, n, &valid, toBytes(vals)), -1
}

func toBool(v any) (bool, bool) {
	b, ok := v.(bool)
	return b, ok
}

// toDate reads an ISO 8601 date string as days since the epoch.
func toDate(v any) (int32, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	t, ok := parseISO(trimSpace([]byte(s)))
	if !ok || !t.dateOnly {
		return 0, false
	}
	return int32(t.days), true
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		return int64(x), x <= math.MaxInt64
	case uint64:
		return int64(x), x <= math.MaxInt64
	case json.Number:
		i, err := strconv.ParseInt(string(x), 10, 64)
		return i, err == nil
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	}
	if i, ok := toInt(v); ok {
		return float64(i), true
	}
	return 0, false
}

func toNanos(v any) (int64, bool) {
	switch x := v.(type) {
	case time.Time:
		if x.Year() < 1678 || x.Year() > 2261 {
			return 0, false
		}
		return x.UnixNano(), true
	case string:
		t, ok := parseISO(trimSpace([]byte(x)))
		if !ok {
			return 0, false
		}
		return t.unixNanos()
	}
	return 0, false
}

// appendText appends the text of a value in a string column.
func appendText(d []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return append(d, x...)
	case jsonText:
		return append(d, x...)
	case json.Number:
		return append(d, x...)
	case bool:
		return strconv.AppendBool(d, x)
	case float64:
		return strconv.AppendFloat(d, x, 'g', -1, 64)
	case time.Time:
		return x.UTC().AppendFormat(d, time.RFC3339Nano)
	case []byte:
		return append(d, x...)
	}
	if i, ok := toInt(v); ok {
		return strconv.AppendInt(d, i, 10)
	}
	return fmt.Append(d, v)
}

// appendJSONValue appends a value of a JSON-text column as JSON.
func appendJSONValue(d []byte, v any) []byte {
	switch x := v.(type) {
	case jsonText:
		return append(d, x...)
	case json.Number:
		return append(d, x...)
	case string:
		return appendJSONString(d, []byte(x))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return appendJSONString(d, []byte(fmt.Sprint(v)))
	}
	return append(d, b...)
}

// describeValue renders a value in an error.
func describeValue(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = strconv.Quote(x)
	case jsonText:
		s = string(x)
	default:
		s = fmt.Sprint(v)
	}
	return shorten(s)
}
