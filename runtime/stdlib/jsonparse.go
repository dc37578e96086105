package stdlib

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"go.starlark.net/starlark"
)

// jsonParser is a strict RFC 8259 parser that keeps object key order and
// reports errors with byte offsets.
type jsonParser struct {
	data []byte
	pos  int
}

type offsetError struct {
	off int64
	msg string
}

func (e *offsetError) Error() string { return fmt.Sprintf("at offset %d: %s", e.off, e.msg) }

func (p *jsonParser) fail(format string, args ...any) error {
	return &offsetError{int64(p.pos), fmt.Sprintf(format, args...)}
}

// unexpected reports the character at the current position.
func (p *jsonParser) unexpected(what string) error {
	if p.pos >= len(p.data) {
		return p.fail("unexpected end of JSON text")
	}
	r, _ := utf8.DecodeRune(p.data[p.pos:])
	return p.fail("invalid character %q %s", r, what)
}

func (p *jsonParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) literal(word string, v starlark.Value) (starlark.Value, error) {
	if !strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+len(word))]), word) {
		return nil, p.unexpected("looking for beginning of value")
	}
	p.pos += len(word)
	return v, nil
}

func (p *jsonParser) value(depth int) (starlark.Value, error) {
	if depth > 1000 {
		return nil, p.fail("JSON nested too deeply")
	}
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of JSON text")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return starlark.String(s), nil
	case c == 't':
		return p.literal("true", starlark.True)
	case c == 'f':
		return p.literal("false", starlark.False)
	case c == 'n':
		return p.literal("null", starlark.None)
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return nil, p.unexpected("looking for beginning of value")
}

func (p *jsonParser) object(depth int) (starlark.Value, error) {
	p.pos++ // '{'
	d := starlark.NewDict(0)
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return d, nil
	}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.unexpected("looking for beginning of object key string")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.unexpected("after object key")
		}
		p.pos++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := d.SetKey(starlark.String(k), v); err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of JSON text")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return d, nil
		default:
			return nil, p.unexpected("after object key:value pair")
		}
	}
}

func (p *jsonParser) array(depth int) (starlark.Value, error) {
	p.pos++ // '['
	var elems []starlark.Value
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return starlark.NewList(nil), nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		elems = append(elems, v)
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of JSON text")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return starlark.NewList(elems), nil
		default:
			return nil, p.unexpected("after array element")
		}
	}
}

// str parses a string starting at its opening quote. Invalid UTF-8 is
// replaced by U+FFFD.
func (p *jsonParser) str() (string, error) {
	p.pos++ // '"'
	// Most strings have no escapes and are ASCII: one copy.
	for i := p.pos; i < len(p.data); i++ {
		c := p.data[i]
		if c == '"' {
			str := string(p.data[p.pos:i])
			p.pos = i + 1
			return str, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	var b strings.Builder
	for {
		start := p.pos
		for p.pos < len(p.data) {
			c := p.data[p.pos]
			if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				break
			}
			p.pos++
		}
		b.Write(p.data[start:p.pos])
		if p.pos >= len(p.data) {
			return "", p.fail("unexpected end of JSON text in string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.fail("invalid control character %q in string", rune(c))
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.Write(p.data[p.pos : p.pos+size])
			}
			p.pos += size
		default: // backslash
			if p.pos+1 >= len(p.data) {
				p.pos++
				return "", p.fail("unexpected end of JSON text in string")
			}
			e := p.data[p.pos+1]
			if i := strings.IndexByte(`"\/bfnrt`, e); i >= 0 {
				b.WriteByte("\"\\/\b\f\n\r\t"[i])
				p.pos += 2
				continue
			}
			if e != 'u' {
				p.pos++
				return "", p.unexpected("in string escape code")
			}
			r, err := p.hex4(p.pos + 2)
			if err != nil {
				return "", err
			}
			p.pos += 6
			if utf16.IsSurrogate(r) {
				// A high surrogate must be followed by a \u low surrogate.
				r2 := rune(-1)
				if p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
					if x, err := p.hex4(p.pos + 2); err == nil {
						r2 = x
					}
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					p.pos += 6
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
		}
	}
}

func (p *jsonParser) hex4(at int) (rune, error) {
	if at+4 > len(p.data) {
		p.pos = len(p.data)
		return 0, p.fail("unexpected end of JSON text in \\u escape")
	}
	n, err := strconv.ParseUint(string(p.data[at:at+4]), 16, 32)
	if err != nil {
		p.pos = at
		return 0, p.fail("invalid \\u escape %q", p.data[at:at+4])
	}
	return rune(n), nil
}

// number parses a number per the JSON grammar: ints for integers, floats
// when there is a fraction or exponent.
func (p *jsonParser) number() (starlark.Value, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.unexpected("in numeric literal")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.unexpected("after decimal point in numeric literal")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.unexpected("in exponent of numeric literal")
		}
	}
	v, err := starvalue.NumberToStarlark(string(p.data[start:p.pos]))
	if err != nil {
		p.pos = start
		return nil, p.fail("%v", err)
	}
	return v, nil
}
