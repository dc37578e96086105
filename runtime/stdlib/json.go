package stdlib

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fabricops/fabric/runtime/doc"
	starlarktime "go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

func jsonModule() starlark.Value {
	return doc.Module("json", `JSON encoding and decoding.

Dicts keep their key order both ways; integers of any size are exact;
floats are written as Python writes them (1.0 stays 1.0).`, starlark.StringDict{
		"encode": doc.Builtin("json.encode", `encode(x, indent=None, sort_keys=False)

Returns x as JSON text. Without indent the text is compact (separators ","
and ":"); indent is a number of spaces or a string to indent nested values
with. Dicts keep their insertion order unless sort_keys is true; their keys
must be strings. Non-ASCII text is kept as UTF-8 and <, >, & are not
escaped. NaN and infinities are an error, as are cycles.`, jsonEncode),
		"decode": doc.Builtin("json.decode", `decode(s)

Parses the JSON text s (str or bytes) and returns its value: objects become
dicts in their key order, integers ints (of any size), other numbers floats.
Errors give the byte offset where the text went wrong.`, jsonDecode),
		"indent": doc.Builtin("json.indent", `indent(s, indent=2)

Returns the JSON text s re-indented with indent (a number of spaces or a
string), keeping its keys, order and number spellings as they are.`, jsonIndent),
		"canonical": doc.Builtin("json.canonical", `canonical(x)

Returns the canonical JSON text of x, for hashing and comparing: keys sorted
by code point, no insignificant whitespace, numbers in their shortest
round-trip form with integral floats written as integers (1.0 -> 1, so the
int and float spellings of a number agree), as RFC 8785 writes them.`, jsonCanonical),
	})
}

// EncodeJSON returns v as JSON. An empty indent means compact output;
// otherwise nested values are indented with indent. Dict keys keep their
// order unless sortKeys is set.
func EncodeJSON(v starlark.Value, indent string, sortKeys bool) ([]byte, error) {
	e := &jsonEncoder{indent: indent, pretty: indent != "", sortKeys: sortKeys}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.buf.Bytes(), nil
}

// CanonicalJSON returns the canonical JSON text of v (see json.canonical).
func CanonicalJSON(v starlark.Value) ([]byte, error) {
	e := &jsonEncoder{sortKeys: true, canonical: true}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.buf.Bytes(), nil
}

