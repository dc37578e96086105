package artifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/fabricops/fabric/fabric/lib/cfxql"
	"github.com/fabricops/fabric/fabric/lib/probes"
)

// Severities are the severities an alert rule may have.
var Severities = []string{"CRITICAL", "MAJOR", "MINOR", "WARNING", "INFO"}

// AlertRules is the alert ruleset kind (SPEC 2.3): realtime and aggregate
// rules, each a CFXQL condition with a severity.
var AlertRules = &Kind{
	Name:   "alert ruleset",
	Bucket: "fabric_art_alert_rules",
	Key:    "name",
	YAML:   true,
	Schema: `{
	"type": "object",
	"required": ["name"],
	"properties": {
		"name": {"type": "string"},
		"description": {"type": "string"},
		"realtime-alerts": {"type": "array", "items": {"$ref": "#/$defs/rule"}},
		"aggregate-alerts": {"type": "array", "items": {"$ref": "#/$defs/rule"}}
	},
	"$defs": {"rule": {
		"type": "object",
		"required": ["name", "condition", "severity"],
		"properties": {
			"name": {"type": "string", "minLength": 1},
			"description": {"type": "string"},
			"groupBy": {"type": ["string", "array"]},
			"condition": {"type": "string"},
			"severity": {"enum": ["CRITICAL", "MAJOR", "MINOR", "WARNING", "INFO"]},
			"suppress-for-minutes": {"type": "integer", "minimum": 0}
		}
	}}
}`,
	Check:   checkRules,
	Columns: []string{"name", "description", "saved_time", "num_realtime_alert_rules", "num_aggr_alert_rules"},
	Row: func(d *Doc) map[string]any {
		return map[string]any{"num_realtime_alert_rules": len(rules(d, "realtime-alerts")),
			"num_aggr_alert_rules": len(rules(d, "aggregate-alerts"))}
	},
}

// rule is what the store reads of an alert rule.
type rule struct {
	Name      string `json:"name"`
	Condition string `json:"condition"`
}

func rules(d *Doc, key string) []rule {
	var rs []rule
	if raw := d.Raw(key); raw != nil {
		_ = json.Unmarshal(raw, &rs)
	}
	return rs
}

// checkRules parses every rule's condition; the error names the list,
// the rule and the column of the mistake.
func checkRules(_ context.Context, _ *Repo, d *Doc) error {
	for _, list := range []string{"realtime-alerts", "aggregate-alerts"} {
		seen := map[string]bool{}
		for i, r := range rules(d, list) {
			if seen[r.Name] {
				return fmt.Errorf("%s[%d]: a second rule named %q", list, i, r.Name)
			}
			seen[r.Name] = true
			if _, err := cfxql.Parse(r.Condition); err != nil {
				return fmt.Errorf("%s[%d] (%s): condition: %v", list, i, r.Name, err)
			}
		}
	}
	return nil
}

