package blueprint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule is a standalone schedule (schedule-add): a pipeline run on a
// five-field cron in a time zone, placed like run places a job.
type Schedule struct {
	Name        string `json:"name"`
	Pipeline    string `json:"pipeline"`
	Version     Text   `json:"version,omitempty"` // "*" or "": the latest published
	Cron        string `json:"cron_expression"`
	Timezone    string `json:"timezone,omitempty"` // IANA name; "" is UTC
	Site        string `json:"site,omitempty"`
	SiteType    string `json:"site_type,omitempty"`
	LFilter     string `json:"lfilter,omitempty"`
	RFilter     string `json:"rfilter,omitempty"`
	Status      string `json:"status,omitempty"` // enabled (the default), paused, disabled
	Description string `json:"description,omitempty"`
}

// Schedule statuses: an enabled schedule runs; a paused one keeps its
// place and runs again when enabled; a disabled one is off.
const (
	ScheduleEnabled  = "enabled"
	SchedulePaused   = "paused"
	ScheduleDisabled = "disabled"
)

// ScheduleStatuses are the statuses a schedule may have.
var ScheduleStatuses = []string{ScheduleEnabled, SchedulePaused, ScheduleDisabled}

// ParseSchedule reads a schedule's JSON document and checks it.
func ParseSchedule(doc []byte) (*Schedule, error) {
	var s Schedule
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, err
	}
	if s.Status == "" {
		s.Status = ScheduleEnabled
	}
	return &s, s.Check()
}

// Check checks the schedule's cron, time zone, version, site and status.
func (s *Schedule) Check() error {
	if _, err := ParseCron(s.Cron); err != nil {
		return fmt.Errorf("cron_expression: %v", err)
	}
	if _, err := s.Location(); err != nil {
		return err
	}
	if s.Version != "" && s.Version != "*" && !versionPattern().MatchString(string(s.Version)) {
		return fmt.Errorf("version: %q is not a pipeline version (YYYY_MM_DD_N, or * for the latest published)", s.Version)
	}
	if _, err := s.Entry().SiteMatcher(); err != nil {
		return err
	}
	switch s.Status {
	case ScheduleEnabled, SchedulePaused, ScheduleDisabled:
	default:
		return fmt.Errorf("status: %q is not one of enabled, paused, disabled", s.Status)
	}
	return nil
}

// Location is the schedule's time zone.
func (s *Schedule) Location() (*time.Location, error) {
	if s.Timezone == "" {
		return time.UTC, nil
	}
	if !tzPattern().MatchString(s.Timezone) {
		return nil, fmt.Errorf("timezone: %q is not a time zone name (such as UTC or Europe/Paris)", s.Timezone)
	}
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		return nil, fmt.Errorf("timezone: %q is not a known time zone", s.Timezone)
	}
	return loc, nil
}

// tzPattern is what a time zone name may hold (LoadLocation reads files).
var tzPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*$`) })

// Entry is the schedule as a scheduled entry of a blueprint.
func (s *Schedule) Entry() Entry {
	return Entry{Name: s.Pipeline, Label: s.Name, Version: s.Version, Site: s.Site, SiteType: s.SiteType, Cron: s.Cron}
}

// CronSchedule returns the schedule's cron in its time zone.
func (s *Schedule) CronSchedule() (cron.Schedule, error) {
	c, err := ParseStoredCron(s.Cron)
	if err != nil {
		return nil, err
	}
	loc, err := s.Location()
	if err != nil {
		return nil, err
	}
	return inZone{c, loc}, nil
}

// inZone is a cron read in a time zone.
type inZone struct {
	s   cron.Schedule
	loc *time.Location
}

// Next is the next time after t, read in the zone.
func (z inZone) Next(t time.Time) time.Time { return z.s.Next(t.In(z.loc)) }

// NextRuns returns the next n times a cron runs after t.
func NextRuns(c cron.Schedule, t time.Time, n int) []time.Time {
	var out []time.Time
	for i := 0; i < n; i++ {
		t = c.Next(t)
		if t.IsZero() {
			break
		}
		out = append(out, t)
	}
	return out
}
