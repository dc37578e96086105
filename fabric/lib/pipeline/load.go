package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
	"gopkg.in/yaml.v3"
)

// Form returns the form a pipeline document is written in: FormText
// when its first line that is not blank or a comment starts with a bot tag
// or -->, else FormJSON for a .json file or one starting with { or
// [, else FormYAML (a .yaml or .yml file, or anything else).
func Form(data []byte, fileName string) string {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
lines:
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "@"), strings.HasPrefix(t, "*"), strings.HasPrefix(t, "-->"), hashTag().MatchString(t):
			return FormText
		case strings.HasPrefix(t, "#"):
			continue // a comment, of YAML or of the text form
		}
		break lines
	}
	switch strings.ToLower(filepath.Ext(fileName)) {
	case ".json":
		return FormJSON
	case ".yaml", ".yml":
		return FormYAML
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return FormJSON
	}
	return FormYAML
}

// hashTag is a line of the text form starting with a #ns:bot tag (and not
// a comment).
var hashTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#[A-Za-z_][A-Za-z0-9_.-]*:[A-Za-z0-9_]`) })

// BaseName is a file's name without its directory and extension: the name
// of a pipeline whose document does not give one.
func BaseName(fileName string) string {
	if fileName == "" {
		return ""
	}
	base := filepath.Base(fileName)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// Load reads a pipeline written as YAML, JSON or the text form (see Form
// and TextForm). Its name is the document's name, else data.name, else
// the file's base name without its extension (the only one for the text
// form, which holds only data.sequence). Format is the form it was
// written in. Errors say where: the line for YAML and the text form, the
// line and column for JSON syntax.
func Load(data []byte, fileName string) (Pipeline, error) {
	var p Pipeline
	form := Form(data, fileName)
	switch form {
	case FormText:
		steps, err := ParseText(string(data))
		if err != nil {
			return p, err
		}
		p.Data.Sequence = steps
	default:
		n, read, err := decodeNode(data, form)
		if err != nil {
			return p, err
		}
		form = read
		b := builder{json: form == FormJSON}
		if p, err = b.pipeline(n); err != nil {
			return p, err
		}
	}
	p.Format = form
	if p.Name == "" {
		p.Name = p.Data.Name
	}
	if p.Name == "" {
		p.Name = BaseName(fileName)
	}
	if p.Data.Name == "" {
		p.Data.Name = p.Name
	}
	if p.Data.Sequence == nil {
		p.Data.Sequence = []Step{}
	}
	return p, nil
}

// ErrEmpty is the error of a document with nothing in it.
var ErrEmpty = errors.New("the pipeline is empty")

// node is a decoded YAML or JSON value that remembers its line (YAML).
type node struct {
	kind  nodeKind
	line  int
	text  string // a scalar as written
	value any    // a scalar as a JSON value: string, json.Number, float64, bool
	keys  []string
	kline []int // the line of each key
	vals  []*node
	items []*node
}

type nodeKind int

const (
	nullNode nodeKind = iota
	scalarNode
	mapNode
	listNode
)

// decodeNode decodes a YAML or JSON document and returns the form it was
// read in. JSON is YAML except for characters that YAML takes only
// escaped, such as U+0080, which JSON may hold as they are: a YAML
// document that YAML cannot read but that is JSON is read as JSON, as
// the pipeline's JSON saved in a .yaml file is.
func decodeNode(data []byte, form string) (*node, string, error) {
	if form == FormJSON {
		v, err := Decode(data)
		if err != nil {
			return nil, form, err
		}
		return jsonNode(v), form, nil
	}
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))) == 0 {
		return nil, form, ErrEmpty
	}
	n, err := yamlDocument(data)
	var syn *yamlSyntaxError
	if errors.As(err, &syn) {
		if v, jerr := Decode(data); jerr == nil {
			return jsonNode(v), FormJSON, nil
		}
	}
	return n, form, err
}

