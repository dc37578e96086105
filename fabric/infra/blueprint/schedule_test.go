package blueprint

import (
	"reflect"
	"testing"
	"time"
	_ "time/tzdata" // the zones below, whether or not the machine has a zoneinfo database

	"github.com/robfig/cron/v3"
)

// TestParseScheduleGood checks that well-formed schedules parse, pass
// Check and get the enabled status by default.
func TestParseScheduleGood(t *testing.T) {
	s, err := ParseSchedule([]byte(`{"name": "nightly", "pipeline": "report", "version": "2024_01_31_2",
		"cron_expression": "0 2 * * *", "timezone": "Europe/Paris", "site": "loc.*", "site_type": "regex",
		"lfilter": "a = 1", "rfilter": "b = 2", "description": "every night"}`))
	if err != nil {
		t.Fatalf("ParseSchedule: %v", err)
	}
	want := &Schedule{Name: "nightly", Pipeline: "report", Version: "2024_01_31_2", Cron: "0 2 * * *",
		Timezone: "Europe/Paris", Site: "loc.*", SiteType: "regex", LFilter: "a = 1", RFilter: "b = 2",
		Status: ScheduleEnabled, Description: "every night"}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("ParseSchedule = %+v\nwant %+v", s, want)
	}

	for _, tc := range []struct{ name, doc, status string }{
		{"minimal", `{"name": "n", "pipeline": "p", "cron_expression": "* * * * *"}`, ScheduleEnabled},
		{"enabled", `{"name": "n", "pipeline": "p", "cron_expression": "0 0 * * *", "status": "enabled"}`, ScheduleEnabled},
		{"paused", `{"name": "n", "pipeline": "p", "cron_expression": "0 0 * * *", "status": "paused"}`, SchedulePaused},
		{"disabled", `{"name": "n", "pipeline": "p", "cron_expression": "0 0 * * *", "status": "disabled"}`, ScheduleDisabled},
		{"any version", `{"name": "n", "pipeline": "p", "version": "*", "cron_expression": "0 0 * * *"}`, ScheduleEnabled},
		{"null version", `{"name": "n", "pipeline": "p", "version": null, "cron_expression": "0 0 * * *"}`, ScheduleEnabled},
		{"site by name", `{"name": "n", "pipeline": "p", "cron_expression": "0 0 * * *", "site": "Edge", "site_type": "name"}`, ScheduleEnabled},
		{"any site", `{"name": "n", "pipeline": "p", "cron_expression": "0 0 * * *", "site": "*"}`, ScheduleEnabled},
		{"UTC", `{"name": "n", "pipeline": "p", "cron_expression": "0 0 * * *", "timezone": "UTC"}`, ScheduleEnabled},
		{"three-part zone", `{"name": "n", "pipeline": "p", "cron_expression": "0 0 * * *", "timezone": "America/Argentina/Buenos_Aires"}`, ScheduleEnabled},
		{"zone with a sign", `{"name": "n", "pipeline": "p", "cron_expression": "0 0 * * *", "timezone": "Etc/GMT+5"}`, ScheduleEnabled},
		{"zone with a minus", `{"name": "n", "pipeline": "p", "cron_expression": "0 0 * * *", "timezone": "Etc/GMT-14"}`, ScheduleEnabled},
		{"zone in the cron", `{"name": "n", "pipeline": "p", "cron_expression": "CRON_TZ=Asia/Tokyo 0 9 * * *"}`, ScheduleEnabled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSchedule([]byte(tc.doc))
			if err != nil {
				t.Fatalf("ParseSchedule(%s): %v", tc.doc, err)
			}
			if s.Status != tc.status {
				t.Errorf("ParseSchedule(%s).Status = %q, want %q", tc.doc, s.Status, tc.status)
			}
			if _, err := s.CronSchedule(); err != nil {
				t.Errorf("CronSchedule: %v", err)
			}
		})
	}
}

