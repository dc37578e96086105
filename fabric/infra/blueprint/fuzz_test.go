package blueprint

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
)

// fuzzFrom is the fixed time the fuzz tests ask crons about.
var fuzzFrom = time.Date(2024, 3, 31, 0, 30, 15, 500, time.UTC)

// FuzzParse checks that Parse and Check never panic on any bytes, that a
// blueprint they accept has working site matchers and crons, prints back
// to a document they accept again unchanged, and goes through the
// analyses (resolve, dependencies, audit, map) without a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"id": "d"}`,
		`{"id": "d", "name": "D", "version": 1.0, "enabled": false, "attrs": {"a": [1, "x", null]},
		  "service_pipelines": [{"name": "a", "label": "a1", "version": "2024_01_31_1", "site": "loc.*",
		    "instances": 2, "scaling_policy": {"min_instances": 1, "max_instances": 4}}],
		  "action_pipelines": [{"name": "b", "site": "Edge", "site_type": "name"}],
		  "scheduled_pipelines": [{"name": "c", "version": "*", "cron_expression": "0 2 * * *"}]}`,
		`{"id": "d", "scheduled_pipelines": [{"name": "c", "cron_expression": "CRON_TZ=Europe/Paris @daily"}]}`,
		`{"id": "d", "scheduled_pipelines": [{"name": "c", "cron_expression": "TZ=UTC"}]}`,
		`{"id": "d", "service_pipelines": [{"name": "a", "version": 202001311}]}`,
		`{"id": "d", "service_pipelines": [{"name": "a"}, {"name": "a"}]}`,
		`{"id": "d", "service_pipelines": [{"name": "a", "site": "\\Qx"}]}`,
		`{"id": "d", "service_pipelines": [{"name": "a", "site": "(", "site_type": "glob"}]}`,
		`{"id": "d", "service_pipelines": [{"name": "a", "scaling_policy": {"min_instances": 5, "max_instances": 2}}]}`,
		`{"id": "d", "service_pipelines": [{"name": "a", "instances": -1, "cron_expression": "* * * * *"}]}`,
		`{"id": "", "version": true}`,
		`{`, `null`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		b, err := Parse(doc)
		if b == nil {
			if err == nil {
				t.Fatalf("Parse(%q): no blueprint and no error", doc)
			}
			return
		}
		if err != nil {
			if again := b.Check(); again == nil || again.Error() != err.Error() {
				t.Fatalf("Parse(%q): %v, then Check: %v", doc, err, again)
			}
			return
		}
		for _, e := range b.Entries() {
			match, err := e.SiteMatcher()
			if err != nil {
				t.Fatalf("Parse(%q) accepted entry %+v: SiteMatcher: %v", doc, e.Entry, err)
			}
			match(e.Site)
			match("local")
			if e.Want() < 1 {
				t.Fatalf("Parse(%q): entry %+v wants %d instances", doc, e.Entry, e.Want())
			}
			if e.Kind == KindScheduled {
				c, err := ParseCron(e.Cron)
				if err != nil {
					t.Fatalf("Parse(%q) accepted cron %q: %v", doc, e.Cron, err)
				}
				if next := c.Next(fuzzFrom); !next.IsZero() && !next.After(fuzzFrom) {
					t.Fatalf("cron %q: Next(%s) = %s", e.Cron, fuzzFrom, next)
				}
			}
		}

		// printed back, it reads the same
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", b, err)
		}
		b2, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) printed back as %s: %v", doc, out, err)
		}
		out2, err := json.Marshal(b2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("Parse(%q) printed back as\n%s\nthen\n%s (%v)", doc, out, out2, err)
		}

		// the analyses, against a fabric with a published version of
		// every other pipeline, using a stream and a dataset
		l := &fakeLookup{pipelines: map[string][]api.Pipeline{}, sites: []string{"local", "edge"},
			streams: map[string]bool{"s": true}, datasets: map[string]bool{}}
		for i, e := range b.Entries() {
			if i%2 == 0 {
				p := published(e.Name, "2024_01_01_1")
				p.Sources = map[string]api.PipelineSource{"s": {Type: "stream"}, "d": {Type: "dataset"}}
				p.Data.Sequence = []api.PipelineStep{{Tag: "@dm:save", Query: "name = 'x'"}, {Tag: "@dm:read-stream", Query: "name = 's'"}}
				l.pipelines[e.Name] = []api.Pipeline{p}
			}
		}
		rs, err := ResolveAll(context.Background(), l, b)
		if err != nil {
			t.Fatalf("ResolveAll: %v", err)
		}
		if len(rs) != len(b.Entries()) {
			t.Fatalf("ResolveAll: %d resolved of %d entries", len(rs), len(b.Entries()))
		}
		Dependencies(rs)
		if _, err := Audit(context.Background(), l, b, rs); err != nil {
			t.Fatalf("Audit: %v", err)
		}
		m := BuildMap(b, rs)
		if len(m.Data.Stack.Nodes) == 0 || m.Data.Stack.Nodes[0].ID != "deployment:"+b.ID {
			t.Fatalf("BuildMap: nodes %+v", m.Data.Stack.Nodes)
		}
	})
}

