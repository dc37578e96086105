package stdlib

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
	"github.com/fabricops/fabric/runtime/doc"
	starlarktime "go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"gopkg.in/yaml.v3"
)

func yamlModule() starlark.Value {
	return doc.Module("yaml", `YAML encoding and decoding (YAML 1.2 with the usual 1.1 extras).

Dicts keep their key order both ways.`, starlark.StringDict{
		"encode": doc.Builtin("yaml.encode", `encode(x)

Returns x as a YAML document indented by 2 spaces, dict keys in their
order. Strings that would read back as another type are quoted;
multi-line strings use the literal block style.`, yamlEncode),
		"decode": doc.Builtin("yaml.decode", `decode(s)

Parses the first YAML document of s (str or bytes) and returns its value:
mappings become dicts in their key order, integers ints, floats floats,
true/false bools, null None and timestamps strings. An empty text is None.`, yamlDecode),
		"decode_all": doc.Builtin("yaml.decode_all", `decode_all(s)

Parses every YAML document of s (separated by ---) and returns the list of
their values.`, yamlDecodeAll),
	})
}

// EncodeYAML returns v as a YAML document indented by 2 spaces, with dict
// keys in their order.
func EncodeYAML(v starlark.Value) (data []byte, err error) {
	n, err := yamlNode(v, nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			data, err = nil, fmt.Errorf("yaml: %v", r)
		}
	}()
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeYAML parses the first YAML document of data into a Starlark value;
// an empty text is None.
func DecodeYAML(data []byte) (starlark.Value, error) {
	docs, err := decodeYAML(data, 1)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return starlark.None, nil
	}
	return docs[0], nil
}

// DecodeAllYAML parses every YAML document of data.
func DecodeAllYAML(data []byte) ([]starlark.Value, error) {
	return decodeYAML(data, -1)
}

// decodeYAML reads at most max documents of data (every one when max <
// 0) through yamldoc, whose limits bound the text, its depth and what its
// aliases expand to; the nodes it gives are safe to convert.
func decodeYAML(data []byte, max int) ([]starlark.Value, error) {
	nodes, err := yamldoc.Parse(data, max, yamldoc.Limits{})
	if err != nil {
		return nil, err
	}
	var c yamlConverter
	docs := make([]starlark.Value, 0, len(nodes))
	for _, n := range nodes {
		v, err := c.value(n)
		if err != nil {
			return nil, err
		}
		docs = append(docs, v)
	}
	return docs, nil
}

func yamlNode(v starlark.Value, path []starlark.Value) (*yaml.Node, error) {
	scalar := func(tag, value string) (*yaml.Node, error) {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}, nil
	}
	enter := func(x starlark.Value) error {
		if len(path) > 1000 {
			return fmt.Errorf("yaml: value nested too deeply")
		}
		if _, ok := x.(starlark.Tuple); ok {
			return nil // tuples are not comparable, and cannot form a cycle alone
		}
		for _, p := range path {
			if _, ok := p.(starlark.Tuple); !ok && p == x {
				return fmt.Errorf("yaml: cycle in value (a %s contains itself)", x.Type())
			}
		}
		return nil
	}
	switch x := v.(type) {
	case starlark.NoneType:
		return scalar("!!null", "null")
	case starlark.Bool:
		if x {
			return scalar("!!bool", "true")
		}
		return scalar("!!bool", "false")
	case starlark.Int:
		return scalar("!!int", x.String())
	case starlark.Float:
		f := float64(x)
		switch {
		case math.IsNaN(f):
			return scalar("!!float", ".nan")
		case math.IsInf(f, 1):
			return scalar("!!float", ".inf")
		case math.IsInf(f, -1):
			return scalar("!!float", "-.inf")
		}
		return scalar("!!float", PyFloat(f))
	case starlark.String:
		n := &yaml.Node{}
		n.SetString(string(x))
		return n, nil
	case starlark.Bytes:
		return scalar("!!binary", base64.StdEncoding.EncodeToString([]byte(x)))
	case starlarktime.Time:
		return scalar("!!timestamp", time.Time(x).Format(time.RFC3339Nano))
	case starlarktime.Duration:
		return scalar("!!str", x.String())
	case *starlark.Dict:
		if err := enter(x); err != nil {
			return nil, err
		}
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, item := range x.Items() {
			k, err := yamlNode(item[0], append(path, x))
			if err != nil {
				return nil, err
			}
			val, err := yamlNode(item[1], append(path, x))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, k, val)
		}
		return n, nil
	case *starlarkstruct.Struct:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		names := x.AttrNames()
		sort.Strings(names)
		for _, name := range names {
			a, _ := x.Attr(name)
			val, err := yamlNode(a, path)
			if err != nil {
				return nil, err
			}
			k := &yaml.Node{}
			k.SetString(name)
			n.Content = append(n.Content, k, val)
		}
		return n, nil
	case *starlark.List, starlark.Tuple, *starlark.Set:
		if err := enter(x); err != nil {
			return nil, err
		}
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		it := x.(starlark.Iterable).Iterate()
		defer it.Done()
		var el starlark.Value
		for it.Next(&el) {
			en, err := yamlNode(el, append(path, x))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, en)
		}
		return n, nil
	}
	if m, ok := v.(jsonMarshaler); ok {
		data, err := m.MarshalJSON()
		if err != nil {
			return nil, err
		}
		dv, err := DecodeJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s: invalid JSON from MarshalJSON: %v", v.Type(), err)
		}
		return yamlNode(dv, path)
	}
	return nil, fmt.Errorf("cannot encode %s as YAML", v.Type())
}