// Dashboard is the dashboard kind (SPEC 2.4).
var Dashboard = &Kind{
	Name:   "dashboard",
	Bucket: "fabric_art_dashboards",
	Key:    "name",
	YAML:   true,
	Toggle: true,
	Schema: `{
	"type": "object",
	"required": ["name"],
	"properties": {
		"name": {"type": "string"},
		"label": {"type": "string"},
		"description": {"type": "string"},
		"enabled": {"type": "boolean"},
		"dashboard_type": {"enum": ["dashboard", "template", "app"]},
		"dashboard_style": {"type": "string"},
		"dashboard_filters": {"type": "object", "properties": {
			"time_filter": {"type": "boolean"},
			"columns_filter": {"type": "array"},
			"group_filters": {"type": "array"}
		}},
		"debug": {"type": "boolean"},
		"dashboard_sections": {"type": "array", "items": {
			"type": "object",
			"properties": {
				"title": {"type": "string"},
				"show_filter": {"type": "boolean"},
				"widgets": {"type": "array", "items": {"$ref": "#/$defs/widget"}}
			}
		}},
		"dashboard_pages": {"type": "array", "items": {
			"type": "object",
			"required": ["name"],
			"properties": {"name": {"type": "string", "minLength": 1}, "label": {"type": "string"}}
		}},
		"app": {"type": "string"}
	},
	"$defs": {"widget": {
		"type": "object",
		"required": ["widget_type"],
		"properties": {
			"widget_type": {"type": "string", "minLength": 1},
			"title": {"type": "string"},
			"stream": {"type": "string"},
			"duration_hours": {"type": "integer"},
			"synchronized-group": {"type": "integer"},
			"downsample-to-percent": {"type": "integer"},
			"downsample-limit-rows": {"type": "integer"},
			"show-markers": {"type": "boolean"},
			"downsample": {"type": "boolean"},
			"markers-def": {"type": "array", "items": {
				"type": "object",
				"properties": {"message": {"type": "string"}, "color": {"type": "string"}, "timestamp": {"type": "number"}}
			}}
		}
	}}
}`,
	Parts: func(d *Doc) []string {
		var pages []struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(d.Raw("dashboard_pages"), &pages)
		var names []string
		for _, p := range pages {
			names = append(names, p.Name)
		}
		return names
	},
	Owner:   func(d *Doc) string { s, _ := d.String("app"); return s },
	Columns: []string{"name", "dashboard_type", "label", "description", "enabled", "saved_time"},
	Row: func(d *Doc) map[string]any {
		if t, ok := d.String("dashboard_type"); ok {
			return map[string]any{"dashboard_type": t}
		}
		return map[string]any{"dashboard_type": "dashboard"}
	},
}

// DashGroup is the dashboard group kind (SPEC 2.5): every dashboard of
// its dashboardList must exist.
var DashGroup = &Kind{
	Name:   "dashboard group",
	Bucket: "fabric_art_dashgroups",
	Key:    "name",
	Toggle: true,
	Schema: `{
	"type": "object",
	"required": ["name"],
	"properties": {
		"name": {"type": "string"},
		"label": {"type": "string"},
		"description": {"type": "string"},
		"users": {"type": "string"},
		"enabled": {"type": "boolean"},
		"dashboardList": {"type": "array", "items": {
			"type": "object",
			"required": ["name"],
			"properties": {"id": {"type": "string"}, "name": {"type": "string"}}
		}}
	}
}`,
	Check: func(ctx context.Context, r *Repo, d *Doc) error {
		var list []struct {
			Name string `json:"name"`
		}
		if raw := d.Raw("dashboardList"); raw != nil {
			_ = json.Unmarshal(raw, &list)
		}
		for i, item := range list {
			if ok, err := r.has(ctx, Dashboard, item.Name); err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("dashboardList[%d]: no dashboard named %q", i, item.Name)
			}
		}
		return nil
	},
	Columns: []string{"name", "label", "description", "enabled", "saved_time"},
}

// Kinds are the declared kinds, by the name of their Starlark module.
var Kinds = map[string]*Kind{
	"alert_rules":    AlertRules,
	"dashboard":      Dashboard,
	"dashgroup":      DashGroup,
	"stack":          Stack,
	"site_profile":   SiteProfile,
	"synthetics":     Synthetics,
	"fmt_template":   FmtTemplate,
	"staging_area":   StagingArea,
	"subscription":   Subscription,
	"event_endpoint": EventEndpoint,
	"deployment":     Deployment,
	"schedule":       Schedule,
}

