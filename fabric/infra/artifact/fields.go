package artifact

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// examples are documents of the kinds whose add help shows one (each
// checked against its schema by the tests).
var examples = map[*Kind]string{
	Stack: `name: web-shop
description: The shop's front and its database
version: "1.0"
components:
  - name: front
    type: http
    host: shop.example.com
    port: 443
    depends_on: [db]
  - name: db
    type: postgres
    host: 10.0.0.5
    port: 5432
`,
	SiteProfile: `name: edge-sites
description: The edge sites' workers
sites: ["edge-.*"]
site_type: regex
labels: {tier: edge}
max_cpu_percent: 80
min_workers: 1
`,
	Synthetics: `name: web-shop-probes
description: Is the shop up?
stack: web-shop
sites: [local]
probes:
  - name: front-page
    type: http
    target: https://shop.example.com/
    interval_seconds: 60
    timeout_seconds: 10
  - name: db-port
    type: tcp
    target: 10.0.0.5:5432
`,
	FmtTemplate: `name: alert-mail
description: The mail of an alert
format: text
template: "{{.severity}} on {{.host}}: {{.message}}"
`,
	StagingArea: `name: uploads
description: Files dropped for the sales dataset
folder: staging/sales
dataset: sales
format: csv
retention_days: 7
`,
	Subscription: `name: critical-to-ops
description: Critical events, to the ops stream
stream: syslog-events
filter: "severity is 'crit'"
target:
  type: stream
  stream: ops-events
`,
}

// Example returns a document of kind k as a YAML file would hold it, or ""
// when the kind has none.
func (k *Kind) Example() string { return examples[k] }

// Fields describes the fields of kind k's documents, from its JSON Schema,
// one a line, nested ones indented under theirs: name, "*" when required,
// and what it holds ("string", "integer 1-65535", "list of: ...", "one of
// http, tcp"). The first line is "Fields (* required):".
func (k *Kind) Fields() string {
	root, err := decodeOrdered(strings.NewReader(k.Schema))
	if err != nil {
		return ""
	}
	var lines [][2]string
	describeFields(root, root, "  ", &lines)
	width := 0
	for _, l := range lines {
		width = max(width, len(l[0]))
	}
	var b strings.Builder
	b.WriteString("Fields (* required):\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "%-*s  %s", width, l[0], l[1])
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// describeFields appends the (indented name, what) lines of the properties
// of the object schema s; root resolves "$ref"s.
func describeFields(root, s *object, indent string, lines *[][2]string) {
	s = resolveRef(root, s)
	props, _ := s.get("properties").(*object)
	if props == nil {
		return
	}
	var required []string
	if r, ok := s.get("required").([]any); ok {
		for _, x := range r {
			if n, ok := x.(string); ok {
				required = append(required, n)
			}
		}
	}
	for _, key := range props.keys {
		p, _ := props.vals[key].(*object)
		if p == nil {
			continue
		}
		p = resolveRef(root, p)
		name := indent + key
		if slices.Contains(required, key) {
			name += "*"
		}
		what, nested := describeType(root, p)
		*lines = append(*lines, [2]string{name, what})
		if nested != nil {
			describeFields(root, nested, indent+"  ", lines)
		}
	}
}

// describeType says what a field of schema p holds, and returns the object
// schema whose fields go under it (an object's, a list of objects').
func describeType(root, p *object) (string, *object) {
	if enum, ok := p.get("enum").([]any); ok {
		var vs []string
		for _, v := range enum {
			vs = append(vs, fmt.Sprint(v))
		}
		return "one of " + strings.Join(vs, ", "), nil
	}
	t, _ := p.get("type").(string)
	switch t {
	case "array":
		items, _ := p.get("items").(*object)
		what := "list"
		if n, ok := p.get("minItems").(json.Number); ok && n.String() != "0" {
			what += " (at least " + n.String() + ")"
		}
		if items == nil {
			return what, nil
		}
		items = resolveRef(root, items)
		inner, nested := describeType(root, items)
		if nested != nil {
			return what + " of objects:", nested
		}
		return what + " of " + inner, nil
	case "object":
		if _, ok := p.get("properties").(*object); ok {
			return "object:", p
		}
		if ap, ok := p.get("additionalProperties").(*object); ok {
			inner, _ := describeType(root, ap)
			return "map of " + inner, nil
		}
		return "object", nil
	case "integer", "number":
		lo, hasLo := p.get("minimum").(json.Number)
		hi, hasHi := p.get("maximum").(json.Number)
		switch {
		case hasLo && hasHi:
			return t + " " + lo.String() + "-" + hi.String(), nil
		case hasLo:
			return t + " >= " + lo.String(), nil
		}
		return t, nil
	case "boolean":
		return "true or false", nil
	case "":
		return "any", nil
	}
	return t, nil
}

// resolveRef follows a "#/..." $ref of s within root.
func resolveRef(root, s *object) *object {
	ref, ok := s.get("$ref").(string)
	if !ok || !strings.HasPrefix(ref, "#/") {
		return s
	}
	cur := root
	for _, part := range strings.Split(ref[2:], "/") {
		next, ok := cur.get(part).(*object)
		if !ok {
			return s
		}
		cur = next
	}
	return cur
}

// object is a JSON object that keeps its keys' order.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(k string) any {
	if o == nil {
		return nil
	}
	return o.vals[k]
}

// decodeOrdered decodes one JSON value: objects as *object, arrays as
// []any, numbers as json.Number.
func decodeOrdered(r io.Reader) (*object, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	return o, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, k)
				o.vals[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			var a []any
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	}
	return tok, nil
}
