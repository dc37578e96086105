package artifact

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// decodeJSON reads valid JSON into plain Go values as encoding/json does
// into an any (objects map[string]any, arrays []any, numbers float64), in
// one pass and without reflection: validation decodes every document it
// checks, and encoding/json spends most of its time on what a document
// that is valid already does not need. Anything it does not expect
// (invalid JSON, escapes it does not handle itself) it hands to
// encoding/json, so the result is always encoding/json's.
func decodeJSON(data []byte) (any, error) {
	p := jsonDecoder{data: data}
	v, err := p.value()
	if err == nil {
		p.space()
		if p.pos != len(data) {
			err = errSlow
		}
	}
	if err != nil {
		var slow any
		if err := json.Unmarshal(data, &slow); err != nil {
			return nil, err
		}
		return slow, nil
	}
	return v, nil
}

// errSlow sends a document to encoding/json.
var errSlow = errors.New("not on the fast path")

type jsonDecoder struct {
	data []byte
	pos  int
}

func (p *jsonDecoder) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonDecoder) value() (any, error) {
	p.space()
	if p.pos >= len(p.data) {
		return nil, errSlow
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		p.pos++
		m := map[string]any{}
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return m, nil
		}
		for {
			p.space()
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.pos >= len(p.data) || p.data[p.pos] != ':' {
				return nil, errSlow
			}
			p.pos++
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			m[k] = v
			p.space()
			if p.pos >= len(p.data) {
				return nil, errSlow
			}
			switch p.data[p.pos] {
			case ',':
				p.pos++
			case '}':
				p.pos++
				return m, nil
			default:
				return nil, errSlow
			}
		}
	case c == '[':
		p.pos++
		a := []any{}
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return a, nil
		}
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			p.space()
			if p.pos >= len(p.data) {
				return nil, errSlow
			}
			switch p.data[p.pos] {
			case ',':
				p.pos++
			case ']':
				p.pos++
				return a, nil
			default:
				return nil, errSlow
			}
		}
	case c == '"':
		return p.str()
	case c == 't':
		return p.word("true", true)
	case c == 'f':
		return p.word("false", false)
	case c == 'n':
		return p.word("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, errSlow
}

func (p *jsonDecoder) word(w string, v any) (any, error) {
	if len(p.data)-p.pos < len(w) || string(p.data[p.pos:p.pos+len(w)]) != w {
		return nil, errSlow
	}
	p.pos += len(w)
	return v, nil
}

// str reads a string with no escapes and only valid UTF-8 (others go the
// slow way).
func (p *jsonDecoder) str() (string, error) {
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return "", errSlow
	}
	start := p.pos + 1
	for i := start; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			s := p.data[start:i]
			if !utf8.Valid(s) {
				return "", errSlow
			}
			p.pos = i + 1
			return string(s), nil
		case c == '\\' || c < 0x20:
			return "", errSlow
		}
	}
	return "", errSlow
}

// number reads a number with JSON's grammar.
func (p *jsonDecoder) number() (any, error) {
	start := p.pos
	i := p.pos
	if p.data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(p.data) && p.data[i] >= '0' && p.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(p.data) && p.data[i] == '0' {
		i++
	} else if digits() == 0 {
		return nil, errSlow
	}
	if i < len(p.data) && p.data[i] == '.' {
		i++
		if digits() == 0 {
			return nil, errSlow
		}
	}
	if i < len(p.data) && (p.data[i] == 'e' || p.data[i] == 'E') {
		i++
		if i < len(p.data) && (p.data[i] == '+' || p.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, errSlow
		}
	}
	f, err := strconv.ParseFloat(string(p.data[start:i]), 64)
	if err != nil {
		return nil, fmt.Errorf("json: cannot unmarshal number %s into Go value of type float64", p.data[start:i])
	}
	p.pos = i
	return f, nil
}