// Stack is a stack kind: the components a synthetic profile exercises.
var Stack = &Kind{
	Name:   "stack",
	Bucket: "fabric_art_stacks",
	Key:    "name",
	YAML:   true,
	Schema: `{
	"type": "object",
	"required": ["name", "components"],
	"properties": {
		"name": {"type": "string"},
		"description": {"type": "string"},
		"version": {"type": "string"},
		"components": {"type": "array", "minItems": 1, "maxItems": ` + strconv.Itoa(probes.MaxChecks) + `, "items": {
			"type": "object",
			"required": ["name", "type"],
			"properties": {
				"name": {"type": "string", "minLength": 1},
				"type": {"type": "string", "minLength": 1},
				"host": {"type": "string"},
				"port": {"type": "integer", "minimum": 1, "maximum": 65535},
				"depends_on": {"type": "array", "items": {"type": "string"}}
			}
		}}
	}
}`,
	Check: func(_ context.Context, _ *Repo, d *Doc) error {
		var comps []struct {
			Name      string   `json:"name"`
			DependsOn []string `json:"depends_on"`
		}
		_ = json.Unmarshal(d.Raw("components"), &comps)
		names := map[string]bool{}
		for i, c := range comps {
			if names[c.Name] {
				return fmt.Errorf("components[%d]: a second component named %q", i, c.Name)
			}
			names[c.Name] = true
		}
		for i, c := range comps {
			for _, dep := range c.DependsOn {
				if !names[dep] {
					return fmt.Errorf("components[%d] (%s): depends_on names no component %q", i, c.Name, dep)
				}
			}
		}
		return nil
	},
	Columns: []string{"name", "description", "version", "num_components", "saved_time"},
	Row: func(d *Doc) map[string]any {
		var comps []json.RawMessage
		_ = json.Unmarshal(d.Raw("components"), &comps)
		return map[string]any{"num_components": len(comps)}
	},
}

// SiteProfile is the site profile kind: which sites (by name or regex)
// and worker labels a profile covers, and the capacity it expects.
var SiteProfile = &Kind{
	Name:   "site profile",
	Bucket: "fabric_art_site_profiles",
	Key:    "name",
	YAML:   true,
	Schema: `{
	"type": "object",
	"required": ["name", "sites"],
	"properties": {
		"name": {"type": "string"},
		"description": {"type": "string"},
		"sites": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
		"site_type": {"type": "string"},
		"labels": {"type": "object", "additionalProperties": {"type": "string"}},
		"max_cpu_percent": {"type": "number", "minimum": 0, "maximum": 100},
		"min_workers": {"type": "integer", "minimum": 0}
	}
}`,
	Columns: []string{"name", "description", "site_type", "sites", "saved_time"},
}

// Synthetics is the synthetic profile kind: probes (http, tcp, tls) of
// a stack's components or of targets of their own, run on an interval
// (or a cron schedule) by workers of the profile's sites (package
// probes).
var Synthetics = &Kind{
	Name:   "synthetic profile",
	Bucket: "fabric_art_synthetics",
	Key:    "name",
	YAML:   true,
	Toggle: true,
	Schema: `{
	"type": "object",
	"required": ["name", "stack", "probes"],
	"properties": {
		"name": {"type": "string"},
		"description": {"type": "string"},
		"stack": {"type": "string", "minLength": 1},
		"schedule": {"type": "string"},
		"sites": {"type": "array", "items": {"type": "string", "minLength": 1}},
		"site_profile": {"type": "string"},
		"enabled": {"type": "boolean"},
		"probes": {"type": "array", "minItems": 1, "maxItems": ` + strconv.Itoa(probes.MaxProbes) + `, "items": {
			"type": "object",
			"required": ["name", "type"],
			"properties": {
				"name": {"type": "string", "minLength": 1},
				"type": {"enum": ["http", "tcp", "tls"]},
				"target": {"type": "string"},
				"component": {"type": "string"},
				"scheme": {"enum": ["http", "https"]},
				"path": {"type": "string"},
				"method": {"enum": ["GET", "HEAD", "get", "head"]},
				"expect_status": {"type": "array", "items": {"type": "integer"}},
				"body_regex": {"type": "string"},
				"max_latency_ms": {"type": "integer", "minimum": 0},
				"warn_days": {"type": "integer", "minimum": 0},
				"insecure": {"type": "boolean"},
				"interval_seconds": {"type": "integer", "minimum": ` + strconv.Itoa(int(probes.MinInterval.Seconds())) + `, "maximum": ` + strconv.Itoa(int(probes.MaxInterval.Seconds())) + `},
				"timeout_seconds": {"type": "integer", "minimum": 1, "maximum": ` + strconv.Itoa(int(probes.MaxTimeout.Seconds())) + `}
			}
		}}
	}
}`,
	Check: func(ctx context.Context, r *Repo, d *Doc) error {
		name, _ := d.String("stack")
		st, err := r.Get(ctx, Stack, name)
		if errors.Is(err, ErrNotFound) && r.Pending != nil && r.Pending(Stack, name) {
			return nil // written by the same transaction: checked with it
		}
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("stack: no stack named %q", name)
		}
		if err != nil {
			return err
		}
		if sp, ok := d.String("site_profile"); ok && sp != "" {
			if ok, err := r.has(ctx, SiteProfile, sp); err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("site_profile: no site profile named %q", sp)
			}
		}
		p, err := probes.ParseProfile(d.JSON())
		if err != nil {
			return err
		}
		stack, err := probes.ParseStack(st.Doc.JSON())
		if err != nil {
			return err
		}
		_, err = p.Checks(stack)
		return err
	},
	Columns: []string{"name", "description", "stack", "schedule", "enabled", "saved_time"},
}

