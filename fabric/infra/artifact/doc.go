package artifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
	"gopkg.in/yaml.v3"
)

// Doc is an artifact's document: a JSON object whose keys keep the order
// they were written in (YAML or JSON), at every level.
type Doc struct {
	keys []string
	vals map[string]json.RawMessage // each value is ordered JSON too
	// decoded is the document as plain values when Parse had them
	// already, and text its compact JSON when it was read from that (both
	// nil once a field changes): Decode and JSON return them.
	decoded any
	text    []byte
}

// Parse reads a document written as YAML or JSON (JSON is YAML); the
// error names the line of a malformed one.
func Parse(data []byte) (*Doc, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' && utf8.Valid(t) {
		// JSON, read as JSON: faster, and its errors are JSON's. (A
		// document that is not strict JSON is read as YAML below.)
		if v, err := decodeJSON(t); err == nil { // valid JSON
			if spaceOutsideStrings(t) {
				var b bytes.Buffer
				_ = json.Compact(&b, t)
				t = b.Bytes()
			}
			if d, err := splitObject(t); err == nil {
				d.decoded, d.text = v, t
				return d, nil
			}
		}
	}
	root, err := yamldoc.ParseOne(data, yamldoc.Limits{})
	if err != nil {
		if yamldoc.Refused(err) {
			return nil, err
		}
		return nil, fmt.Errorf("malformed YAML or JSON: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if root == nil || len(root.Content) == 0 {
		return nil, errors.New("the document is empty")
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: the document must be a mapping of fields", top.Line)
	}
	d := &Doc{vals: map[string]json.RawMessage{}}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		var b bytes.Buffer
		if err := writeJSON(&b, v); err != nil {
			return nil, err
		}
		d.Set(k.Value, b.Bytes())
	}
	return d, nil
}

// writeJSON writes a YAML node as JSON, keeping the order of mappings.
// The node is yamldoc's, checked: following its aliases is bounded.
func writeJSON(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		return writeJSON(b, n.Content[0])
	case yaml.AliasNode:
		return writeJSON(b, n.Alias)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(n.Content[i].Value)
			b.Write(k)
			b.WriteByte(':')
			if err := writeJSON(b, n.Content[i+1]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, c); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		var v any
		if n.Tag == "!!timestamp" {
			v = n.Value // a time, kept as written
		} else if n.ShortTag() == "!!binary" {
			s, err := binaryText(n)
			if err != nil {
				return err
			}
			v = s
		} else if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %v", n.Line, err)
		}
		if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return fmt.Errorf("line %d: %s is not a number JSON can hold", n.Line, n.Value)
		}
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("line %d: %v", n.Line, err)
		}
		b.Write(data)
	}
	return nil
}

// binaryText returns the text of a !!binary scalar: JSON holds text,
// so bytes that are not UTF-8 text are refused rather than mangled.
func binaryText(n *yaml.Node) (string, error) {
	var s string
	if err := n.Decode(&s); err != nil {
		return "", fmt.Errorf("line %d: %v", n.Line, err)
	}
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("line %d: the !!binary value is not UTF-8 text, which a document cannot hold", n.Line)
	}
	return s, nil
}

// FromJSON returns the document of compact JSON text (an object) whose
// plain values, as encoding/json reads the text into an any, the caller
// has already: a caller that made both (from a Starlark dict) spares the
// decoding. Anything else is Parse's.
func FromJSON(text []byte, decoded any) (*Doc, error) {
	d, err := splitObject(text)
	if err != nil {
		return nil, err
	}
	d.text, d.decoded = text, decoded
	return d, nil
}

// NewDoc returns an empty document.
func NewDoc() *Doc { return &Doc{vals: map[string]json.RawMessage{}} }

// Keys returns the document's top-level keys in order.
func (d *Doc) Keys() []string { return append([]string(nil), d.keys...) }

// Raw returns a field's JSON, or nil.
func (d *Doc) Raw(key string) json.RawMessage { return d.vals[key] }

// Set sets a field to the JSON raw (appended when new, in place when not).
func (d *Doc) Set(key string, raw json.RawMessage) {
	d.decoded, d.text = nil, nil
	if _, ok := d.vals[key]; !ok {
		d.keys = append(d.keys, key)
	}
	d.vals[key] = append(json.RawMessage(nil), raw...)
}

