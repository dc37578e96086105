package artifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fabricops/fabric/fabric/lib/cfxql"
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

// RuleNames returns the document with each rule list replaced by the
// rules' names, as get prints a ruleset (SPEC 2.3).
func RuleNames(d *Doc) *Doc {
	out := &Doc{vals: map[string]json.RawMessage{}}
	for _, k := range d.Keys() {
		raw := d.Raw(k)
		if k == "realtime-alerts" || k == "aggregate-alerts" {
			names := []string{}
			for _, r := range rules(d, k) {
				names = append(names, r.Name)
			}
			raw, _ = json.Marshal(names)
		}
		out.Set(k, raw)
	}
	return out
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
		"dashboard_pages": {"type": "array"}
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
			if _, err := r.Get(ctx, Dashboard, item.Name); errors.Is(err, ErrNotFound) {
				return fmt.Errorf("dashboardList[%d]: no dashboard named %q", i, item.Name)
			} else if err != nil {
				return err
			}
		}
		return nil
	},
	Columns: []string{"name", "label", "description", "enabled", "saved_time"},
}

// Kinds are the declared kinds, by the name of their Starlark module.
var Kinds = map[string]*Kind{
	"alert_rules": AlertRules,
	"dashboard":   Dashboard,
	"dashgroup":   DashGroup,
}