func jsonNode(v any) *node {
	switch x := v.(type) {
	case nil:
		return &node{kind: nullNode}
	case map[string]any:
		n := &node{kind: mapNode}
		for k := range x {
			n.keys = append(n.keys, k)
		}
		sort.Strings(n.keys)
		for _, k := range n.keys {
			n.vals = append(n.vals, jsonNode(x[k]))
			n.kline = append(n.kline, 0)
		}
		return n
	case []any:
		n := &node{kind: listNode, items: []*node{}}
		for _, e := range x {
			n.items = append(n.items, jsonNode(e))
		}
		return n
	case json.Number:
		return &node{kind: scalarNode, text: x.String(), value: x}
	case bool:
		return &node{kind: scalarNode, text: strconv.FormatBool(x), value: x}
	case string:
		return &node{kind: scalarNode, text: x, value: x}
	}
	return &node{kind: scalarNode, text: fmt.Sprint(v), value: fmt.Sprint(v)}
}

// yamlDocument decodes the one YAML document of data, through yamldoc:
// its limits bound the text, its depth and what its aliases expand to.
func yamlDocument(data []byte) (n *node, err error) {
	docs, err := yamldoc.Parse(data, 2, yamldoc.Limits{})
	switch {
	case yamldoc.Refused(err):
		return nil, err
	case err != nil:
		return nil, yamlError(err)
	case len(docs) == 0:
		return nil, ErrEmpty
	case len(docs) > 1:
		return nil, fmt.Errorf("line %d: a second YAML document: give one pipeline per file", max(docs[1].Line, 1))
	}
	var c yamlConverter
	return c.convert(docs[0])
}