// TestParseScheduleBad checks the exact error for each fault Check finds
// in a schedule, and that the schedule is still returned.
func TestParseScheduleBad(t *testing.T) {
	const base = `"name": "n", "pipeline": "p"`
	const notZone = ` is not a time zone name (such as UTC or Europe/Paris)`
	for _, tc := range []struct{ name, doc, err string }{
		{"no cron", `{` + base + `}`,
			`cron_expression: "" is not a five-field cron expression: empty spec string`},
		{"short cron", `{` + base + `, "cron_expression": "* * *"}`,
			`cron_expression: "* * *" is not a five-field cron expression: expected exactly 5 fields, found 3: [* * *]`},
		{"cron with seconds", `{` + base + `, "cron_expression": "0 0 2 * * *"}`,
			`cron_expression: "0 0 2 * * *" is not a five-field cron expression: expected exactly 5 fields, found 6: [0 0 2 * * *]`},
		{"cron out of range", `{` + base + `, "cron_expression": "0 0 32 * *"}`,
			`cron_expression: "0 0 32 * *" is not a five-field cron expression: end of range (32) above maximum (31): 32`},
		{"cron zone only", `{` + base + `, "cron_expression": "CRON_TZ=UTC"}`,
			`cron_expression: "CRON_TZ=UTC" is not a five-field cron expression: the time zone is not followed by a space and the fields`},
		{"cron zone a path", `{` + base + `, "cron_expression": "TZ=../../etc/passwd * * * * *"}`,
			`cron_expression: "TZ=../../etc/passwd * * * * *" is not a five-field cron expression: provided bad location ../../etc/passwd: time: invalid location name`},
		{"zone a relative path", `{` + base + `, "cron_expression": "0 0 * * *", "timezone": "../../etc/passwd"}`,
			`timezone: "../../etc/passwd"` + notZone},
		{"zone a path below a zone", `{` + base + `, "cron_expression": "0 0 * * *", "timezone": "Europe/../../etc/passwd"}`,
			`timezone: "Europe/../../etc/passwd"` + notZone},
		{"zone an absolute path", `{` + base + `, "cron_expression": "0 0 * * *", "timezone": "/etc/localtime"}`,
			`timezone: "/etc/localtime"` + notZone},
		{"zone with a trailing slash", `{` + base + `, "cron_expression": "0 0 * * *", "timezone": "Europe/"}`,
			`timezone: "Europe/"` + notZone},
		{"zone with a space", `{` + base + `, "cron_expression": "0 0 * * *", "timezone": "Europe/Paris "}`,
			`timezone: "Europe/Paris "` + notZone},
		{"zone with a newline", `{` + base + `, "cron_expression": "0 0 * * *", "timezone": "Europe/Paris\n"}`,
			`timezone: "Europe/Paris\n"` + notZone},
		{"zone an offset", `{` + base + `, "cron_expression": "0 0 * * *", "timezone": "+02:00"}`,
			`timezone: "+02:00"` + notZone},
		{"unknown zone", `{` + base + `, "cron_expression": "0 0 * * *", "timezone": "Mars/Olympus_Mons"}`,
			`timezone: "Mars/Olympus_Mons" is not a known time zone`},
		{"misspelt zone", `{` + base + `, "cron_expression": "0 0 * * *", "timezone": "Europe/Pariss"}`,
			`timezone: "Europe/Pariss" is not a known time zone`},
		{"version a number", `{` + base + `, "cron_expression": "0 0 * * *", "version": 1.0}`,
			`version: "1.0" is not a pipeline version (YYYY_MM_DD_N, or * for the latest published)`},
		{"version a word", `{` + base + `, "cron_expression": "0 0 * * *", "version": "latest"}`,
			`version: "latest" is not a pipeline version (YYYY_MM_DD_N, or * for the latest published)`},
		{"bad site", `{` + base + `, "cron_expression": "0 0 * * *", "site": "("}`,
			"site \"(\" is not a regular expression: missing closing ): `(`"},
		{"bad site_type", `{` + base + `, "cron_expression": "0 0 * * *", "site": "x", "site_type": "glob"}`,
			`site_type is regex or name, not "glob"`},
		{"bad status", `{` + base + `, "cron_expression": "0 0 * * *", "status": "running"}`,
			`status: "running" is not one of enabled, paused, disabled`},
		{"status in capitals", `{` + base + `, "cron_expression": "0 0 * * *", "status": "Enabled"}`,
			`status: "Enabled" is not one of enabled, paused, disabled`},
		{"cron checked first", `{` + base + `, "cron_expression": "x", "timezone": "../x", "status": "no"}`,
			`cron_expression: "x" is not a five-field cron expression: expected exactly 5 fields, found 1: [x]`},
		{"zone before version", `{` + base + `, "cron_expression": "0 0 * * *", "timezone": "Nowhere", "version": "x"}`,
			`timezone: "Nowhere" is not a known time zone`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSchedule([]byte(tc.doc))
			if err == nil {
				t.Fatalf("ParseSchedule(%s): no error, want %q", tc.doc, tc.err)
			}
			if err.Error() != tc.err {
				t.Fatalf("ParseSchedule(%s):\n got %q\nwant %q", tc.doc, err, tc.err)
			}
			if s == nil {
				t.Fatalf("ParseSchedule(%s): a schedule that fails Check should still be returned", tc.doc)
			}
		})
	}
	for _, doc := range []string{``, `{`, `[]`, `{"name": 1}`, `{"cron_expression": ["* * * * *"]}`, `{"version": false}`} {
		if s, err := ParseSchedule([]byte(doc)); err == nil || s != nil {
			t.Errorf("ParseSchedule(%s) = %+v, %v; want no schedule and an error", doc, s, err)
		}
	}
}

