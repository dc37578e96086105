// Package blueprint reads deployments (service blueprints, SPEC 2.8):
// which pipelines run, how many instances, on which sites, which on a
// cron. It checks them, works out what they depend on (pipelines,
// datasets, streams), draws their map and audits them against a fabric
// (Lookup). It knows nothing of NATS: the shell and the controller give
// it what they read.
//
// It is part of the protocol's layer (fabric/infra), not a pure library:
// it resolves entries against the stored pipeline records (api.Pipeline
// versions) and names the streams the fabric itself writes, and only
// packages of both stacks above the protocol use it.
package blueprint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Blueprint is a deployment as written (SPEC 2.8).
type Blueprint struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Version     Text           `json:"version,omitempty"`
	Category    string         `json:"category,omitempty"`
	Comment     string         `json:"comment,omitempty"`
	Description string         `json:"description,omitempty"`
	Enabled     *bool          `json:"enabled,omitempty"`
	AutoDeploy  bool           `json:"auto_deploy,omitempty"`
	Type        string         `json:"type,omitempty"`
	Provider    string         `json:"provider,omitempty"`
	Attrs       map[string]any `json:"attrs,omitempty"`
	Service     []Entry        `json:"service_pipelines,omitempty"`
	Action      []Entry        `json:"action_pipelines,omitempty"`
	Scheduled   []Entry        `json:"scheduled_pipelines,omitempty"`
}

// Text is a string that may be written as a number (version: 1.0).
type Text string

// UnmarshalJSON reads a string, or a number as written.
func (t *Text) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] != '"' {
		var n json.Number
		if err := json.Unmarshal(data, &n); err != nil {
			return err
		}
		*t = Text(n)
		return nil
	}
	var s string
	err := json.Unmarshal(data, &s)
	*t = Text(s)
	return err
}

// Entry is a pipeline a blueprint runs.
type Entry struct {
	Name    string `json:"name"`
	Label   string `json:"label,omitempty"`
	Version Text   `json:"version,omitempty"` // "*" or "": the latest published; else YYYY_MM_DD_N
	Site    string `json:"site,omitempty"`
	// SiteType says how Site reads: "regex" (the default) or "name".
	SiteType string `json:"site_type,omitempty"`
	// Instances is how many jobs of a service pipeline run (default 1).
	Instances     int            `json:"instances,omitempty"`
	ScalingPolicy *ScalingPolicy `json:"scaling_policy,omitempty"`
	// Cron is a scheduled pipeline's five-field cron expression.
	Cron string `json:"cron_expression,omitempty"`
}

// ScalingPolicy bounds a service pipeline's instances.
type ScalingPolicy struct {
	MinInstances int `json:"min_instances"`
	MaxInstances int `json:"max_instances"`
}

// Kinds of entries.
const (
	KindService   = "service"
	KindAction    = "action"
	KindScheduled = "scheduled"
)

// Listed is an entry with its kind.
type Listed struct {
	Kind string
	Entry
}

// Entries returns every entry, services first, then scheduled, then
// actions.
func (b *Blueprint) Entries() []Listed {
	var out []Listed
	for _, g := range []struct {
		kind string
		es   []Entry
	}{{KindService, b.Service}, {KindScheduled, b.Scheduled}, {KindAction, b.Action}} {
		for _, e := range g.es {
			out = append(out, Listed{g.kind, e})
		}
	}
	return out
}

// IsEnabled reports whether the blueprint is enabled (true unless it
// says otherwise).
func (b *Blueprint) IsEnabled() bool { return b.Enabled == nil || *b.Enabled }

// Text is the blueprint's description: its description, or its comment.
func (b *Blueprint) Text() string {
	if b.Description != "" {
		return b.Description
	}
	return b.Comment
}

// AnyVersion reports whether an entry takes the latest published version.
func (e Entry) AnyVersion() bool { return e.Version == "" || e.Version == "*" }

// versionPattern is a pipeline version: YYYY_MM_DD_N.
var versionPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}_\d{2}_\d{2}_\d+$`) })

// numberPattern is a JSON number: what an unquoted YAML version becomes
// (strconv.ParseFloat would also take 2024_1_31_1, inf or 0x1p3).
var numberPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$`) })

