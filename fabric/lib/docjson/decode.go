package docjson

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrSyntax is the error of text that is not one JSON value.
var ErrSyntax = errors.New("invalid JSON")

// Decode reads one JSON value, in one pass and without reflection, as
// encoding/json's Decoder with UseNumber reads it into an any: objects as map[string]any (the last of repeated
// keys wins), arrays as []any, numbers as json.Number, strings with
// invalid UTF-8 as U+FFFD. Blanks may surround the value; anything else
// after it is an error.
func Decode(data []byte) (any, error) { return (&decoder{data: data}).whole() }

// DecodeFloats is Decode with numbers as float64, as encoding/json reads
// them into an any (a number out of float64's range is an error).
func DecodeFloats(data []byte) (any, error) {
	return (&decoder{data: data, floats: true}).whole()
}

// whole reads the data as one value between blanks.
func (d *decoder) whole() (any, error) {
	d.blank()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.blank()
	if d.pos != len(d.data) {
		return nil, ErrSyntax
	}
	return v, nil
}

// DecodeObject is Decode for text that must be a JSON object.
func DecodeObject(data []byte) (map[string]any, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, ErrSyntax
	}
	return m, nil
}

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

type decoder struct {
	data   []byte
	pos    int
	floats bool // numbers as float64, not json.Number
}

func (d *decoder) blank() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if depth > maxDepth || d.pos >= len(d.data) {
		return nil, ErrSyntax
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, ErrSyntax
}

func (d *decoder) literal(s string) error {
	if len(d.data)-d.pos < len(s) || string(d.data[d.pos:d.pos+len(s)]) != s {
		return ErrSyntax
	}
	d.pos += len(s)
	return nil
}

func (d *decoder) object(depth int) (any, error) {
	d.pos++ // {
	m := map[string]any{}
	d.blank()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		d.blank()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, ErrSyntax
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.blank()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, ErrSyntax
		}
		d.pos++
		d.blank()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.blank()
		if d.pos >= len(d.data) {
			return nil, ErrSyntax
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return m, nil
		default:
			return nil, ErrSyntax
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	d.pos++ // [
	a := []any{}
	d.blank()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return a, nil
	}
	for {
		d.blank()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.blank()
		if d.pos >= len(d.data) {
			return nil, ErrSyntax
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return a, nil
		default:
			return nil, ErrSyntax
		}
	}
}

// number reads a number with JSON's grammar, kept as its text.
func (d *decoder) number() (any, error) {
	start := d.pos
	if err := d.scanNumber(); err != nil {
		return nil, err
	}
	if d.floats {
		f, err := strconv.ParseFloat(string(d.data[start:d.pos]), 64)
		if err != nil {
			return nil, ErrSyntax
		}
		return f, nil
	}
	return json.Number(d.data[start:d.pos]), nil
}

// scanNumber moves past a number with JSON's grammar.
func (d *decoder) scanNumber() error {
	if d.data[d.pos] == '-' {
		d.pos++
	}
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if digits() == 0 {
		return ErrSyntax
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return ErrSyntax
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return ErrSyntax
		}
	}
	return nil
}

// str reads a string; the common case (no escapes, valid ASCII or
// UTF-8) is one copy.
func (d *decoder) str() (string, error) {
	d.pos++ // "
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			s := string(d.data[start:d.pos])
			d.pos++
			return s, nil
		case c == '\\' || c < 0x20:
			return d.slowStr(start)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				return d.slowStr(start)
			}
			d.pos += size
		default:
			d.pos++
		}
	}
	return "", ErrSyntax
}

// slowStr reads a string with escapes or invalid UTF-8 from start.
func (d *decoder) slowStr(start int) (string, error) {
	b := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(b), nil
		case c < 0x20:
			return "", ErrSyntax
		case c == '\\':
			d.pos++
			if d.pos >= len(d.data) {
				return "", ErrSyntax
			}
			e := d.data[d.pos]
			d.pos++
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", ErrSyntax
				}
				if utf16.IsSurrogate(r) {
					// A pair makes one rune; a lone half is U+FFFD.
					save := d.pos
					if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
						d.pos += 2
						if r2, ok := d.hex4(); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								b = utf8.AppendRune(b, dec)
								continue
							}
						}
					}
					d.pos = save
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", ErrSyntax
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			d.pos += size
			b = utf8.AppendRune(b, r)
		default:
			b = append(b, c)
			d.pos++
		}
	}
	return "", ErrSyntax
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.data)-d.pos < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.data[d.pos:d.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	d.pos += 4
	return rune(n), true
}