// TestScheduleLocation checks a schedule's time zone: UTC by default,
// else the named zone.
func TestScheduleLocation(t *testing.T) {
	for tz, want := range map[string]string{"": "UTC", "UTC": "UTC", "Europe/Paris": "Europe/Paris", "Asia/Kolkata": "Asia/Kolkata"} {
		loc, err := (&Schedule{Timezone: tz}).Location()
		if err != nil {
			t.Errorf("Location(%q): %v", tz, err)
			continue
		}
		if loc.String() != want {
			t.Errorf("Location(%q) = %s, want %s", tz, loc, want)
		}
	}
}

// TestScheduleEntry checks the schedule seen as a blueprint's scheduled
// entry: the schedule's name is the label.
func TestScheduleEntry(t *testing.T) {
	s := &Schedule{Name: "nightly", Pipeline: "report", Version: "*", Cron: "0 0 * * *", Timezone: "Europe/Paris",
		Site: "Edge", SiteType: "name", LFilter: "a = 1", Status: SchedulePaused}
	want := Entry{Name: "report", Label: "nightly", Version: "*", Site: "Edge", SiteType: "name", Cron: "0 0 * * *"}
	if got := s.Entry(); !reflect.DeepEqual(got, want) {
		t.Errorf("Entry = %+v, want %+v", got, want)
	}
	if got := s.Entry().Key(); got != "nightly" {
		t.Errorf("Entry().Key() = %q, want nightly", got)
	}
}

// TestCronScheduleNext checks that a schedule's cron runs in its time
// zone, whatever the zone of the time it is asked from.
func TestCronScheduleNext(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cron, tz string
		from, want     time.Time
	}{
		{"Paris in winter", "0 2 * * *", "Europe/Paris",
			time.Date(2024, 1, 15, 12, 0, 0, 0, time.UTC), time.Date(2024, 1, 16, 1, 0, 0, 0, time.UTC)},
		{"Paris in summer", "0 2 * * *", "Europe/Paris",
			time.Date(2024, 7, 15, 12, 0, 0, 0, time.UTC), time.Date(2024, 7, 16, 0, 0, 0, 0, time.UTC)},
		{"Paris asked in New York", "0 2 * * *", "Europe/Paris",
			time.Date(2024, 1, 15, 7, 0, 0, 0, newYork), time.Date(2024, 1, 16, 1, 0, 0, 0, time.UTC)},
		{"Paris, before the run the same day", "0 2 * * *", "Europe/Paris",
			time.Date(2024, 1, 15, 0, 30, 0, 0, time.UTC), time.Date(2024, 1, 15, 1, 0, 0, 0, time.UTC)},
		{"Paris, at the run itself", "0 2 * * *", "Europe/Paris",
			time.Date(2024, 1, 15, 1, 0, 0, 0, time.UTC), time.Date(2024, 1, 16, 1, 0, 0, 0, time.UTC)},
		{"UTC by default", "0 2 * * *", "",
			time.Date(2024, 1, 15, 12, 0, 0, 0, newYork), time.Date(2024, 1, 16, 2, 0, 0, 0, time.UTC)},
		{"Kolkata, half an hour off", "0 0 * * *", "Asia/Kolkata",
			time.Date(2024, 1, 15, 12, 0, 0, 0, time.UTC), time.Date(2024, 1, 15, 18, 30, 0, 0, time.UTC)},
		{"day of week in the zone", "0 1 * * MON", "Asia/Tokyo", // Monday 01:00 in Tokyo is Sunday 16:00 UTC
			time.Date(2024, 1, 10, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 14, 16, 0, 0, 0, time.UTC)},
		{"New York across the spring change", "0 12 * * *", "America/New_York",
			time.Date(2024, 3, 9, 18, 0, 0, 0, time.UTC), time.Date(2024, 3, 10, 16, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := (&Schedule{Cron: tc.cron, Timezone: tc.tz}).CronSchedule()
			if err != nil {
				t.Fatalf("CronSchedule: %v", err)
			}
			if got := c.Next(tc.from); !got.Equal(tc.want) {
				t.Errorf("Next(%s) = %s, want %s", tc.from, got.UTC(), tc.want)
			}
		})
	}
	for _, s := range []*Schedule{{Cron: "x"}, {Cron: "0 0 * * *", Timezone: "../x"}, {Cron: "0 0 * * *", Timezone: "No/Where"}} {
		if c, err := s.CronSchedule(); err == nil {
			t.Errorf("CronSchedule(%+v) = %v, want an error", s, c)
		}
	}
}

