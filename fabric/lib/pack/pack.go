// Package pack reads, checks, renders, compares and writes packs: the
// versioned .tar.gz bundles that ship content (pipelines, blueprints,
// dashboards, alert rules, credentials, schedules, streams, datasets, bot
// packages, ...) into a tenant. A pack has a manifest.yaml at its top
// naming each artifact's type, name, file (a folder for a bot package),
// scope and creation policy, and the deploy variables its files use as
// {{ name }} placeholders. The package knows nothing of the fabric: the
// api-server stores what it renders.
package pack

import "sort"

// Scopes of a pack's artifacts: common ones deploy on activation, the
// single-tenant ones when single-tenant use is enabled, the customer
// ones once per customer tag enabled.
const (
	ScopeCommon       = "common"
	ScopeSingleTenant = "single_tenant"
	ScopeCustomer     = "customer"
)

// Scopes are the scopes in the order of the manifest's variable lists.
var Scopes = []string{ScopeCommon, ScopeSingleTenant, ScopeCustomer}

// Creation policies: what activation does when an artifact of the same
// type and name exists already.
const (
	// PolicyFail (the default) refuses the activation.
	PolicyFail = "fail"
	// PolicySkip leaves the existing artifact as it is: its row says
	// Skipped, and deactivation leaves it too.
	PolicySkip = "skip"
)

// Artifact types, as the manifest spells them.
const (
	TypeStream        = "stream"
	TypeDataset       = "dataset"
	TypeCredential    = "credential"
	TypeStack         = "stack"
	TypeSiteProfile   = "site_profile"
	TypeFmtTemplate   = "fmt_template"
	TypeStagingArea   = "staging_area"
	TypeBotPackage    = "bot_package"
	TypePipeline      = "pipeline"
	TypeBlueprint     = "blueprint"
	TypeSchedule      = "schedule"
	TypeEventEndpoint = "event_endpoint"
	TypeSubscription  = "subscription"
	TypeSynthetics    = "synthetics"
	TypeAlertRules    = "alert_ruleset"
	TypeDashboard     = "dashboard"
	TypeDashGroup     = "dashboard_group"
)

// Types are the artifact types in the order an activation writes them
// (what an artifact may depend on comes before it, such as the bot
// packages whose bots the pipelines call; a deactivation goes
// backwards).
var Types = []string{
	TypeStream, TypeDataset, TypeCredential,
	TypeStack, TypeSiteProfile, TypeFmtTemplate, TypeStagingArea,
	TypeBotPackage, TypePipeline, TypeBlueprint, TypeSchedule, TypeEventEndpoint, TypeSubscription,
	TypeSynthetics, TypeAlertRules, TypeDashboard, TypeDashGroup,
}

// Var is a deploy variable: its value comes from the inputs, else its
// default; one without a default must be given. A Secret variable's
// value is never shown (a compare report lists its name only).
type Var struct {
	Name        string  `yaml:"name" json:"name"`
	Description string  `yaml:"description,omitempty" json:"description,omitempty"`
	Default     *string `yaml:"default,omitempty" json:"default,omitempty"`
	Secret      bool    `yaml:"secret,omitempty" json:"secret,omitempty"`
}

// Artifact is one artifact of a manifest.
type Artifact struct {
	Type string `yaml:"-" json:"type"`
	// Name is the artifact's name in the fabric (a pipeline's, a
	// blueprint's id, a dashboard's name, ...).
	Name string `yaml:"name" json:"name"`
	// File is its file's path in the pack, relative to the top; for a
	// folder type (IsFolder: a bot package) the path of its folder.
	File string `yaml:"file" json:"file"`
	// Scope is ScopeCommon (the default), ScopeSingleTenant or
	// ScopeCustomer.
	Scope string `yaml:"scope,omitempty" json:"scope"`
	// CreationPolicy is PolicyFail (the default) or PolicySkip.
	CreationPolicy string `yaml:"creation_policy,omitempty" json:"creation_policy"`
}

// Manifest is a pack's manifest.yaml.
type Manifest struct {
	Name        string `yaml:"name" json:"name"`
	Version     string `yaml:"version" json:"version"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	Publisher   string `yaml:"publisher,omitempty" json:"publisher,omitempty"`
	// The deploy variables of each scope. An artifact of a scope sees
	// the common variables, those of its own scope and ContextVars.
	CommonVars       []Var `yaml:"common_deploy_vars,omitempty" json:"common_deploy_vars,omitempty"`
	SingleTenantVars []Var `yaml:"single_tenant_deploy_vars,omitempty" json:"single_tenant_deploy_vars,omitempty"`
	CustomerVars     []Var `yaml:"customer_deploy_vars,omitempty" json:"customer_deploy_vars,omitempty"`
	// Artifacts are the artifacts in the manifest's order (in the YAML,
	// "artifacts" maps each type to its list).
	Artifacts []Artifact `yaml:"-" json:"artifacts"`
}

// ContextVars are the variables the fabric fills, seen by every
// artifact: the tenant, the site and (for customer artifacts) the
// customer tag.
var ContextVars = []string{"tenant", "site", "customer_tag"}

// Pack is a pack read and checked: its manifest and its files.
type Pack struct {
	// Manifest is the pack's manifest.yaml, parsed and checked.
	Manifest Manifest
	// files are the pack's files by path (relative to the pack's top,
	// slash-separated), manifest.yaml left out: it is Manifest.
	files map[string][]byte
}

// New returns the pack of a manifest and its files (by path relative to
// the pack's top, manifest.yaml left out), as stored, without checking
// it: call Check. The map is kept, not copied.
func New(m Manifest, files map[string][]byte) *Pack {
	if files == nil {
		files = map[string][]byte{}
	}
	return &Pack{Manifest: m, files: files}
}

// File returns the content of the pack's file at path (relative to the
// pack's top) and whether there is one. manifest.yaml is not a file of
// the pack: it is p.Manifest.
func (p *Pack) File(path string) ([]byte, bool) {
	data, ok := p.files[path]
	return data, ok
}

// Paths returns the paths of the pack's files, sorted (manifest.yaml
// left out).
func (p *Pack) Paths() []string {
	paths := make([]string, 0, len(p.files))
	for path := range p.files {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	return paths
}