// yamlConverter turns yaml.Nodes that yamldoc checked into Starlark
// values: following their aliases is bounded.
type yamlConverter struct{}

// bigIntPattern is compiled on first use: most runs never need it.
var bigIntPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`) })

func (c *yamlConverter) value(n *yaml.Node) (starlark.Value, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return starlark.None, nil
		}
		return c.value(n.Content[0])
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("yaml: line %d: unknown alias %q", n.Line, n.Value)
		}
		return c.value(n.Alias)
	case yaml.SequenceNode:
		elems := make([]starlark.Value, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.value(e)
			if err != nil {
				return nil, err
			}
			elems = append(elems, v)
		}
		return starlark.NewList(elems), nil
	case yaml.MappingNode:
		return c.mapping(n)
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil, fmt.Errorf("yaml: line %d: unexpected node", n.Line)
}

func (c *yamlConverter) mapping(n *yaml.Node) (starlark.Value, error) {
	d := starlark.NewDict(len(n.Content) / 2)
	// Explicit keys win over those merged in with "<<".
	explicit := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.ShortTag() != "!!merge" {
			explicit[k.ShortTag()+":"+k.Value] = true
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind == yaml.ScalarNode && kn.ShortTag() == "!!merge" {
			if err := c.merge(d, vn, explicit); err != nil {
				return nil, err
			}
			continue
		}
		k, err := c.value(kn)
		if err != nil {
			return nil, err
		}
		v, err := c.value(vn)
		if err != nil {
			return nil, err
		}
		if err := d.SetKey(k, v); err != nil {
			return nil, fmt.Errorf("yaml: line %d: invalid key: %v", kn.Line, err)
		}
	}
	return d, nil
}

// merge adds the entries of the mapping (or sequence of mappings) n to d,
// except those whose keys are set explicitly or already present.
func (c *yamlConverter) merge(d *starlark.Dict, n *yaml.Node, explicit map[string]bool) error {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	var sources []*yaml.Node
	switch n.Kind {
	case yaml.MappingNode:
		sources = []*yaml.Node{n}
	case yaml.SequenceNode:
		sources = n.Content
	default:
		return fmt.Errorf("yaml: line %d: a merge (<<) needs a mapping or a list of mappings", n.Line)
	}
	for _, src := range sources {
		v, err := c.value(src)
		if err != nil {
			return err
		}
		m, ok := v.(*starlark.Dict)
		if !ok {
			return fmt.Errorf("yaml: line %d: a merge (<<) needs a mapping or a list of mappings", src.Line)
		}
		for _, item := range m.Items() {
			if s, ok := item[0].(starlark.String); ok && explicit["!!str:"+string(s)] {
				continue
			}
			if _, found, _ := d.Get(item[0]); found {
				continue
			}
			if err := d.SetKey(item[0], item[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

func scalarValue(n *yaml.Node) (starlark.Value, error) {
	switch tag := n.ShortTag(); tag {
	case "!!null":
		return starlark.None, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, err
		}
		return starlark.Bool(b), nil
	case "!!int", "!!float":
		// Plain integers beyond 64 bits resolve as floats; keep them exact.
		if bigIntPattern().MatchString(n.Value) {
			digits := strings.ReplaceAll(n.Value, "_", "")
			_, errInt := strconv.ParseInt(digits, 10, 64)
			_, errUint := strconv.ParseUint(digits, 10, 64)
			if b, ok := new(big.Int).SetString(digits, 10); ok && errInt != nil && errUint != nil {
				return starlark.MakeBigInt(b), nil
			}
		}
		if tag == "!!float" {
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, err
			}
			return starlark.Float(f), nil
		}
		var x any
		if err := n.Decode(&x); err != nil {
			return nil, err
		}
		switch i := x.(type) {
		case int:
			return starlark.MakeInt(i), nil
		case int64:
			return starlark.MakeInt64(i), nil
		case uint64:
			return starlark.MakeUint64(i), nil
		case float64:
			return starlark.Float(i), nil
		}
		return nil, fmt.Errorf("yaml: line %d: invalid integer %q", n.Line, n.Value)
	case "!!binary":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
		if err != nil {
			return nil, fmt.Errorf("yaml: line %d: invalid !!binary data", n.Line)
		}
		return starlark.Bytes(b), nil
	}
	// !!str, !!timestamp and unknown tags: the text itself.
	return starlark.String(n.Value), nil
}

func yamlEncode(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "x", &x); err != nil {
		return nil, err
	}
	data, err := EncodeYAML(x)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", b.Name(), strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return starlark.String(data), nil
}

func yamlDecode(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return decodeText(b, args, kwargs, func(data []byte) (starlark.Value, error) {
		v, err := DecodeYAML(data)
		return v, trimYAMLPrefix(err)
	})
}

func yamlDecodeAll(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return decodeText(b, args, kwargs, func(data []byte) (starlark.Value, error) {
		docs, err := DecodeAllYAML(data)
		if err != nil {
			return nil, trimYAMLPrefix(err)
		}
		return starlark.NewList(docs), nil
	})
}

// trimYAMLPrefix drops yaml.v3's "yaml: " from an error, as the builtin's
// name already says what failed.
func trimYAMLPrefix(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
}
