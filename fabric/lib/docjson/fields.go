package docjson

import "bytes"

// Fields checks that data is one JSON object, as Decode would read it,
// and decodes only its top-level members named in names: values[i] is
// the value of names[i] (the last of repeated members) and present[i]
// whether it is there. The other members are checked, not built: what a
// bulk load reads of each document it stores as its text.
func Fields(data []byte, names []string) (values []any, present []bool, err error) {
	values, present = make([]any, len(names)), make([]bool, len(names))
	if err := FieldsInto(data, names, values, present); err != nil {
		return nil, nil, err
	}
	return values, present, nil
}

// FieldsInto is Fields into values and present, which have len(names)
// elements, all nil and false.
func FieldsInto(data []byte, names []string, values []any, present []bool) error {
	d := decoder{data: data}
	d.blank()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return ErrSyntax
	}
	d.pos++
	d.blank()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
	} else {
		for {
			d.blank()
			if d.pos >= len(d.data) || d.data[d.pos] != '"' {
				return ErrSyntax
			}
			want := d.member(names)
			if want == -2 {
				return ErrSyntax
			}
			d.blank()
			if d.pos >= len(d.data) || d.data[d.pos] != ':' {
				return ErrSyntax
			}
			d.pos++
			d.blank()
			if want >= 0 {
				v, err := d.value(1)
				if err != nil {
					return err
				}
				values[want], present[want] = v, true
			} else if err := d.skip(1); err != nil {
				return err
			}
			d.blank()
			if d.pos >= len(d.data) {
				return ErrSyntax
			}
			if d.data[d.pos] == ',' {
				d.pos++
				continue
			}
			if d.data[d.pos] != '}' {
				return ErrSyntax
			}
			d.pos++
			break
		}
	}
	d.blank()
	if d.pos != len(d.data) {
		return ErrSyntax
	}
	return nil
}

// member reads a member's name and returns its index in names, -1 when
// it is not one of them, -2 when the name is not a valid string.
func (d *decoder) member(names []string) int {
	start := d.pos + 1
	// The common case, a name without escapes, is compared in place.
	if end := bytes.IndexByte(d.data[start:], '"'); end >= 0 && bytes.IndexByte(d.data[start:start+end], '\\') < 0 {
		raw := d.data[start : start+end]
		for _, c := range raw {
			if c < 0x20 {
				return -2
			}
		}
		d.pos = start + end + 1
		for i, n := range names {
			if string(raw) == n {
				return i
			}
		}
		return -1
	}
	k, err := d.str()
	if err != nil {
		return -2
	}
	for i, n := range names {
		if k == n {
			return i
		}
	}
	return -1
}

// skip moves past one value, checking it as value would, building
// nothing.
func (d *decoder) skip(depth int) error {
	if depth > maxDepth || d.pos >= len(d.data) {
		return ErrSyntax
	}
	switch c := d.data[d.pos]; {
	case c == '{' || c == '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		d.pos++
		d.blank()
		if d.pos < len(d.data) && d.data[d.pos] == closing {
			d.pos++
			return nil
		}
		for {
			d.blank()
			if c == '{' {
				if d.pos >= len(d.data) || d.data[d.pos] != '"' || d.skipString() != nil {
					return ErrSyntax
				}
				d.blank()
				if d.pos >= len(d.data) || d.data[d.pos] != ':' {
					return ErrSyntax
				}
				d.pos++
				d.blank()
			}
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			d.blank()
			if d.pos >= len(d.data) {
				return ErrSyntax
			}
			if d.data[d.pos] == ',' {
				d.pos++
				continue
			}
			if d.data[d.pos] != closing {
				return ErrSyntax
			}
			d.pos++
			return nil
		}
	case c == '"':
		return d.skipString()
	case c == '-' || c >= '0' && c <= '9':
		return d.scanNumber()
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	}
	return ErrSyntax
}

// skipString moves past a string, checking its escapes.
func (d *decoder) skipString() error {
	d.pos++ // "
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return nil
		case c < 0x20:
			return ErrSyntax
		case c == '\\':
			d.pos++
			if d.pos >= len(d.data) {
				return ErrSyntax
			}
			switch d.data[d.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos++
			case 'u':
				d.pos++
				if _, ok := d.hex4(); !ok {
					return ErrSyntax
				}
			default:
				return ErrSyntax
			}
		default:
			d.pos++
		}
	}
	return ErrSyntax
}
