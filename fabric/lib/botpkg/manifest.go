// Package botpkg is a bot package as the fabric reads it: its bots.yml
// (SPEC 2.3a) parsed and checked, its Starlark modules compiled, and a
// call of one of its bots run in a fresh Starlark thread with the fences
// of code users bring: a step budget, a bound on the values it makes and
// on the memory it holds, cancellation by context, no file system, and a
// network reached only through the http module, limited to the host and
// port the source configures. It knows nothing of the fabric's API: the
// catalog stores packages and the workers call Run.
package botpkg

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
)

// ManifestFile is the name of a package's manifest.
const ManifestFile = "bots.yml"

// manifestLimits bound a bots.yml.
var manifestLimits = yamldoc.Limits{Size: 1 << 20, Depth: 64, Expansion: 10_000}

// Manifest is a package's bots.yml.
type Manifest struct {
	// Extension describes the package.
	Extension Extension `yaml:"extension" json:"extension"`
	// Bots are the package's bots, one at least.
	Bots []Bot `yaml:"bots" json:"bots"`
}

// Extension describes the package.
type Extension struct {
	// Namespace is the ns of @ns:bot.
	Namespace string `yaml:"namespace" json:"namespace"`
	// Type, Version (dotted numbers), Description, DefaultName (the
	// package's name), Publisher and SupportEmail are as SPEC 2.3a.
	Type         string `yaml:"type" json:"type"`
	Version      string `yaml:"version" json:"version"`
	Description  string `yaml:"description" json:"description"`
	DefaultName  string `yaml:"default_name" json:"default_name"`
	Publisher    string `yaml:"publisher" json:"publisher"`
	SupportEmail string `yaml:"support_email" json:"support_email"`
	// ConfigTemplate is the shape of a source's configuration, with its
	// $secure, $mandatory and $labels (see ParseTemplate).
	ConfigTemplate map[string]any `yaml:"config_template" json:"config_template"`
	// Implementation names the value holding the bots.
	Implementation Implementation `yaml:"implementation" json:"implementation"`
}

// Implementation names the value holding the bots: "MODULE.NAME" is the
// value NAME of the file MODULE.star.
type Implementation struct {
	// Code is MODULE.NAME.
	Code string `yaml:"code" json:"code"`
}

// Bot is one bot of a package, called as @namespace:name.
type Bot struct {
	// Name is the bot's name; its field in the implementation value is
	// FieldName(Name).
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	// BotType is one of BotTypes; ModelType is as SPEC 2.3a (api).
	BotType   string `yaml:"bot_type" json:"bot_type"`
	ModelType string `yaml:"model_type" json:"model_type"`
	// ModelParameters are the parameters a step may give the bot.
	ModelParameters []Parameter `yaml:"model_parameters" json:"model_parameters"`
}

// Parameter is a bot's parameter.
type Parameter struct {
	// Name is the parameter's name in a step (an identifier).
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	// Type is text, number or boolean.
	Type      string `yaml:"type" json:"type"`
	Mandatory bool   `yaml:"mandatory" json:"mandatory"`
	// Default is the value of an absent parameter ("" for none).
	Default string `yaml:"default" json:"default"`
}

// ParamTypes are the types a parameter may have.
var ParamTypes = []string{"text", "number", "boolean"}

// ReservedNamespaces are those of the fabric's own bots: no package may
// take one, so that no package bot stands in for a built-in one.
var ReservedNamespaces = map[string]bool{"dm": true, "c": true, "exec": true, "files": true, "rn": true, "t": true}

// BotTypes are the types a bot may have.
var BotTypes = []string{"source", "sink", "transform"}

var (
	nameRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+$`) })
	botNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`) })
	paramRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	versionRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`) })
	codeRe    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)$`)
	})
)

// ParseManifest reads and checks a bots.yml: every required field present
// and well formed, each error one line naming the field ("bots.yml:
// bots[2].name is missing").
func ParseManifest(data []byte) (*Manifest, error) {
	var m Manifest
	if err := yamldoc.Unmarshal(data, &m, manifestLimits, true); err != nil {
		return nil, fmt.Errorf("%s: %v", ManifestFile, oneLine(err.Error()))
	}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("%s: %v", ManifestFile, err)
	}
	return &m, nil
}

// Check reports the first field of m that is missing or malformed.
func (m *Manifest) Check() error {
	x := &m.Extension
	for _, f := range []struct{ name, value string }{
		{"namespace", x.Namespace}, {"type", x.Type}, {"version", x.Version},
		{"default_name", x.DefaultName}, {"implementation.code", x.Implementation.Code},
	} {
		if strings.TrimSpace(f.value) == "" {
			return fmt.Errorf("extension.%s is missing", f.name)
		}
	}
	if !nameRe().MatchString(x.Namespace) {
		return fmt.Errorf("extension.namespace %q may hold letters, digits, '_', '-' and '.' only", x.Namespace)
	}
	if ReservedNamespaces[x.Namespace] {
		return fmt.Errorf("extension.namespace %q is the fabric's own bots'", x.Namespace)
	}
	if !nameRe().MatchString(x.DefaultName) {
		return fmt.Errorf("extension.default_name %q may hold letters, digits, '_', '-' and '.' only", x.DefaultName)
	}
	if !versionRe().MatchString(x.Version) {
		return fmt.Errorf("extension.version %q is not dotted numbers, such as 1.0.0", x.Version)
	}
	if !codeRe().MatchString(x.Implementation.Code) {
		return fmt.Errorf("extension.implementation.code %q is not MODULE.NAME", x.Implementation.Code)
	}
	if _, err := ParseTemplate(x.ConfigTemplate); err != nil {
		return err
	}
	if len(m.Bots) == 0 {
		return fmt.Errorf("bots is missing: a package has one bot or more")
	}
	seen := map[string]bool{}
	for i, b := range m.Bots {
		at := fmt.Sprintf("bots[%d]", i+1)
		if err := b.check(at); err != nil {
			return err
		}
		if seen[FieldName(b.Name)] {
			return fmt.Errorf("%s.name %q is given twice", at, b.Name)
		}
		seen[FieldName(b.Name)] = true
	}
	return nil
}

