package frame

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// jparser parses one JSON record (an object) whose values become column
// values: nil, bool, json.Number, string, or jsonText for nested objects
// and arrays. p is the offset reached, for error positions.
type jparser struct {
	b []byte
	p int
}

func (jp *jparser) ws() {
	for jp.p < len(jp.b) {
		switch jp.b[jp.p] {
		case ' ', '\t', '\n', '\r':
			jp.p++
		default:
			return
		}
	}
}

func (jp *jparser) unexpected() error {
	if jp.p >= len(jp.b) {
		return errors.New("unexpected end of JSON input")
	}
	return fmt.Errorf("invalid character %q", jp.b[jp.p])
}

// record parses an object and checks nothing follows it.
func (jp *jparser) record() ([]string, []any, error) {
	jp.ws()
	if jp.p >= len(jp.b) || jp.b[jp.p] != '{' {
		if jp.p < len(jp.b) {
			return nil, nil, errors.New("record is not a JSON object")
		}
		return nil, nil, jp.unexpected()
	}
	jp.p++
	var keys []string
	var vals []any
	jp.ws()
	if jp.p < len(jp.b) && jp.b[jp.p] == '}' {
		jp.p++
	} else {
		for {
			jp.ws()
			if jp.p >= len(jp.b) || jp.b[jp.p] != '"' {
				return nil, nil, jp.unexpected()
			}
			k, err := jp.str()
			if err != nil {
				return nil, nil, err
			}
			jp.ws()
			if jp.p >= len(jp.b) || jp.b[jp.p] != ':' {
				return nil, nil, jp.unexpected()
			}
			jp.p++
			jp.ws()
			v, err := jp.value()
			if err != nil {
				return nil, nil, err
			}
			keys = append(keys, k)
			vals = append(vals, v)
			jp.ws()
			if jp.p < len(jp.b) && jp.b[jp.p] == ',' {
				jp.p++
				continue
			}
			if jp.p < len(jp.b) && jp.b[jp.p] == '}' {
				jp.p++
				break
			}
			return nil, nil, jp.unexpected()
		}
	}
	jp.ws()
	if jp.p < len(jp.b) {
		return nil, nil, fmt.Errorf("invalid character %q after the record", jp.b[jp.p])
	}
	return keys, vals, nil
}

// str parses a string at jp.p.
func (jp *jparser) str() (string, error) {
	start := jp.p
	jp.p++
	escaped := false
	for jp.p < len(jp.b) {
		switch jp.b[jp.p] {
		case '\\':
			escaped = true
			jp.p += 2
			continue
		case '"':
			jp.p++
			if !escaped && utf8.Valid(jp.b[start+1:jp.p-1]) {
				return string(jp.b[start+1 : jp.p-1]), nil
			}
			// json.Unmarshal undoes escapes and replaces invalid UTF-8
			// with U+FFFD.
			var s string
			if err := json.Unmarshal(jp.b[start:jp.p], &s); err != nil {
				jp.p = start
				return "", errors.New("invalid string escape")
			}
			return s, nil
		}
		jp.p++
	}
	jp.p = start
	return "", errors.New("string is not closed")
}

func (jp *jparser) literal(word string, v any) (any, error) {
	if !bytes.HasPrefix(jp.b[jp.p:], []byte(word)) {
		return nil, jp.unexpected()
	}
	jp.p += len(word)
	return v, nil
}

// value parses a value at jp.p.
func (jp *jparser) value() (any, error) {
	if jp.p >= len(jp.b) {
		return nil, jp.unexpected()
	}
	switch c := jp.b[jp.p]; {
	case c == '"':
		return jp.str()
	case c == 't':
		return jp.literal("true", true)
	case c == 'f':
		return jp.literal("false", false)
	case c == 'n':
		return jp.literal("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		start := jp.p
		for jp.p < len(jp.b) && bytes.IndexByte([]byte("+-.eE0123456789"), jp.b[jp.p]) >= 0 {
			jp.p++
		}
		num := string(jp.b[start:jp.p])
		if !validNumber(num) {
			jp.p = start
			return nil, fmt.Errorf("invalid number %q", num)
		}
		return json.Number(num), nil
	case c == '{' || c == '[':
		start := jp.p
		if err := jp.skip(); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, jp.b[start:jp.p]); err != nil {
			jp.p = start
			return nil, err
		}
		return jsonText(buf.String()), nil
	}
	return nil, jp.unexpected()
}

// validNumber reports whether s is a JSON number.
func validNumber(s string) bool { return json.Valid([]byte(s)) }

// skip moves past a nested object or array, minding strings.
func (jp *jparser) skip() error {
	depth := 0
	for jp.p < len(jp.b) {
		switch jp.b[jp.p] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				jp.p++
				return nil
			}
		case '"':
			if _, err := jp.str(); err != nil {
				return err
			}
			continue
		}
		jp.p++
	}
	return errors.New("unexpected end of JSON input")
}
