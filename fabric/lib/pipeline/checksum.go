// Package pipeline holds what the fabric knows about pipeline documents
// (SPEC 2.10) independently of where they are stored: the forms they are
// written in (YAML, JSON and the --> text form), their canonical form and
// content checksums.
package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// CanonicalForm documents how Canonical encodes a document; checksum -h
// shows it.
const CanonicalForm = `The canonical form is the document's JSON with object keys sorted by code
point, no whitespace between tokens, strings with only the escapes JSON
requires (\" \\ and control characters, as \n \r \t \b \f or \u00XX), and
numbers in their shortest form: integers as integers, a float with no
fraction as an integer (1.0 is 1, -0.0 is 0), other floats in the
shortest form that reads back to the same value. A checksum is the SHA-256 of that form, in hex.`

// StepChecksum is the checksum of one data.sequence step.
type StepChecksum struct {
	Index    int    `json:"step"`
	Tag      string `json:"tag"`
	Checksum string `json:"checksum"`
}

// Checksums are a pipeline's content checksums.
type Checksums struct {
	Name     string         `json:"name"`
	Checksum string         `json:"checksum"`
	Steps    []StepChecksum `json:"steps"`
}

// Checksum computes the content checksums of a pipeline given as JSON,
// YAML or the text form (see Form): one of the whole canonical document
// and one of each data.sequence step. The same document in JSON and in
// YAML has the same checksums.
func Checksum(data []byte) (*Checksums, error) { return ChecksumFile(data, "") }

// ChecksumFile is Checksum of a file's content: the file's extension tells
// JSON from YAML when the content does not, and its base name names a
// pipeline written in the text form.
func ChecksumFile(data []byte, fileName string) (*Checksums, error) {
	doc, err := Document(data, fileName)
	if err != nil {
		return nil, err
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a pipeline: the document is %s, want an object", kind(doc))
	}
	sum, err := digest(obj)
	if err != nil {
		return nil, err
	}
	c := &Checksums{Checksum: sum, Steps: []StepChecksum{}}
	c.Name, _ = obj["name"].(string)
	d, ok := obj["data"].(map[string]any)
	if !ok {
		return c, nil
	}
	if c.Name == "" {
		c.Name, _ = d["name"].(string)
	}
	seq, present := d["sequence"]
	if !present {
		return c, nil
	}
	steps, ok := seq.([]any)
	if !ok {
		return nil, fmt.Errorf("not a pipeline: data.sequence is %s, want a list of steps", kind(seq))
	}
	for i, s := range steps {
		sum, err := digest(s)
		if err != nil {
			return nil, err
		}
		tag := ""
		if m, ok := s.(map[string]any); ok {
			tag, _ = m["tag"].(string)
		}
		c.Steps = append(c.Steps, StepChecksum{Index: i + 1, Tag: tag, Checksum: sum})
	}
	return c, nil
}

// Document decodes a pipeline document written in any form into JSON
// values, as Decode makes them. The document of the text form is
// {"name", "data": {"name", "sequence"}} with the name Load gives it (no
// name when there is none).
func Document(data []byte, fileName string) (any, error) {
	switch Form(data, fileName) {
	case FormJSON:
		return Decode(data)
	case FormYAML:
		n, _, err := decodeNode(data, FormYAML)
		if err != nil {
			return nil, err
		}
		return n.toAny(), nil
	}
	p, err := Load(data, fileName)
	if err != nil {
		return nil, err
	}
	steps := make([]any, len(p.Data.Sequence))
	for i, s := range p.Data.Sequence {
		steps[i] = map[string]any{"tag": s.Tag, "query": s.Query, "comment": s.Comment}
	}
	d := map[string]any{"sequence": steps}
	doc := map[string]any{"data": d}
	if p.Name != "" {
		doc["name"], d["name"] = p.Name, p.Name
	}
	return doc, nil
}

func digest(v any) (string, error) {
	b, err := Canonical(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Decode parses one JSON document, keeping numbers exact (json.Number), and
// reports a syntax error with its line and column.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, positioned(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		line, col := lineCol(data, off)
		return nil, fmt.Errorf("invalid JSON at line %d, column %d: unexpected data after the document", line, col)
	}
	return v, nil
}

func positioned(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		// Offset counts the bytes read, the bad one included.
		line, col := lineCol(data, max(syn.Offset-1, 0))
		return fmt.Errorf("invalid JSON at line %d, column %d: %s", line, col, syn.Error())
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("invalid JSON: the document is empty or cut short")
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// lineCol returns the 1-based line and column of the byte at index off.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// Canonical returns the canonical JSON encoding of a value decoded by
// Decode (see CanonicalForm). A string that is not valid UTF-8 (the text
// form does not check it) has each bad byte written as U+FFFD, as
// decoding JSON reads it, so that the canonical form is valid JSON that
// checksums as the document it came from.
func Canonical(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encode(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func encode(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		writeString(b, x)
	case json.Number:
		s, err := number(x)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case float64:
		s, err := number(json.Number(strconv.FormatFloat(x, 'g', -1, 64)))
		if err != nil {
			return err
		}
		b.WriteString(s)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encode(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // byte order of UTF-8 is code point order
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := encode(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("canonical JSON: unsupported value of type %T", v)
	}
	return nil
}

// number renders a JSON number in its shortest form.
func number(n json.Number) (string, error) {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		i, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return "", fmt.Errorf("canonical JSON: bad number %q", s)
		}
		return i.String(), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("canonical JSON: number %q is out of range", s)
	}
	if f == 0 {
		return "0", nil // negative zero too, as RFC 8785 and json.canonical write it
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	}
	return strconv.FormatFloat(f, 'g', -1, 64), nil
}

// writeString writes s as a JSON string with only the escapes JSON
// requires; a byte that is not valid UTF-8 becomes U+FFFD.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString("\ufffd")
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