func (b *Bot) check(at string) error {
	switch {
	case b.Name == "":
		return fmt.Errorf("%s.name is missing", at)
	case !botNameRe().MatchString(b.Name):
		return fmt.Errorf("%s.name %q may hold letters, digits, '_' and '-' only, starting with a letter", at, b.Name)
	case b.BotType == "":
		return fmt.Errorf("%s.bot_type is missing", at)
	case !contains(BotTypes, b.BotType):
		return fmt.Errorf("%s.bot_type %q is not one of %s", at, b.BotType, strings.Join(BotTypes, ", "))
	}
	seen := map[string]bool{}
	for j, p := range b.ModelParameters {
		pat := fmt.Sprintf("%s.model_parameters[%d]", at, j+1)
		switch {
		case p.Name == "":
			return fmt.Errorf("%s.name is missing", pat)
		case !paramRe().MatchString(p.Name):
			return fmt.Errorf("%s.name %q is not an identifier", pat, p.Name)
		case seen[p.Name]:
			return fmt.Errorf("%s.name %q is given twice", pat, p.Name)
		case p.Type == "":
			return fmt.Errorf("%s.type is missing", pat)
		case !contains(ParamTypes, p.Type):
			return fmt.Errorf("%s.type %q is not one of %s", pat, p.Type, strings.Join(ParamTypes, ", "))
		}
		seen[p.Name] = true
		if p.Default != "" {
			if _, err := paramValue(p, p.Default); err != nil {
				return fmt.Errorf("%s.default: %v", pat, err)
			}
		}
	}
	return nil
}

// Bot returns the bot of m named name.
func (m *Manifest) Bot(name string) (*Bot, bool) {
	for i := range m.Bots {
		if m.Bots[i].Name == name {
			return &m.Bots[i], true
		}
	}
	return nil, false
}

// Code returns the module and the value name of implementation.code.
func (m *Manifest) Code() (module, name string) {
	g := codeRe().FindStringSubmatch(m.Extension.Implementation.Code)
	if g == nil {
		return "", ""
	}
	return g[1], g[2]
}

// FieldName is the field of the implementation value holding the bot
// name: its '-' as '_'.
func FieldName(bot string) string { return strings.ReplaceAll(bot, "-", "_") }

// Template is a package's config_template read: its keys, the secret
// ones ($secure), the required ones ($mandatory) and their labels.
type Template struct {
	// Keys are the template's keys other than $secure, $mandatory and
	// $labels, sorted.
	Keys      []string
	Secure    []string
	Mandatory []string
	Labels    map[string]string
}

// ParseTemplate reads a config_template.
func ParseTemplate(t map[string]any) (*Template, error) {
	out := &Template{Labels: map[string]string{}}
	for k := range t {
		if !strings.HasPrefix(k, "$") {
			out.Keys = append(out.Keys, k)
		}
	}
	sort.Strings(out.Keys)
	var err error
	if out.Secure, err = keyList(t, "$secure", out.Keys); err != nil {
		return nil, err
	}
	if out.Mandatory, err = keyList(t, "$mandatory", out.Keys); err != nil {
		return nil, err
	}
	if v, ok := t["$labels"]; ok && v != nil {
		labels, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("extension.config_template.$labels is not a map of key to label")
		}
		for k, l := range labels {
			s, ok := l.(string)
			if !ok {
				return nil, fmt.Errorf("extension.config_template.$labels.%s is not a text", k)
			}
			out.Labels[k] = s
		}
	}
	for k := range t {
		if strings.HasPrefix(k, "$") && k != "$secure" && k != "$mandatory" && k != "$labels" {
			return nil, fmt.Errorf("extension.config_template.%s is not $secure, $mandatory or $labels", k)
		}
	}
	return out, nil
}

func keyList(t map[string]any, name string, keys []string) ([]string, error) {
	v, ok := t[name]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("extension.config_template.%s is not a list of keys", name)
	}
	var out []string
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("extension.config_template.%s holds %v, not a key", name, x)
		}
		if !contains(keys, s) {
			return nil, fmt.Errorf("extension.config_template.%s names %q, which is not a key of the template", name, s)
		}
		out = append(out, s)
	}
	return out, nil
}

// CompareVersions orders two dotted versions: -1, 0 or 1.
func CompareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int64
		if i < len(as) {
			x, _ = strconv.ParseInt(as[i], 10, 64)
		}
		if i < len(bs) {
			y, _ = strconv.ParseInt(bs[i], 10, 64)
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
