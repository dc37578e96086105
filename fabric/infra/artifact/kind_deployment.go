package artifact

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/pipeline"
)

// Deployment is the kind of deployments (service blueprints, SPEC 2.8):
// which pipelines run, how many instances, on which sites, which on a
// cron. The leading scheduler's controller keeps the enabled ones
// running. Records are named by id.
var Deployment = &Kind{
	Name:   "deployment",
	Bucket: "fabric_art_deployments",
	Key:    "id",
	YAML:   true,
	Toggle: true,
	Schema: `{
	"type": "object",
	"required": ["id", "name"],
	"properties": {
		"id": {"type": "string", "minLength": 1, "maxLength": 128},
		"name": {"type": "string", "minLength": 1},
		"version": {"type": ["string", "number"]},
		"category": {"type": "string"},
		"comment": {"type": "string"},
		"description": {"type": "string"},
		"enabled": {"type": "boolean"},
		"auto_deploy": {"type": "boolean"},
		"type": {"type": "string"},
		"provider": {"type": "string"},
		"attrs": {"type": "object"},
		"service_pipelines": {"$ref": "#/$defs/entries"},
		"action_pipelines": {"$ref": "#/$defs/entries"},
		"scheduled_pipelines": {"$ref": "#/$defs/entries"}
	},
	"$defs": {
		"entries": {"type": "array", "items": {
			"type": "object",
			"required": ["name"],
			"properties": {
				"name": {"type": "string", "minLength": 1},
				"label": {"type": "string"},
				"version": {"type": ["string", "number"]},
				"site": {"type": "string"},
				"site_type": {"enum": ["regex", "name"]},
				"instances": {"type": "integer", "minimum": 0, "maximum": 1000},
				"scaling_policy": {"type": "object", "properties": {
					"min_instances": {"type": "integer", "minimum": 0},
					"max_instances": {"type": "integer", "minimum": 0}
				}},
				"cron_expression": {"type": "string"}
			}
		}}
	}
}`,
	Check: func(ctx context.Context, r *Repo, d *Doc) error {
		b, err := blueprint.Parse(d.JSON())
		if err != nil {
			return err
		}
		// Each entry names a pipeline of the tenant (its version may come
		// later: the audit reports a missing one).
		exists := pipelineNames(ctx, r)
		for i, e := range b.Entries() {
			if ok, err := exists(e.Name); err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("%s_pipelines[%d]: no pipeline named %q", e.Kind, entryIndex(b, i), e.Name)
			}
		}
		return nil
	},
	Columns: []string{"id", "category", "name", "description", "enabled", "saved_time"},
}

// entryIndex is the index, within its list, of the i-th entry of
// b.Entries().
func entryIndex(b *blueprint.Blueprint, i int) int {
	es := b.Entries()
	n := 0
	for j := 0; j < i; j++ {
		if es[j].Kind == es[i].Kind {
			n++
		}
	}
	return n
}

// pipelineNames returns what tells whether a pipeline of a name exists
// (in any version), or is pending: each name is looked up once, by the
// keys of its versions alone (not every pipeline's keys).
func pipelineNames(ctx context.Context, r *Repo) func(name string) (bool, error) {
	known := map[string]bool{}
	return func(name string) (bool, error) {
		if r.Pending != nil && r.Pending(nil, name) {
			return true, nil
		}
		if ok, seen := known[name]; seen {
			return ok, nil
		}
		keys, err := r.Store.KeysMatching(ctx, api.PipelinesBucket, store.Key(name)+".*")
		if err != nil {
			return false, err
		}
		prefix := store.Key(name) + "."
		known[name] = slices.ContainsFunc(keys, func(k string) bool {
			_, _, isVersion := pipeline.ParseVersion(strings.TrimPrefix(k, prefix))
			return isVersion
		})
		return known[name], nil
	}
}

// DeploymentsRunning names the enabled deployments (as "deployment ID",
// sorted) whose service, action or scheduled pipelines are among
// pipelines: those a change to the pipelines' bots would stop.
func DeploymentsRunning(ctx context.Context, st *store.Store, pipelines map[string]bool) ([]string, error) {
	deps, err := (&Repo{Store: st}).List(ctx, Deployment)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var named []string
	for _, d := range deps {
		enabled := true
		_ = json.Unmarshal(d.Doc.Raw("enabled"), &enabled)
		if !enabled {
			continue
		}
		id, _ := d.Doc.String("id")
		for _, field := range []string{"service_pipelines", "action_pipelines", "scheduled_pipelines"} {
			var entries []struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(d.Doc.Raw(field), &entries)
			for _, e := range entries {
				if pipelines[e.Name] && !seen[id] {
					seen[id] = true
					named = append(named, "deployment "+id)
				}
			}
		}
	}
	sort.Strings(named)
	return named, nil
}
