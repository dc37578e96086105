package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// scheduleFields are the fields edit changes, by keyword.
var scheduleFields = []string{"pipeline", "version", "cron_expression", "timezone", "site", "site_type", "lfilter", "rfilter", "description"}

// scheduleFunctions are info, update_status and edit of the schedule
// module.
func (e *Env) scheduleFunctions() starlark.StringDict {
	return starlark.StringDict{
		"info": doc.Builtin("schedule.info", `info(name, next=5)

Returns a schedule as a dict: its fields (status enabled, paused or
disabled; timezone UTC unless given), next_runs (the next times it runs,
in its time zone; none unless enabled) and last_runs (the newest first:
time, jobid, status and reason of each job it started).`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var name string
				next := 5
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "next?", &next); err != nil {
					return nil, err
				}
				if next < 0 || next > 100 {
					return nil, fmt.Errorf("%s: next is from 0 to 100, not %d", b.Name(), next)
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
					info, err := c.ScheduleInfo(ctx, name, next)
					if err != nil {
						return nil, err
					}
					return scheduleInfoValue(info)
				})
			}),
		"update_status": doc.Builtin("schedule.update_status", `update_status(name, status)

Sets a schedule's status: enabled (it runs), paused (it does not, and
does not catch up when enabled again) or disabled. Returns the status it
had.`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var name, status string
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "status", &status); err != nil {
					return nil, err
				}
				if !slices.Contains(client.ScheduleStatuses, status) {
					return nil, fmt.Errorf("%s: status is one of %s, not %q", b.Name(), strings.Join(client.ScheduleStatuses, ", "), status)
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
					var was string
					err := editSchedule(ctx, c, name, func(m map[string]any) {
						was, _ = m["status"].(string)
						if was == "" {
							was = client.ScheduleEnabled
						}
						m["status"] = status
					})
					return was, err
				})
			}),
		"edit": doc.Builtin("schedule.edit", `edit(name, pipeline=None, version=None, cron_expression=None, timezone=None, site=None, site_type=None, lfilter=None, rfilter=None, description=None)

Changes the fields given of a schedule (an empty string removes an
optional one); the schedule is checked again as add checks it. Returns
its list row.`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var name string
				vals := make([]optString, len(scheduleFields))
				pairs := []any{"name", &name}
				for i, f := range scheduleFields {
					pairs = append(pairs, f+"?", &vals[i])
				}
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
					return nil, err
				}
				given := map[string]string{}
				for _, kv := range kwargs {
					k := string(kv[0].(starlark.String))
					if i := slices.Index(scheduleFields, k); i >= 0 {
						given[k] = string(vals[i])
					}
				}
				if len(given) == 0 {
					return nil, fmt.Errorf("%s: nothing to change: give one of %s", b.Name(), strings.Join(scheduleFields, ", "))
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
					err := editSchedule(ctx, c, name, func(m map[string]any) {
						for k, v := range given {
							if v == "" && k != "pipeline" && k != "cron_expression" {
								delete(m, k)
							} else {
								m[k] = v
							}
						}
					})
					if err != nil {
						return nil, err
					}
					r, err := artifactRepo(ctx, c)
					if err != nil {
						return nil, err
					}
					rec, err := r.Get(ctx, client.ScheduleKind, name)
					if err != nil {
						return nil, err
					}
					return rowValue(client.ScheduleKind, r.Row(client.ScheduleKind, rec))
				})
			}),
	}
}

// editSchedule changes a schedule's document with fn and stores it
// again, checked as add checks it.
func editSchedule(ctx context.Context, c *client.Client, name string, fn func(map[string]any)) error {
	r, err := artifactRepo(ctx, c)
	if err != nil {
		return err
	}
	text, err := r.GetJSON(ctx, client.ScheduleKind, name)
	if err != nil {
		return err
	}
	m := map[string]any{}
	if err := json.Unmarshal(text, &m); err != nil {
		return fmt.Errorf("the record of schedule %q is corrupt: %v", name, err)
	}
	delete(m, "saved_time")
	fn(m)
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = r.Add(ctx, client.ScheduleKind, data, true)
	return err
}

// scheduleInfoValue is what schedule.info returns.
func scheduleInfoValue(info *client.ScheduleInfo) (any, error) {
	s := info.Schedule
	loc, _ := s.Location()
	next := []string{}
	for _, t := range info.Next {
		next = append(next, t.In(loc).Format(time.RFC3339))
	}
	last := []map[string]any{}
	for _, r := range info.Last {
		last = append(last, map[string]any{"time": api.Timestamp(r.Time), "jobid": r.JobID, "status": r.Status, "reason": r.Reason})
	}
	version := string(s.Version)
	if version == "" {
		version = "*"
	}
	tz := s.Timezone
	if tz == "" {
		tz = "UTC"
	}
	return map[string]any{"name": s.Name, "pipeline": s.Pipeline, "version": version, "cron_expression": s.Cron,
		"timezone": tz, "site": s.Site, "lfilter": s.LFilter, "rfilter": s.RFilter, "status": s.Status,
		"description": s.Description, "next_runs": next, "last_runs": last}, nil
}