// FmtTemplate is the formatting template kind: how notifications and
// reports render rows.
var FmtTemplate = &Kind{
	Name:   "formatting template",
	Bucket: "fabric_art_fmt_templates",
	Key:    "name",
	YAML:   true,
	Schema: `{
	"type": "object",
	"required": ["name", "format", "template"],
	"properties": {
		"name": {"type": "string"},
		"description": {"type": "string"},
		"format": {"enum": ["text", "html", "markdown", "json"]},
		"template": {"type": "string", "minLength": 1}
	}
}`,
	Columns: []string{"name", "description", "format", "saved_time"},
}

// StagingArea is the staging area kind: where files land before they
// become a dataset.
var StagingArea = &Kind{
	Name:   "staging area",
	Bucket: "fabric_art_staging_areas",
	Key:    "name",
	YAML:   true,
	Schema: `{
	"type": "object",
	"required": ["name", "folder"],
	"properties": {
		"name": {"type": "string"},
		"description": {"type": "string"},
		"folder": {"type": "string", "minLength": 1},
		"dataset": {"type": "string"},
		"format": {"enum": ["csv", "json", "jsonl", "parquet", "xlsx"]},
		"retention_days": {"type": "integer", "minimum": 1}
	}
}`,
	Columns: []string{"name", "description", "folder", "dataset", "retention_days", "saved_time"},
}

// Subscription is the subscription kind: the rows of a stream matching a
// CFXQL filter, delivered to a target (a webhook or one of the tenant's
// streams; package subscription checks it, and the leading scheduler's
// deliverer delivers; CheckSubscriptionTarget says what a target may be).
var Subscription = &Kind{
	Name:   "subscription",
	Bucket: "fabric_art_subscriptions",
	Key:    "name",
	YAML:   true,
	Toggle: true,
	Schema: `{
	"type": "object",
	"required": ["name", "stream", "target"],
	"properties": {
		"name": {"type": "string"},
		"description": {"type": "string"},
		"stream": {"type": "string", "minLength": 1},
		"filter": {"type": "string"},
		"enabled": {"type": "boolean"},
		"target": {
			"type": "object",
			"required": ["type"],
			"properties": {
				"type": {"enum": ["webhook", "email", "stream"]},
				"url": {"type": "string"},
				"to": {"type": "array", "items": {"type": "string"}},
				"stream": {"type": "string"},
				"template": {"type": "string"},
				"secret": {"type": "string"},
				"ca": {"type": "string"}
			}
		}
	}
}`,
	Check: func(_ context.Context, _ *Repo, d *Doc) error {
		if f, ok := d.String("filter"); ok && f != "" {
			if _, err := cfxql.Parse(f); err != nil {
				return fmt.Errorf("filter: %v", err)
			}
		}
		var t SubscriptionTarget
		if err := json.Unmarshal(d.Raw("target"), &t); err != nil {
			return fmt.Errorf("target: %v", err)
		}
		src, _ := d.String("stream")
		return CheckSubscriptionTarget(t, src)
	},
	Columns: []string{"name", "description", "stream", "filter", "enabled", "saved_time"},
}