// Want is how many instances of a service entry should run: instances
// (default 1) within the scaling policy.
func (e Entry) Want() int {
	n := e.Instances
	if n <= 0 {
		n = 1
	}
	if p := e.ScalingPolicy; p != nil {
		if p.MinInstances > 0 && n < p.MinInstances {
			n = p.MinInstances
		}
		if p.MaxInstances > 0 && n > p.MaxInstances {
			n = p.MaxInstances
		}
	}
	return n
}

// Key is the entry's label, or its pipeline's name.
func (e Entry) Key() string {
	if e.Label != "" {
		return e.Label
	}
	return e.Name
}

// SiteMatcher returns what tells whether a site name is one of the
// entry's: any site when the entry names none.
func (e Entry) SiteMatcher() (func(site string) bool, error) {
	switch {
	case e.Site == "" || e.Site == "*":
		return func(string) bool { return true }, nil
	case e.SiteType == "name":
		return func(s string) bool { return strings.EqualFold(s, e.Site) }, nil
	case e.SiteType != "" && e.SiteType != "regex":
		return nil, fmt.Errorf("site_type is regex or name, not %q", e.SiteType)
	}
	re, err := regexp.Compile(e.Site)
	if err != nil {
		return nil, fmt.Errorf("site %q is not a regular expression: %v", e.Site, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	// Anchored without rewriting the text ("^(?:" + site + ")$" breaks
	// on \Q quoting to the end and on sites nested just short of the
	// limit): the whole name matches iff the leftmost-longest match is
	// the whole name.
	re.Longest()
	return func(s string) bool {
		m := re.FindStringIndex(s)
		return m != nil && m[0] == 0 && m[1] == len(s)
	}, nil
}

// Parse reads a blueprint from its JSON (an artifact's document) and
// checks it.
func Parse(doc []byte) (*Blueprint, error) {
	var b Blueprint
	if err := json.Unmarshal(doc, &b); err != nil {
		return nil, err
	}
	return &b, b.Check()
}

// Check checks what a schema cannot: labels unique, sites that read,
// instances within the scaling policy, cron expressions that parse.
func (b *Blueprint) Check() error {
	if strings.TrimSpace(b.ID) == "" {
		return fmt.Errorf("id: empty")
	}
	seen := map[string]string{}
	for _, g := range []struct {
		field string
		es    []Entry
	}{{"service_pipelines", b.Service}, {"scheduled_pipelines", b.Scheduled}, {"action_pipelines", b.Action}} {
		for i, e := range g.es {
			at := fmt.Sprintf("%s[%d]", g.field, i)
			if strings.TrimSpace(e.Name) == "" {
				return fmt.Errorf("%s.name: empty", at)
			}
			if other, ok := seen[e.Key()]; ok {
				return fmt.Errorf("%s: label %q is also %s's (give each entry its own label)", at, e.Key(), other)
			}
			seen[e.Key()] = at
			if _, err := e.SiteMatcher(); err != nil {
				return fmt.Errorf("%s: %v", at, err)
			}
			if p := e.ScalingPolicy; p != nil {
				if p.MinInstances < 0 || p.MaxInstances < 0 || p.MaxInstances > 0 && p.MinInstances > p.MaxInstances {
					return fmt.Errorf("%s.scaling_policy: min_instances %d and max_instances %d do not make a range", at, p.MinInstances, p.MaxInstances)
				}
			}
			if !e.AnyVersion() && !versionPattern().MatchString(string(e.Version)) {
				if numberPattern().MatchString(string(e.Version)) {
					return fmt.Errorf("%s.version: %s is a number: write the version in quotes (YAML reads 2020_01_31_1 unquoted as the number 202001311)", at, e.Version)
				}
				return fmt.Errorf("%s.version: %q is not a pipeline version (YYYY_MM_DD_N, or * for the latest published)", at, e.Version)
			}
			if e.Instances < 0 {
				return fmt.Errorf("%s.instances: %d is below 0", at, e.Instances)
			}
			switch {
			case g.field == "scheduled_pipelines" && e.Cron == "":
				return fmt.Errorf("%s.cron_expression: a scheduled pipeline needs one", at)
			case e.Cron != "":
				if g.field != "scheduled_pipelines" {
					return fmt.Errorf("%s.cron_expression: only scheduled pipelines run on a cron", at)
				}
				if _, err := ParseCron(e.Cron); err != nil {
					return fmt.Errorf("%s.cron_expression: %v", at, err)
				}
			}
		}
	}
	return nil
}
