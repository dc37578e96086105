package pack

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// placeholderRE is a {{ name }} placeholder, spaces or tabs inside the
// braces optional.
var placeholderRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{\{[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\}\}`)
})

// Placeholders returns the distinct names of the {{ name }} placeholders
// in data (spaces inside the braces optional), in order of first
// appearance. Braces around anything but a name ({{ .x }}, {{ a | b }})
// are no placeholder: they are left as they are.
func Placeholders(data []byte) []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range placeholderRE().FindAllSubmatch(data, -1) {
		name := string(m[1])
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}

// VarsOf returns the variables an artifact of scope sees: the common
// ones, then the scope's own (none more for ScopeCommon or an unknown
// scope). ContextVars are seen too but are not Vars.
func (m Manifest) VarsOf(scope string) []Var {
	vars := slices.Clone(m.CommonVars)
	switch scope {
	case ScopeSingleTenant:
		vars = append(vars, m.SingleTenantVars...)
	case ScopeCustomer:
		vars = append(vars, m.CustomerVars...)
	}
	return vars
}

// allVars returns every deploy variable of the manifest, in any scope.
func (m Manifest) allVars() []Var {
	vars := slices.Clone(m.CommonVars)
	vars = append(vars, m.SingleTenantVars...)
	return append(vars, m.CustomerVars...)
}

// Values returns the values of the variables scope sees (VarsOf): the
// input's value when given, else the default; plus the values given in
// context of ContextVars (tenant, site, customer_tag; other keys of
// context are left out). The variables with neither are one error
// naming all of them, sorted: "missing deploy variable(s) for scope
// common: api_token, region (give them in --inputs)". An input naming no
// deploy variable of the pack in any scope is an error too, naming them
// ("--inputs names no deploy variable of pack NAME: x"), checked first;
// an input naming a variable of another scope is ignored.
func (m Manifest) Values(scope string, inputs map[string]string, context map[string]string) (map[string]string, error) {
	known := map[string]bool{}
	for _, v := range m.allVars() {
		known[v.Name] = true
	}
	var unknown []string
	for name := range inputs {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("--inputs names no deploy variable of pack %s: %s", m.Name, strings.Join(unknown, ", "))
	}
	values := map[string]string{}
	var missing []string
	for _, v := range m.VarsOf(scope) {
		if val, ok := inputs[v.Name]; ok {
			values[v.Name] = val
		} else if v.Default != nil {
			values[v.Name] = *v.Default
		} else {
			missing = append(missing, v.Name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("missing deploy variable(s) for scope %s: %s (give them in --inputs)", scope, strings.Join(missing, ", "))
	}
	for _, name := range ContextVars {
		if val, ok := context[name]; ok {
			values[name] = val
		}
	}
	return values, nil
}

// Check checks the pack: its manifest (Manifest.Check), that each
// artifact's file is in the pack, and that every {{ placeholder }} in an
// artifact's file names a variable its scope sees (VarsOf and
// ContextVars); the error names the file and the placeholder. Dataset
// files are data, taken as they are: their braces are no placeholders.
// A folder artifact (a bot package) must hold its type's file at its top
// (bots.yml); its files are taken as they are too.
func (p *Pack) Check() error {
	m := p.Manifest
	if err := m.Check(); err != nil {
		return err
	}
	for _, a := range m.Artifacts {
		if IsFolder(a.Type) {
			if err := p.checkFolder(a); err != nil {
				return err
			}
			continue
		}
		data, ok := p.files[a.File]
		if !ok {
			return errorf("artifact %s %q: file %s is not in the pack", a.Type, a.Name, a.File)
		}
		if a.Type == TypeDataset {
			continue
		}
		scope := orDefault(a.Scope, ScopeCommon)
		seen := map[string]bool{}
		for _, v := range m.VarsOf(scope) {
			seen[v.Name] = true
		}
		for _, name := range ContextVars {
			seen[name] = true
		}
		for _, name := range Placeholders(data) {
			if !seen[name] {
				return fmt.Errorf("%s: placeholder {{ %s }} names no deploy variable of scope %s (artifact %s %q)", a.File, name, scope, a.Type, a.Name)
			}
		}
	}
	return nil
}

// Fill replaces the placeholders of text that values has a value for
// (an artifact's name, "netops-{{ customer_tag }}"); others stay.
func Fill(text string, values map[string]string) string {
	return placeholderRE().ReplaceAllStringFunc(text, func(ph string) string {
		if v, ok := values[placeholderRE().FindStringSubmatch(ph)[1]]; ok {
			return v
		}
		return ph
	})
}
