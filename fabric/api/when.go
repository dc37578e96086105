package api

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// whenLayouts are the forms of an absolute time ParseWhen reads; times
// without a zone are UTC.
var whenLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
}

// ParseWhen reads a point in time as the "from" of a stream or a log
// archive is given: an ISO 8601 / RFC 3339 time (UTC unless it says its
// zone), epoch seconds, or a negative duration before now ("-15m",
// "-2h30m").
func ParseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") {
		if d, err := time.ParseDuration(s); err == nil {
			return now.Add(d).UTC(), nil
		}
	}
	for _, l := range whenLayouts {
		if t, err := time.ParseInLocation(l, s, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil && secs >= 0 {
		return time.Unix(0, int64(secs*1e9)).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("cannot read %q as a time (ISO 8601 like 2026-01-31T10:00:00, UTC unless a zone is given; epoch seconds; or a duration before now like -15m)", s)
}