// FuzzParseCron checks that ParseCron never panics and that a cron it
// accepts runs after the time it is asked from (a cron that never runs
// is refused), its next runs in order.
func FuzzParseCron(f *testing.F) {
	for _, s := range []string{
		"* * * * *", "0 2 * * *", "*/15 8-18 * JAN-MAR mon-fri", "0 0 30 2 *", "5-1 * * * *", "*/0 * * * *",
		"@daily", "@every 90m", "@every 0s", "@every -1h", "@sometimes", "CRON_TZ=Europe/Paris 30 2 * * *",
		"TZ=America/New_York 0 1 * * SUN", "TZ=UTC", "CRON_TZ=", "TZ=../../etc/passwd * * * * *",
		"0 0 0 * * *", "", " ", "? ? ? ? ?", "1,2,3-5/2 * * * *",
		"0 0 29 2 *", "0 0 31 4,6,9,11 *", "0 0 30 2 1", "@hourly", "CRON_TZ=UTC @daily",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		c, err := ParseCron(expr)
		if err != nil {
			if c != nil {
				t.Fatalf("ParseCron(%q): a schedule with the error %v", expr, err)
			}
			return
		}
		if c == nil {
			t.Fatalf("ParseCron(%q): no schedule and no error", expr)
		}
		next := c.Next(fuzzFrom)
		if next.IsZero() {
			t.Fatalf("ParseCron(%q) accepts a cron that never runs", expr)
		}
		if !next.After(fuzzFrom) {
			t.Fatalf("ParseCron(%q).Next(%s) = %s, not after it", expr, fuzzFrom, next)
		}
		runs := NextRuns(c, fuzzFrom, 3)
		for i := 1; i < len(runs); i++ {
			if !runs[i].After(runs[i-1]) {
				t.Fatalf("ParseCron(%q): runs out of order: %v", expr, runs)
			}
		}
	})
}

// FuzzParseSchedule checks that ParseSchedule never panics and that a
// schedule it accepts has a status, a zone, a site matcher and a cron
// whose next runs come after the time asked, in order.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{
		`{"name": "n", "pipeline": "p", "cron_expression": "0 2 * * *", "timezone": "Europe/Paris"}`,
		`{"name": "n", "pipeline": "p", "version": "2024_01_31_1", "cron_expression": "@hourly", "status": "paused",
		  "site": "loc.*", "site_type": "regex", "lfilter": "a = 1"}`,
		`{"name": "n", "pipeline": "p", "cron_expression": "30 2 * * *", "timezone": "America/New_York", "site": "E", "site_type": "name"}`,
		`{"name": "n", "pipeline": "p", "cron_expression": "* * * * *", "timezone": "../../etc/passwd"}`,
		`{"name": "n", "pipeline": "p", "cron_expression": "* * * * *", "timezone": "Mars/Base"}`,
		`{"name": "n", "pipeline": "p", "cron_expression": "* * * * *", "version": 1.0}`,
		`{"name": "n", "pipeline": "p", "cron_expression": "* * * * *", "status": "running"}`,
		`{"name": "n", "pipeline": "p", "cron_expression": "TZ=UTC"}`,
		`{"cron_expression": "* * *"}`,
		`{`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		s, err := ParseSchedule(doc)
		if s == nil {
			if err == nil {
				t.Fatalf("ParseSchedule(%q): no schedule and no error", doc)
			}
			return
		}
		if err != nil {
			return
		}
		switch s.Status {
		case ScheduleEnabled, SchedulePaused, ScheduleDisabled:
		default:
			t.Fatalf("ParseSchedule(%q): status %q", doc, s.Status)
		}
		if _, err := s.Location(); err != nil {
			t.Fatalf("ParseSchedule(%q) accepted, then Location: %v", doc, err)
		}
		match, err := s.Entry().SiteMatcher()
		if err != nil {
			t.Fatalf("ParseSchedule(%q) accepted, then SiteMatcher: %v", doc, err)
		}
		match(s.Site)
		c, err := s.CronSchedule()
		if err != nil {
			t.Fatalf("ParseSchedule(%q) accepted, then CronSchedule: %v", doc, err)
		}
		prev := fuzzFrom
		for _, run := range NextRuns(c, fuzzFrom, 3) {
			if !run.After(prev) {
				t.Fatalf("ParseSchedule(%q): run %s not after %s", doc, run, prev)
			}
			prev = run
		}
	})
}
