package pack

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
	"gopkg.in/yaml.v3"
)

// ManifestFile is the name of a pack's manifest, at the pack's top.
const ManifestFile = "manifest.yaml"

var (
	// nameRE is a pack's name.
	nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$`) })
	// varRE is a deploy variable's name.
	varRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
)

// manifestLimits bound the YAML of a manifest.yaml.
var manifestLimits = yamldoc.Limits{Size: 4 << 20}

// errorf makes an error of the manifest: "manifest.yaml: ...".
func errorf(format string, args ...any) error {
	return fmt.Errorf(ManifestFile+": "+format, args...)
}

// ParseManifest parses a manifest.yaml (bounded: an alias bomb or a huge
// text is refused) into a Manifest, its artifacts in Types order then
// in the order of each type's list, the default scope (common) and
// creation policy (fail) filled in, and checks it (Manifest.Check). An
// unknown key, at the top or in an artifact or a variable, is an error
// naming it. Every error starts with "manifest.yaml: ".
func ParseManifest(data []byte) (Manifest, error) {
	var m Manifest
	doc, err := yamldoc.ParseOne(data, manifestLimits)
	if err != nil {
		return m, errorf("%s", oneLine(err.Error()))
	}
	if doc == nil || len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return m, errorf("the manifest is empty")
	}
	top := deref(doc.Content[0])
	if top.Kind != yaml.MappingNode {
		return m, errorf("line %d: the manifest is not a mapping of keys to values", top.Line)
	}
	byType := map[string][]Artifact{}
	var unknownTypes []string
	err = eachKey(top, "", func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "name":
			m.Name, err = scalar(v, key)
		case "version":
			m.Version, err = scalar(v, key)
		case "description":
			m.Description, err = scalar(v, key)
		case "publisher":
			m.Publisher, err = scalar(v, key)
		case "common_deploy_vars":
			m.CommonVars, err = parseVars(v, key)
		case "single_tenant_deploy_vars":
			m.SingleTenantVars, err = parseVars(v, key)
		case "customer_deploy_vars":
			m.CustomerVars, err = parseVars(v, key)
		case "artifacts":
			if isNull(v) {
				return nil
			}
			if v.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: artifacts is not a mapping of artifact types to lists", v.Line)
			}
			err = eachKey(v, "artifacts.", func(typ string, list *yaml.Node) error {
				arts, err := parseArtifacts(typ, list)
				if err != nil {
					return err
				}
				if !slices.Contains(Types, typ) {
					unknownTypes = append(unknownTypes, typ)
				}
				byType[typ] = arts
				return nil
			})
		default:
			err = fmt.Errorf("line %d: unknown key %q (known: name, version, description, publisher, common_deploy_vars, single_tenant_deploy_vars, customer_deploy_vars, artifacts)", v.Line, key)
		}
		return err
	})
	if err != nil {
		return Manifest{}, errorf("%s", err)
	}
	for _, typ := range append(slices.Clone(Types), unknownTypes...) {
		m.Artifacts = append(m.Artifacts, byType[typ]...)
	}
	if err := m.Check(); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// oneLine joins the lines of an error's text.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// deref follows an alias node to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is a null (or absent) value.
func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// eachKey calls fn with each key and value of a mapping (aliases
// followed), refusing non-scalar keys, merge keys and a key given
// twice; prefix is written before the key in errors.
func eachKey(n *yaml.Node, prefix string, fn func(key string, v *yaml.Node) error) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			return fmt.Errorf("line %d: a key of %s is not a plain name", k.Line, where(prefix))
		}
		if seen[k.Value] {
			return fmt.Errorf("line %d: key %q is given twice", k.Line, prefix+k.Value)
		}
		seen[k.Value] = true
		if err := fn(k.Value, v); err != nil {
			return err
		}
	}
	return nil
}

// where names a mapping by the prefix of its keys.
func where(prefix string) string {
	if prefix == "" {
		return "the manifest"
	}
	return strings.TrimSuffix(prefix, ".")
}

// scalar returns the text of a scalar value ("" for null).
func scalar(n *yaml.Node, key string) (string, error) {
	if isNull(n) {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("line %d: %s is not a text", n.Line, key)
	}
	return n.Value, nil
}

// parseVars parses a list of deploy variables.
func parseVars(n *yaml.Node, key string) ([]Var, error) {
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d: %s is not a list of variables", n.Line, key)
	}
	vars := make([]Var, 0, len(n.Content))
	for _, item := range n.Content {
		item = deref(item)
		if item.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: an entry of %s is not a mapping (name, description, default, secret)", item.Line, key)
		}
		var v Var
		err := eachKey(item, key+".", func(k string, val *yaml.Node) error {
			var err error
			switch k {
			case "name":
				v.Name, err = scalar(val, k)
			case "description":
				v.Description, err = scalar(val, k)
			case "default":
				if !isNull(val) {
					var s string
					s, err = scalar(val, k)
					v.Default = &s
				}
			case "secret":
				if !isNull(val) {
					if val.Kind != yaml.ScalarNode || val.Tag != "!!bool" {
						return fmt.Errorf("line %d: secret is not true or false", val.Line)
					}
					v.Secret = val.Value == "true" || val.Value == "True" || val.Value == "TRUE"
				}
			default:
				return fmt.Errorf("line %d: unknown key %q of a variable of %s (known: name, description, default, secret)", val.Line, k, key)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		vars = append(vars, v)
	}
	return vars, nil
}

// parseArtifacts parses the list of artifacts of a type.
func parseArtifacts(typ string, n *yaml.Node) ([]Artifact, error) {
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d: artifacts.%s is not a list of artifacts", n.Line, typ)
	}
	arts := make([]Artifact, 0, len(n.Content))
	for _, item := range n.Content {
		item = deref(item)
		if item.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: an entry of artifacts.%s is not a mapping (name, file, scope, creation_policy)", item.Line, typ)
		}
		a := Artifact{Type: typ}
		err := eachKey(item, "artifacts."+typ+".", func(k string, val *yaml.Node) error {
			var err error
			switch k {
			case "name":
				a.Name, err = scalar(val, k)
			case "file":
				a.File, err = scalar(val, k)
			case "scope":
				a.Scope, err = scalar(val, k)
			case "creation_policy":
				a.CreationPolicy, err = scalar(val, k)
			default:
				return fmt.Errorf("line %d: unknown key %q of a %s artifact (known: name, file, scope, creation_policy)", val.Line, k, typ)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if a.Scope == "" {
			a.Scope = ScopeCommon
		}
		if a.CreationPolicy == "" {
			a.CreationPolicy = PolicyFail
		}
		arts = append(arts, a)
	}
	return arts, nil
}

// Check checks a manifest: its name ([A-Za-z0-9][A-Za-z0-9_.-]{0,99})
// and version (ParseVersion); each artifact's type (one of Types), name
// (not empty), file (a clean relative path, no hidden part), scope and
// creation policy (empty takes the default); no two artifacts of the
// same type and name in one scope; the deploy variables' names
// ([A-Za-z_][A-Za-z0-9_]*, unique across the three lists, none of
// ContextVars); no bot package of the customer scope. The error starts
// with "manifest.yaml: " and names the artifact (type and name) or the
// variable.
func (m Manifest) Check() error {
	switch {
	case m.Name == "":
		return errorf("no name")
	case !nameRE().MatchString(m.Name):
		return errorf("name %q is not a pack name (a letter or digit, then up to 99 letters, digits, '_', '.' or '-')", m.Name)
	case m.Version == "":
		return errorf("no version")
	}
	if _, err := ParseVersion(m.Version); err != nil {
		return errorf("%s", err)
	}
	seen := map[string]bool{}
	for _, list := range [][]Var{m.CommonVars, m.SingleTenantVars, m.CustomerVars} {
		for _, v := range list {
			switch {
			case v.Name == "":
				return errorf("a deploy variable has no name")
			case !varRE().MatchString(v.Name):
				return errorf("deploy variable %q: the name is not a letter or '_' then letters, digits or '_'", v.Name)
			case slices.Contains(ContextVars, v.Name):
				return errorf("deploy variable %q: the fabric sets %s itself (context variables: %s)", v.Name, v.Name, strings.Join(ContextVars, ", "))
			case seen[v.Name]:
				return errorf("deploy variable %q is declared twice", v.Name)
			}
			seen[v.Name] = true
		}
	}
	arts := map[[3]string]bool{}
	for _, a := range m.Artifacts {
		what := fmt.Sprintf("artifact %s %q", a.Type, a.Name)
		switch {
		case !slices.Contains(Types, a.Type):
			return errorf("%s: unknown type %q (known: %s)", what, a.Type, strings.Join(Types, ", "))
		case a.Name == "":
			return errorf("an artifact of type %s (file %q) has no name", a.Type, a.File)
		case strings.ContainsAny(a.Name, "\n\r"):
			return errorf("%s: the name has a line break", what)
		}
		if err := checkPath(a.File); err != nil {
			return errorf("%s: %s", what, err)
		}
		scope := orDefault(a.Scope, ScopeCommon)
		if !slices.Contains(Scopes, scope) {
			return errorf("%s: unknown scope %q (known: %s)", what, a.Scope, strings.Join(Scopes, ", "))
		}
		if IsFolder(a.Type) && scope == ScopeCustomer {
			return errorf("%s: a bot package cannot be of scope customer (the customers of a tenant share its bot packages: make it common)", what)
		}
		if p := orDefault(a.CreationPolicy, PolicyFail); p != PolicyFail && p != PolicySkip {
			return errorf("%s: unknown creation_policy %q (known: %s, %s)", what, a.CreationPolicy, PolicyFail, PolicySkip)
		}
		key := [3]string{a.Type, a.Name, scope}
		if arts[key] {
			return errorf("%s is given twice in scope %s", what, scope)
		}
		arts[key] = true
	}
	return nil
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// checkPath checks a file's path in a pack: relative, clean,
// slash-separated, no part hidden.
func checkPath(p string) error {
	switch {
	case p == "":
		return errors.New("no file")
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("file %q is an absolute path", p)
	case strings.ContainsAny(p, "\\\x00\n\r"):
		return fmt.Errorf("file %q is not a slash-separated path", p)
	case path.Clean(p) != p || p == ".":
		return fmt.Errorf("file %q is not a clean relative path", p)
	case p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("file %q goes outside the pack (..)", p)
	case p == ManifestFile:
		return fmt.Errorf("file %q is the manifest", p)
	}
	for _, part := range strings.Split(p, "/") {
		if hidden(part) {
			return fmt.Errorf("file %q is hidden (%s)", p, part)
		}
	}
	return nil
}

// hidden reports whether a part of a path is hidden: a dot file or a
// __MACOSX folder; hidden files of an archive are ignored.
func hidden(part string) bool {
	return strings.HasPrefix(part, ".") || part == "__MACOSX"
}

// ParseVersion parses a dotted version: 1 to 4 parts of digits (at most
// 9 each), such as 1.2.0 or 22.11.9; no leading "v".
func ParseVersion(v string) ([]int, error) {
	parts := strings.Split(v, ".")
	if v == "" || len(parts) > 4 {
		return nil, fmt.Errorf("version %q is not 1 to 4 dotted numbers (such as 1.2.0)", v)
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		if p == "" || len(p) > 9 || strings.Trim(p, "0123456789") != "" {
			return nil, fmt.Errorf("version %q is not 1 to 4 dotted numbers (such as 1.2.0)", v)
		}
		nums[i], _ = strconv.Atoi(p)
	}
	return nums, nil
}

// CompareVersions orders two versions numerically, part by part, a
// missing part as 0 (1.10.0 > 1.9.2, 1.2 = 1.2.0 numerically): -1, 0 or
// +1. An invalid version sorts before every valid one. Versions equal
// numerically are ordered by their count of parts, then as texts, so
// that 0 means the same text: the order is total.
func CompareVersions(a, b string) int {
	va, errA := ParseVersion(a)
	vb, errB := ParseVersion(b)
	switch {
	case errA != nil && errB != nil:
		return strings.Compare(a, b)
	case errA != nil:
		return -1
	case errB != nil:
		return 1
	}
	for i := 0; i < max(len(va), len(vb)); i++ {
		x, y := 0, 0
		if i < len(va) {
			x = va[i]
		}
		if i < len(vb) {
			y = vb[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	if len(va) != len(vb) {
		if len(va) < len(vb) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// MarshalManifest writes a manifest as the YAML of a manifest.yaml:
// name, version, description, publisher, the three lists of variables,
// then artifacts by type in Types order (each a flow mapping; the
// default scope and creation policy left out). The manifest is checked
// first. For a manifest as ParseManifest returns it,
// ParseManifest(MarshalManifest(m)) equals m.
func MarshalManifest(m Manifest) ([]byte, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	top := &yaml.Node{Kind: yaml.MappingNode}
	add := func(n *yaml.Node, key string, v *yaml.Node) {
		n.Content = append(n.Content, str(key), v)
	}
	add(top, "name", str(m.Name))
	add(top, "version", str(m.Version))
	if m.Description != "" {
		add(top, "description", str(m.Description))
	}
	if m.Publisher != "" {
		add(top, "publisher", str(m.Publisher))
	}
	for _, l := range []struct {
		key  string
		vars []Var
	}{
		{"common_deploy_vars", m.CommonVars},
		{"single_tenant_deploy_vars", m.SingleTenantVars},
		{"customer_deploy_vars", m.CustomerVars},
	} {
		if len(l.vars) == 0 {
			continue
		}
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, v := range l.vars {
			item := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
			add(item, "name", str(v.Name))
			if v.Description != "" {
				add(item, "description", str(v.Description))
			}
			if v.Default != nil {
				add(item, "default", str(*v.Default))
			}
			if v.Secret {
				add(item, "secret", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
			}
			seq.Content = append(seq.Content, item)
		}
		add(top, l.key, seq)
	}
	if len(m.Artifacts) > 0 {
		arts := &yaml.Node{Kind: yaml.MappingNode}
		for _, typ := range Types {
			seq := &yaml.Node{Kind: yaml.SequenceNode}
			for _, a := range m.Artifacts {
				if a.Type != typ {
					continue
				}
				item := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
				add(item, "name", str(a.Name))
				add(item, "file", str(a.File))
				if a.Scope != "" && a.Scope != ScopeCommon {
					add(item, "scope", str(a.Scope))
				}
				if a.CreationPolicy != "" && a.CreationPolicy != PolicyFail {
					add(item, "creation_policy", str(a.CreationPolicy))
				}
				seq.Content = append(seq.Content, item)
			}
			if len(seq.Content) > 0 {
				add(arts, typ, seq)
			}
		}
		add(top, "artifacts", arts)
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(top); err != nil {
		return nil, fmt.Errorf("manifest.yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("manifest.yaml: %w", err)
	}
	return []byte(b.String()), nil
}

// str is a YAML text node, quoted when it would read as another type.
func str(s string) *yaml.Node {
	n := &yaml.Node{}
	n.SetString(s)
	return n
}
