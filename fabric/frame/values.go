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
	"github.com/apache/arrow-go/v18/arrow/array"
)

// This file builds columns from Go values: the records of a JSON file and
// the rows given to FromRows.

// jsonText is the text of a nested JSON object or array.
type jsonText string

// valueColumn is a column built from Go values and the type it has.
type valueColumn struct {
	name string
	kind kind
	zone bool
	json bool // kString holding JSON text
}

func (vc valueColumn) field() arrow.Field {
	f := arrow.Field{Name: vc.name, Type: textColumn{kind: vc.kind, zone: vc.zone}.arrowType(), Nullable: true}
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

// inferValues infers a column's type from its values. With isoStrings,
// strings that are all ISO 8601 dates or timestamps make a date or
// timestamp column.
func inferValues(name string, vals func(yield func(any) bool), isoStrings bool) valueColumn {
	seen := 0
	iso := newInferrer()
	iso.mask = mDate | mTime
	strs := 0
	for v := range vals {
		switch x := v.(type) {
		case nil:
		case bool:
			seen |= seenBool
		case int, int8, int16, int32, int64, uint8, uint16, uint32:
			seen |= seenInt
		case uint, uint64:
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
	vc := valueColumn{name: name, kind: kString}
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
	arrs := make([]arrow.Array, len(cols))
	release := func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}
	for c, vc := range cols {
		a, bad := buildValueColumn(vc, rows, c)
		if bad >= 0 {
			release()
			return nil, &valueError{row: bad, col: c, value: rows[bad][c]}
		}
		arrs[c] = a
	}
	rec := array.NewRecord(schema, arrs, int64(len(rows)))
	release()
	return rec, nil
}

func buildValueColumn(vc valueColumn, rows [][]any, c int) (arrow.Array, int) {
	n := len(rows)
	var valid bitmap
	dt := vc.field().Type
	switch vc.kind {
	case kInt, kTimestamp:
		vals := make([]int64, n)
		for r, row := range rows {
			var ok bool
			if row[c] == nil {
				valid.setNull(n, r)
				continue
			}
			if vc.kind == kInt {
				vals[r], ok = toInt(row[c])
			} else {
				vals[r], ok = toNanos(row[c])
			}
			if !ok {
				return nil, r
			}
		}
		return makeArray(dt, n, &valid, arrow.Int64Traits.CastToBytes(vals)), -1
	case kFloat:
		vals := make([]float64, n)
		for r, row := range rows {
			var ok bool
			if row[c] == nil {
				valid.setNull(n, r)
				continue
			}
			if vals[r], ok = toFloat(row[c]); !ok {
				return nil, r
			}
		}
		return makeArray(dt, n, &valid, arrow.Float64Traits.CastToBytes(vals)), -1
	case kBool:
		bits := make([]byte, (n+7)/8)
		for r, row := range rows {
			if row[c] == nil {
				valid.setNull(n, r)
				continue
			}
			v, ok := row[c].(bool)
			if !ok {
				return nil, r
			}
			if v {
				bits[r>>3] |= 1 << (r & 7)
			}
		}
		return makeArray(dt, n, &valid, bits), -1
	case kDate:
		vals := make([]int32, n)
		for r, row := range rows {
			if row[c] == nil {
				valid.setNull(n, r)
				continue
			}
			s, ok := row[c].(string)
			t, ok2 := parseISO(trimSpace([]byte(s)))
			if !ok || !ok2 || !t.dateOnly {
				return nil, r
			}
			vals[r] = int32(t.days)
		}
		return makeArray(dt, n, &valid, arrow.Int32Traits.CastToBytes(vals)), -1
	}
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
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
