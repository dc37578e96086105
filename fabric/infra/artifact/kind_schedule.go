package artifact

import (
	"context"
	"fmt"

	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/lib/cfxql"
)

// Schedule is the kind of standalone schedules (schedule-add): a
// pipeline run on a five-field cron in a time zone, with a site and
// filters, enabled, paused or disabled. The leading scheduler's
// controller runs them. Records are named by name.
var Schedule = &Kind{
	Name:   "schedule",
	Bucket: "fabric_art_schedules",
	Key:    "name",
	YAML:   true,
	Schema: `{
	"type": "object",
	"required": ["name", "pipeline", "cron_expression"],
	"properties": {
		"name": {"type": "string", "minLength": 1, "maxLength": 128},
		"pipeline": {"type": "string", "minLength": 1},
		"version": {"type": ["string", "number"]},
		"cron_expression": {"type": "string"},
		"timezone": {"type": "string"},
		"site": {"type": "string"},
		"site_type": {"enum": ["regex", "name"]},
		"lfilter": {"type": "string"},
		"rfilter": {"type": "string"},
		"status": {"enum": ["enabled", "paused", "disabled"]},
		"description": {"type": "string"}
	}
}`,
	Check: func(ctx context.Context, r *Repo, d *Doc) error {
		s, err := blueprint.ParseSchedule(d.JSON())
		if err != nil {
			return err
		}
		for _, f := range []struct{ field, q string }{{"lfilter", s.LFilter}, {"rfilter", s.RFilter}} {
			if f.q == "" {
				continue
			}
			if _, err := cfxql.Parse(f.q); err != nil {
				return fmt.Errorf("%s: %v", f.field, err)
			}
		}
		exists := pipelineNames(ctx, r)
		if ok, err := exists(s.Pipeline); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("pipeline: no pipeline named %q", s.Pipeline)
		}
		return nil
	},
	Columns: []string{"name", "pipeline", "version", "cron_expression", "timezone", "site", "status", "saved_time"},
	Row: func(d *Doc) map[string]any {
		row := map[string]any{}
		if d.Raw("status") == nil {
			row["status"] = blueprint.ScheduleEnabled
		}
		if d.Raw("timezone") == nil {
			row["timezone"] = "UTC"
		}
		if d.Raw("version") == nil {
			row["version"] = "*"
		}
		if d.Raw("site") == nil {
			row["site"] = ""
		}
		return row
	},
}
