package artifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"gopkg.in/yaml.v3"
)

// YAML returns the document as block-style YAML, in order.
func (d *Doc) YAML() ([]byte, error) {
	n, err := jsonYAMLNode(d.JSON())
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n}}); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// maxJSONDepth bounds the nesting of the JSON jsonYAMLNode reads (as
// encoding/json bounds its own).
const maxJSONDepth = 10000

// jsonYAMLNode reads JSON text as block-style YAML nodes in its order.
// JSON is read as JSON (not as YAML, whose reader refuses characters
// JSON strings may hold, such as DEL, and escapes it does not know, such
// as surrogate pairs): strings become !!str scalars, which the encoder
// quotes when they would read back as another type; numbers, booleans
// and null stay as written.
func jsonYAMLNode(text []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	n, err := jsonValueNode(dec, 0)
	if err != nil {
		return nil, fmt.Errorf("the document's JSON: %v", err)
	}
	return n, nil
}

func jsonValueNode(dec *json.Decoder, depth int) (*yaml.Node, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				v, err := jsonValueNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, stringNode(key), v)
			}
			_, err := dec.Token() // }
			return n, err
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				v, err := jsonValueNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
			_, err := dec.Token() // ]
			return n, err
		}
	case string:
		return stringNode(t), nil
	case json.Number:
		// Untagged: written plain, as JSON wrote it.
		return &yaml.Node{Kind: yaml.ScalarNode, Value: t.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatBool(t)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected %v", tok)
}

// stringNode is a string scalar, plain unless it needs quotes.
func stringNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}