// DecodeJSON parses JSON text into a Starlark value: objects become dicts in
// their key order (a repeated key keeps its first position and last
// value), integral numbers ints and other numbers floats. Errors give the
// byte offset where the text went wrong.
func DecodeJSON(data []byte) (starlark.Value, error) {
	p := &jsonParser{data: data}
	p.space()
	if p.pos == len(data) {
		return nil, &offsetError{0, "empty JSON text"}
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(data) {
		return nil, p.fail("unexpected text after the JSON value")
	}
	return v, nil
}

// jsonMarshaler is implemented by host values that know their JSON form.
type jsonMarshaler interface {
	MarshalJSON() ([]byte, error)
}

type jsonEncoder struct {
	buf       bytes.Buffer
	indent    string
	pretty    bool
	sortKeys  bool
	canonical bool
	path      []starlark.Value // containers being encoded, to report cycles
}

func (e *jsonEncoder) newline(depth int) {
	if e.pretty {
		e.buf.WriteByte('\n')
		for range depth {
			e.buf.WriteString(e.indent)
		}
	}
}

// enter records that the mutable container v is being encoded, failing if
// it already is (a cycle). Immutable values such as tuples cannot form a
// cycle by themselves and are tracked only for depth.
func (e *jsonEncoder) enter(v starlark.Value) error {
	if _, ok := v.(starlark.Tuple); ok {
		v = starlark.None // tuples are not comparable
	}
	for _, p := range e.path {
		if p == starlark.None {
			continue
		}
		if p == v {
			return fmt.Errorf("cycle in JSON structure (a %s contains itself)", v.Type())
		}
	}
	if len(e.path) > 1000 {
		return fmt.Errorf("JSON structure nested too deeply")
	}
	e.path = append(e.path, v)
	return nil
}

func (e *jsonEncoder) leave() { e.path = e.path[:len(e.path)-1] }

func (e *jsonEncoder) value(v starlark.Value, depth int) error {
	switch x := v.(type) {
	case starlark.NoneType:
		e.buf.WriteString("null")
	case starlark.Bool:
		if x {
			e.buf.WriteString("true")
		} else {
			e.buf.WriteString("false")
		}
	case starlark.Int:
		e.buf.WriteString(x.String())
	case starlark.Float:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("cannot encode %s as JSON", x.String())
		}
		if e.canonical {
			e.buf.WriteString(CanonicalFloat(f))
		} else {
			e.buf.WriteString(PyFloat(f))
		}
	case starlark.String:
		WriteJSONString(&e.buf, string(x))
	case starlark.Bytes:
		return fmt.Errorf("cannot encode bytes as JSON (decode them to a str first)")
	case starlarktime.Time:
		WriteJSONString(&e.buf, time.Time(x).Format(time.RFC3339Nano))
	case starlarktime.Duration:
		WriteJSONString(&e.buf, x.String())
	case *starlark.Dict:
		if err := e.enter(x); err != nil {
			return err
		}
		defer e.leave()
		items := x.Items()
		keys := make([]string, len(items))
		for i, item := range items {
			k, ok := item[0].(starlark.String)
			if !ok {
				return fmt.Errorf("cannot encode dict with %s key as JSON (keys must be strings)", item[0].Type())
			}
			keys[i] = string(k)
		}
		if e.sortKeys {
			sort.Sort(byKey{keys, items})
		}
		return e.object(keys, func(i int) starlark.Value { return items[i][1] }, depth)
	case *starlarkstruct.Struct:
		names := x.AttrNames()
		if e.sortKeys {
			sort.Strings(names)
		}
		return e.object(names, func(i int) starlark.Value { a, _ := x.Attr(names[i]); return a }, depth)
	case *starlark.List:
		return e.sequence(x, depth)
	case starlark.Tuple:
		return e.sequence(x, depth)
	case *starlark.Set:
		return e.sequence(x, depth)
	default:
		m, ok := v.(jsonMarshaler)
		if !ok {
			return fmt.Errorf("cannot encode %s as JSON", v.Type())
		}
		data, err := m.MarshalJSON()
		if err != nil {
			return err
		}
		dv, err := DecodeJSON(data)
		if err != nil {
			return fmt.Errorf("%s: invalid JSON from MarshalJSON: %v", v.Type(), err)
		}
		return e.value(dv, depth)
	}
	return nil
}

func (e *jsonEncoder) sequence(x starlark.Iterable, depth int) error {
	if err := e.enter(x); err != nil {
		return err
	}
	defer e.leave()
	var elems []starlark.Value
	it := x.Iterate()
	var el starlark.Value
	for it.Next(&el) {
		elems = append(elems, el)
	}
	it.Done()
	return e.array(elems, depth)
}