var plainInt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-+]?[0-9]+$`) })
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

// yamlSyntaxError is text that the YAML parser cannot read (as opposed
// to a document it reads that does not fit).
type yamlSyntaxError struct{ msg string }

func (e *yamlSyntaxError) Error() string { return e.msg }

func yamlError(err error) error {
	msg := err.Error()
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		return &yamlSyntaxError{fmt.Sprintf("invalid YAML at line %s: %s", m[1], msg[len(m[0]):])}
	}
	return &yamlSyntaxError{"invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// yamlConverter converts yaml.Nodes that yamldoc checked: following
// their aliases is bounded.
type yamlConverter struct{}

func (c *yamlConverter) convert(y *yaml.Node) (*node, error) {
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return nil, ErrEmpty
		}
		return c.convert(y.Content[0])
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, fmt.Errorf("line %d: unknown alias", y.Line)
		}
		return c.convert(y.Alias)
	case yaml.MappingNode:
		n := &node{kind: mapNode, line: y.Line}
		seen := map[string]bool{}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, err := c.convert(y.Content[i])
			if err != nil {
				return nil, err
			}
			if k.kind != scalarNode && k.kind != nullNode {
				return nil, fmt.Errorf("line %d: a mapping key must be plain text", y.Content[i].Line)
			}
			if seen[k.text] {
				return nil, fmt.Errorf("line %d: %q is given twice", y.Content[i].Line, k.text)
			}
			seen[k.text] = true
			v, err := c.convert(y.Content[i+1])
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k.text)
			n.kline = append(n.kline, y.Content[i].Line)
			n.vals = append(n.vals, v)
		}
		return n, nil
	case yaml.SequenceNode:
		n := &node{kind: listNode, line: y.Line, items: []*node{}}
		for _, e := range y.Content {
			v, err := c.convert(e)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
		return n, nil
	case yaml.ScalarNode:
		return yamlScalar(y)
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node", y.Line)
}

func yamlScalar(y *yaml.Node) (*node, error) {
	n := &node{kind: scalarNode, line: y.Line, text: y.Value, value: y.Value}
	switch y.ShortTag() {
	case "!!null":
		n.kind, n.text, n.value = nullNode, "", nil
	case "!!bool":
		var b bool
		if err := y.Decode(&b); err != nil {
			return nil, fmt.Errorf("line %d: %v", y.Line, err)
		}
		n.value = b
	case "!!int":
		var v any
		if err := y.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %v", y.Line, err)
		}
		switch i := v.(type) {
		case int:
			n.value = json.Number(strconv.Itoa(i))
		case int64:
			n.value = json.Number(strconv.FormatInt(i, 10))
		case uint64:
			n.value = json.Number(strconv.FormatUint(i, 10))
		case float64:
			n.value = i
		}
	case "!!float":
		// An integer too big for 64 bits: keep its digits, as JSON does.
		if digits := strings.ReplaceAll(y.Value, "_", ""); plainInt().MatchString(digits) {
			if b, ok := new(big.Int).SetString(digits, 10); ok {
				n.value = json.Number(b.String())
				return n, nil
			}
		}
		var f float64
		if err := y.Decode(&f); err != nil {
			return nil, fmt.Errorf("line %d: %v", y.Line, err)
		}
		n.value = f
	}
	return n, nil
}

// toAny returns a node as a JSON value, as Decode makes them.
func (n *node) toAny() any {
	switch n.kind {
	case mapNode:
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k] = n.vals[i].toAny()
		}
		return m
	case listNode:
		l := make([]any, len(n.items))
		for i, e := range n.items {
			l[i] = e.toAny()
		}
		return l
	case scalarNode:
		return n.value
	}
	return nil
}

// builder makes an Pipeline of a decoded document, saying where what
// does not fit is.
type builder struct{ json bool }

func (b builder) kind(n *node) string {
	switch n.kind {
	case nullNode:
		return "null"
	case mapNode:
		if b.json {
			return "an object"
		}
		return "a mapping"
	case listNode:
		if b.json {
			return "an array"
		}
		return "a list"
	}
	return "text"
}

// errorf formats an error about n at path.
func (b builder) errorf(n *node, path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	if n.line > 0 {
		msg = fmt.Sprintf("line %d: %s", n.line, msg)
	}
	return errors.New(msg)
}

// fields calls set for each key of the mapping n, after checking that it
// is one of known.
func (b builder) fields(n *node, path string, known []string, set func(key string, v *node, path string) error) error {
	switch {
	case n.kind == nullNode && path != "":
		return nil
	case n.kind == mapNode:
	default:
		want := "a mapping"
		if b.json {
			want = "an object"
		}
		if path == "" {
			return b.errorf(n, "", "not a pipeline: the document is %s, want %s", b.kind(n), want)
		}
		return b.errorf(n, path, "want %s of %s, not %s", want, strings.Join(known, ", "), b.kind(n))
	}
	for i, k := range n.keys {
		if !contains(known, k) {
			return b.errorf(&node{line: n.kline[i]}, path, "unknown field %q (the fields are %s)", k, strings.Join(known, ", "))
		}
		sub := k
		if path != "" {
			sub = path + "." + k
		}
		if err := set(k, n.vals[i], sub); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// text returns a scalar's text ("" for null).
func (b builder) text(n *node, path string) (string, error) {
	switch n.kind {
	case nullNode:
		return "", nil
	case scalarNode:
		return n.text, nil
	}
	return "", b.errorf(n, path, "want text, not %s", b.kind(n))
}

// strings sets the fields of a mapping that are all text.
func (b builder) texts(n *node, path string, fields map[string]*string) error {
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	sort.Strings(known)
	return b.fields(n, path, known, func(key string, v *node, sub string) (err error) {
		*fields[key], err = b.text(v, sub)
		return err
	})
}

var topFields = []string{"name", "description", "usecase", "category", "version", "sources", "data",
	"artifacts", "html_data", "saved_time", "pipetype", "format", "limits"}

func (b builder) pipeline(n *node) (Pipeline, error) {
	var p Pipeline
	texts := map[string]*string{"name": &p.Name, "description": &p.Description, "usecase": &p.Usecase,
		"category": &p.Category, "version": &p.Version, "html_data": &p.HTMLData, "saved_time": &p.SavedTime,
		"pipetype": &p.Pipetype, "format": new(string)}
	err := b.fields(n, "", topFields, func(key string, v *node, path string) (err error) {
		switch key {
		case "sources":
			p.Sources, err = b.sources(v, path)
		case "data":
			err = b.fields(v, path, []string{"name", "sequence"}, func(key string, v *node, path string) (err error) {
				if key == "name" {
					p.Data.Name, err = b.text(v, path)
					return err
				}
				p.Data.Sequence, err = b.steps(v, path)
				return err
			})
		case "artifacts":
			p.Artifacts, err = b.artifacts(v, path)
		case "limits":
			p.Limits, err = b.limits(v, path)
		case "pipetype":
			if p.Pipetype, err = b.text(v, path); err == nil && p.Pipetype != "" {
				p.Pipetype, err = Pipetype(p.Pipetype)
				if err != nil {
					err = b.errorf(v, path, "%v", err)
				}
			}
		default:
			*texts[key], err = b.text(v, path)
		}
		return err
	})
	return p, err
}

// limits reads a pipeline's job limits: max_rows, max_memory_mb and
// max_seconds, positive numbers.
func (b builder) limits(n *node, path string) (*Limits, error) {
	if n.kind == nullNode {
		return nil, nil
	}
	var l Limits
	err := b.fields(n, path, []string{"max_memory_mb", "max_rows", "max_seconds"}, func(key string, v *node, sub string) error {
		text, err := b.text(v, sub)
		if err != nil {
			return err
		}
		x, perr := strconv.ParseFloat(text, 64)
		if perr != nil || !(x > 0) || math.IsInf(x, 0) {
			return b.errorf(v, sub, "want a positive number, not %q", text)
		}
		switch key {
		case "max_rows":
			if x != math.Trunc(x) || x > 1e15 {
				return b.errorf(v, sub, "want a whole number of rows, not %q", text)
			}
			l.MaxRows = int64(x)
		case "max_memory_mb":
			l.MaxMemoryMB = x
		case "max_seconds":
			l.MaxSeconds = x
		}
		return nil
	})
	return &l, err
}

// Pipetype returns the pipeline type t names, in any case: Published or
// Draft.
func Pipetype(t string) (string, error) {
	for _, pt := range Pipetypes {
		if strings.EqualFold(t, pt) {
			return pt, nil
		}
	}
	return "", fmt.Errorf("pipetype must be %s, not %q", strings.Join(Pipetypes, " or "), t)
}

func (b builder) list(n *node, path string, each func(i int, e *node, path string) error) error {
	switch n.kind {
	case nullNode:
		return nil
	case listNode:
	default:
		return b.errorf(n, path, "want a list, not %s", b.kind(n))
	}
	for i, e := range n.items {
		if err := each(i, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}

func (b builder) steps(n *node, path string) ([]Step, error) {
	var steps []Step
	err := b.list(n, path, func(i int, e *node, _ string) error {
		sub := fmt.Sprintf("%s step %d", path, i+1)
		var s Step
		if err := b.texts(e, sub, map[string]*string{"tag": &s.Tag, "query": &s.Query, "comment": &s.Comment}); err != nil {
			return err
		}
		if e.kind == nullNode {
			return b.errorf(e, sub, "the step is empty")
		}
		if !ValidTag(s.Tag) {
			return b.errorf(e, sub, "%v", tagError(s.Tag))
		}
		steps = append(steps, s)
		return nil
	})
	return steps, err
}

func (b builder) sources(n *node, path string) (map[string]Source, error) {
	out := map[string]Source{}
	if n.kind != mapNode && n.kind != nullNode {
		return nil, b.errorf(n, path, "want a mapping of source names to {name, type}, not %s", b.kind(n))
	}
	for i, k := range n.keys {
		var s Source
		if err := b.texts(n.vals[i], path+"."+k, map[string]*string{"name": &s.Name, "type": &s.Type}); err != nil {
			return nil, err
		}
		if s.Name == "" {
			s.Name = k
		}
		out[k] = s
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func (b builder) artifacts(n *node, path string) ([]Artifact, error) {
	var out []Artifact
	err := b.list(n, path, func(i int, e *node, sub string) error {
		var a Artifact
		if err := b.texts(e, sub, map[string]*string{"artifact_type": &a.ArtifactType, "artifact_name": &a.ArtifactName, "access": &a.Access}); err != nil {
			return err
		}
		out = append(out, a)
		return nil
	})
	return out, err
}