// TestNextRuns checks the next n runs of a cron, in order, and that a
// cron that never runs gives none.
func TestNextRuns(t *testing.T) {
	from := time.Date(2024, 1, 15, 10, 7, 30, 0, time.UTC)
	c, err := ParseCron("*/15 * * * *")
	if err != nil {
		t.Fatal(err)
	}
	got := NextRuns(c, from, 5)
	var want []time.Time
	for _, hm := range [][2]int{{10, 15}, {10, 30}, {10, 45}, {11, 0}, {11, 15}} {
		want = append(want, time.Date(2024, 1, 15, hm[0], hm[1], 0, 0, time.UTC))
	}
	if len(got) != len(want) {
		t.Fatalf("NextRuns = %v, want %v", got, want)
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Errorf("NextRuns[%d] = %s, want %s", i, got[i], want[i])
		}
	}
	if got := NextRuns(c, from, 0); len(got) != 0 {
		t.Errorf("NextRuns(0) = %v, want none", got)
	}
	if got := NextRuns(c, from, -1); len(got) != 0 {
		t.Errorf("NextRuns(-1) = %v, want none", got)
	}

	// 30 February never comes (ParseCron refuses it; the library
	// reads it)
	never, err := cron.ParseStandard("0 0 30 2 *")
	if err != nil {
		t.Fatal(err)
	}
	if got := NextRuns(never, from, 3); len(got) != 0 {
		t.Errorf("NextRuns(30 February) = %v, want none", got)
	}

	// in a zone, across the autumn change in Paris (at 04:00: the cron
	// library runs a job set in the repeated hour, 02:00, twice that day)
	s := &Schedule{Cron: "0 4 * * *", Timezone: "Europe/Paris"}
	cz, err := s.CronSchedule()
	if err != nil {
		t.Fatal(err)
	}
	got = NextRuns(cz, time.Date(2024, 10, 25, 12, 0, 0, 0, time.UTC), 3)
	want = []time.Time{
		time.Date(2024, 10, 26, 2, 0, 0, 0, time.UTC), // summer time: UTC+2
		time.Date(2024, 10, 27, 3, 0, 0, 0, time.UTC), // winter time from 03:00 that day: UTC+1
		time.Date(2024, 10, 28, 3, 0, 0, 0, time.UTC),
	}
	if len(got) != len(want) {
		t.Fatalf("NextRuns(Paris) = %v, want %v", got, want)
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Errorf("NextRuns(Paris)[%d] = %s, want %s", i, got[i].UTC(), want[i])
		}
	}
}

// TestScheduleStatuses checks the list of statuses a schedule may have.
func TestScheduleStatuses(t *testing.T) {
	want := []string{"enabled", "paused", "disabled"}
	if !reflect.DeepEqual(ScheduleStatuses, want) {
		t.Errorf("ScheduleStatuses = %v, want %v", ScheduleStatuses, want)
	}
	for _, st := range ScheduleStatuses {
		s := &Schedule{Cron: "0 0 * * *", Status: st}
		if err := s.Check(); err != nil {
			t.Errorf("Check(status %q): %v", st, err)
		}
	}
}