func (e *jsonEncoder) object(keys []string, val func(int) starlark.Value, depth int) error {
	if len(keys) == 0 {
		e.buf.WriteString("{}")
		return nil
	}
	e.buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.newline(depth + 1)
		WriteJSONString(&e.buf, k)
		e.buf.WriteByte(':')
		if e.pretty {
			e.buf.WriteByte(' ')
		}
		if err := e.value(val(i), depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.buf.WriteByte('}')
	return nil
}

func (e *jsonEncoder) array(elems []starlark.Value, depth int) error {
	if len(elems) == 0 {
		e.buf.WriteString("[]")
		return nil
	}
	e.buf.WriteByte('[')
	for i, el := range elems {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.newline(depth + 1)
		if err := e.value(el, depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.buf.WriteByte(']')
	return nil
}

// byKey sorts dict items by their string keys.
type byKey struct {
	keys  []string
	items []starlark.Tuple
}

func (b byKey) Len() int           { return len(b.keys) }
func (b byKey) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKey) Swap(i, j int) {
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
	b.items[i], b.items[j] = b.items[j], b.items[i]
}

// WriteJSONString writes s as a JSON string, escaping only what JSON
// requires; invalid UTF-8 becomes U+FFFD.
func WriteJSONString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	// Most strings need no escape: one copy.
	plain := 0
	for plain < len(s) {
		if c := s[plain]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			break
		}
		plain++
	}
	buf.WriteString(s[:plain])
	for i := plain; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf.WriteByte('\\')
				buf.WriteByte(c)
			case c == '\n':
				buf.WriteString(`\n`)
			case c == '\r':
				buf.WriteString(`\r`)
			case c == '\t':
				buf.WriteString(`\t`)
			case c == '\b':
				buf.WriteString(`\b`)
			case c == '\f':
				buf.WriteString(`\f`)
			case c < 0x20:
				fmt.Fprintf(buf, `\u%04x`, c)
			default:
				buf.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf.WriteString("\ufffd")
		} else {
			buf.WriteString(s[i : i+size])
		}
		i += size
	}
	buf.WriteByte('"')
}

func jsonEncode(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		x        starlark.Value
		indentV  starlark.Value = starlark.None
		sortKeys bool
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "x", &x, "indent?", &indentV, "sort_keys?", &sortKeys); err != nil {
		return nil, err
	}
	e := &jsonEncoder{sortKeys: sortKeys}
	if indentV != starlark.None {
		ind, err := indentArg(b.Name(), indentV)
		if err != nil {
			return nil, err
		}
		e.indent, e.pretty = ind, true
	}
	if err := e.value(x, 0); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.String(e.buf.String()), nil
}

// indentArg turns an indent argument (a count of spaces or a string) into
// the indent string.
func indentArg(fn string, v starlark.Value) (string, error) {
	switch x := v.(type) {
	case starlark.String:
		return string(x), nil
	case starlark.Int:
		n, ok := x.Int64()
		if !ok || n < 0 || n > 64 {
			return "", fmt.Errorf("%s: indent must be between 0 and 64, got %s", fn, x)
		}
		return strings.Repeat(" ", int(n)), nil
	}
	return "", fmt.Errorf("%s: for parameter indent: got %s, want int or str", fn, v.Type())
}

func textArg(fn, param string, v starlark.Value) ([]byte, error) {
	switch x := v.(type) {
	case starlark.String:
		return []byte(x), nil
	case starlark.Bytes:
		return []byte(x), nil
	}
	return nil, fmt.Errorf("%s: for parameter %s: got %s, want str or bytes", fn, param, v.Type())
}

func jsonDecode(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return decodeText(b, args, kwargs, DecodeJSON)
}

// decodeText implements a builtin f(s) that decodes s (str or bytes) with
// decode, naming the builtin in its errors.
func decodeText(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, decode func([]byte) (starlark.Value, error)) (starlark.Value, error) {
	var s starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "s", &s); err != nil {
		return nil, err
	}
	data, err := textArg(b.Name(), "s", s)
	if err != nil {
		return nil, err
	}
	v, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return v, nil
}

func jsonIndent(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		s       starlark.Value
		indentV starlark.Value = starlark.MakeInt(2)
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "s", &s, "indent?", &indentV); err != nil {
		return nil, err
	}
	data, err := textArg(b.Name(), "s", s)
	if err != nil {
		return nil, err
	}
	ind, err := indentArg(b.Name(), indentV)
	if err != nil {
		return nil, err
	}
	// Validate first so that errors carry offsets like json.decode's.
	if _, err := DecodeJSON(data); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(data), "", ind); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.String(out.String()), nil
}

func jsonCanonical(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "x", &x); err != nil {
		return nil, err
	}
	data, err := CanonicalJSON(x)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.String(data), nil
}
