package graphstore

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"sort"
	"strconv"
)

// Index entries encode attribute values so that their bytes sort as AQL
// sorts the values (null < false < true < numbers < strings < arrays <
// objects) and each value's end is known without a length: a type byte,
// then
//
//	number  8 bytes: the float64's bits, the sign bit flipped (negative
//	        numbers: every bit flipped)
//	string  its bytes, 0x00 written 0x00 0xff, ended by 0x00 0x01
//	array   its elements, ended by endArray (below every type byte)
//	object  its JSON text with sorted keys, as a string (equality only)
const (
	endArray  = 0x01
	tagNull   = 0x02
	tagFalse  = 0x03
	tagTrue   = 0x04
	tagNumber = 0x05
	tagString = 0x06
	tagArray  = 0x07
	tagObject = 0x08
)

// appendValue appends the encoding of an attribute value (as documents
// hold them: json.Number or float64 numbers, strings, bools, nil, []any,
// map[string]any).
func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, tagNull)
	case bool:
		if x {
			return append(b, tagTrue)
		}
		return append(b, tagFalse)
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return append(b, tagNull)
		}
		return appendNumber(b, f)
	case float64:
		return appendNumber(b, x)
	case int:
		return appendNumber(b, float64(x))
	case int64:
		return appendNumber(b, float64(x))
	case string:
		return appendText(append(b, tagString), x)
	case []any:
		b = append(b, tagArray)
		for _, e := range x {
			b = appendValue(b, e)
		}
		return append(b, endArray)
	case map[string]any:
		return appendText(append(b, tagObject), canonicalJSON(x))
	}
	return append(b, tagNull)
}

func appendNumber(b []byte, f float64) []byte {
	if f == 0 {
		f = 0 // -0 sorts and equals as 0
	}
	bits := math.Float64bits(f)
	if bits&(1<<63) != 0 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(append(b, tagNumber), bits)
}

func appendText(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			b = append(b, 0, 0xff)
			continue
		}
		b = append(b, s[i])
	}
	return append(b, 0, 0x01)
}

// canonicalJSON is an object's JSON text with its keys sorted at every
// depth.
func canonicalJSON(m map[string]any) string {
	var b []byte
	b = appendCanonical(b, m)
	return string(b)
}

func appendCanonical(b []byte, v any) []byte {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			kb, _ := json.Marshal(k)
			b = append(append(b, kb...), ':')
			b = appendCanonical(b, x[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, e)
		}
		return append(b, ']')
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	case float64:
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	vb, _ := json.Marshal(v)
	return append(b, vb...)
}

// skipValue returns the length of the encoded value at the start of b
// (-1 when b does not start with one).
func skipValue(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	switch b[0] {
	case tagNull, tagFalse, tagTrue:
		return 1
	case tagNumber:
		if len(b) < 9 {
			return -1
		}
		return 9
	case tagString, tagObject:
		for i := 1; i+1 < len(b); i++ {
			if b[i] == 0 {
				if b[i+1] == 0x01 {
					return i + 2
				}
				i++ // 0x00 0xff
			}
		}
		return -1
	case tagArray:
		n := 1
		for n < len(b) && b[n] != endArray {
			m := skipValue(b[n:])
			if m < 0 {
				return -1
			}
			n += m
		}
		if n >= len(b) {
			return -1
		}
		return n + 1
	}
	return -1
}
