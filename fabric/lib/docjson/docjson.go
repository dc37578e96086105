// Package docjson writes JSON documents (maps of strings, numbers, bools,
// nulls, lists and maps) as encoding/json does, byte for byte, without its
// reflection: what bulk loads and the graph store write per document.
package docjson

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// ErrValue is the error of a value JSON cannot hold (NaN, infinities, a
// channel).
var ErrValue = errors.New("value not representable in JSON")

// Encode writes a document as JSON, keys sorted as encoding/json sorts
// them and with the same escaping, without reflection for the values
// documents hold (strings, numbers, bools, null, lists and objects of
// them, time.Time); anything else goes through encoding/json.
func Encode(d map[string]any) ([]byte, error) {
	return Append(make([]byte, 0, 64*len(d)), d)
}

// Append appends the JSON of v to b.
func Append(b []byte, v any) ([]byte, error) { return appendValue(b, v) }

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case json.Number:
		if x == "" {
			return append(b, '0'), nil
		}
		if !isNumber(string(x)) {
			return nil, ErrValue
		}
		return append(b, x...), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, ErrValue
		}
		return appendFloat(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		var err error
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			if b, err = appendValue(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, ErrValue
	}
	return append(b, data...), nil
}

// appendFloat appends a finite float64 in encoding/json's format: the
// shortest representation, with an exponent only below 1e-6 or from 1e21
// on, and no leading zero in a negative exponent.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// AppendString appends s as a JSON string, escaped as encoding/json
// escapes it.
func AppendString(b []byte, s string) []byte { return appendString(b, s) }

// AppendFloat appends f as encoding/json writes it (ErrValue for NaN and
// the infinities).
func AppendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, ErrValue
	}
	return appendFloat(b, f), nil
}

const hexDigits = "0123456789abcdef"

// plain holds the bytes a JSON string holds as they are: ASCII but the
// controls, '"', '\\' and the HTML-sensitive '<', '>' and '&'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString quotes s as encoding/json does (HTML-safe escapes,
// invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// isNumber reports whether s is a JSON number.
func isNumber(s string) bool {
	d := decoder{data: []byte(s)}
	if len(s) == 0 || s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return false
	}
	_, err := d.number()
	return err == nil && d.pos == len(s)
}