// Delete removes a field.
func (d *Doc) Delete(key string) {
	if _, ok := d.vals[key]; !ok {
		return
	}
	d.decoded, d.text = nil, nil
	delete(d.vals, key)
	for i, k := range d.keys {
		if k == key {
			d.keys = append(d.keys[:i:i], d.keys[i+1:]...)
			break
		}
	}
}

// SetValue sets a field to v, marshalled.
func (d *Doc) SetValue(key string, v any) {
	data, _ := json.Marshal(v)
	d.Set(key, data)
}

// String returns a field's value when it is a string.
func (d *Doc) String(key string) (string, bool) {
	s, ok := decodeJSONValue(d.vals[key]).(string)
	return s, ok
}

// decodeJSONValue returns a field's JSON as a plain value (nil when it
// is missing or not JSON).
func decodeJSONValue(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil
	}
	return v
}

// Value returns the document as plain Go values (maps lose the order),
// for validation; nil when it does not read as such (see Decode).
func (d *Doc) Value() any {
	v, _ := d.Decode()
	return v
}

// Decode returns the document as plain Go values, or why it cannot be
// (a number out of range). The values may be shared with the document:
// do not change them.
func (d *Doc) Decode() (any, error) {
	if d.decoded != nil {
		return d.decoded, nil
	}
	return decodeJSON(d.JSON())
}

// spaceOutsideStrings reports whether JSON text has white space between
// its tokens (compact JSON has none).
func spaceOutsideStrings(data []byte) bool {
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = stringEnd(data, i) - 1
		case ' ', '\t', '\n', '\r':
			return true
		}
	}
	return false
}

// JSON returns the document as compact JSON, in order.
func (d *Doc) JSON() []byte {
	if d.text != nil {
		return d.text[:len(d.text):len(d.text)] // an append copies
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range d.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeKey(&b, k)
		b.WriteByte(':')
		b.Write(d.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// writeKey writes a key as a JSON string: as it is when it needs no
// escaping (as keys almost always are), else as encoding/json writes it.
func writeKey(b *bytes.Buffer, k string) {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			kb, _ := json.Marshal(k)
			b.Write(kb)
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(k)
	b.WriteByte('"')
}

// MarshalJSON implements json.Marshaler, in order.
func (d *Doc) MarshalJSON() ([]byte, error) { return d.JSON(), nil }

// UnmarshalJSON implements json.Unmarshaler, keeping the order. Only the
// top level is split: each value is kept as its JSON text, which keeps
// the order below it.
func (d *Doc) UnmarshalJSON(data []byte) error {
	p, err := parseJSONObject(data)
	if err != nil {
		return err
	}
	*d = *p
	return nil
}

// parseJSONObject reads a JSON object into a document, its values kept as
// written.
func parseJSONObject(data []byte) (*Doc, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("malformed JSON: %v", err)
	}
	return splitObject(data)
}

// splitObject splits valid JSON (an object, else an error) at its top
// level: one pass over the bytes, each value kept as its text.
func splitObject(data []byte) (*Doc, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, errors.New("the document must be a JSON object")
	}
	d := NewDoc()
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return d, nil
	}
	for i < len(data) {
		// "key"
		end := stringEnd(data, i)
		rawKey := data[i:end]
		var key string
		if bytes.IndexByte(rawKey, '\\') < 0 {
			key = string(rawKey[1 : len(rawKey)-1])
		} else if err := json.Unmarshal(rawKey, &key); err != nil {
			return nil, err
		}
		i = skipSpace(data, end)
		i = skipSpace(data, i+1) // the colon
		start := i
		i = valueEnd(data, i)
		if _, dup := d.vals[key]; dup {
			return nil, fmt.Errorf("field %q is there twice", key)
		}
		d.keys = append(d.keys, key)
		d.vals[key] = bytes.TrimRight(data[start:i], " \t\r\n")
		i = skipSpace(data, i)
		if i < len(data) && data[i] == '}' {
			return d, nil
		}
		i = skipSpace(data, i+1) // the comma
	}
	return nil, errors.New("unexpected end of JSON")
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string that starts at i.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}

// valueEnd returns the index after the value that starts at i (before
// the comma or brace that follows it).
func valueEnd(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			i = stringEnd(data, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}
