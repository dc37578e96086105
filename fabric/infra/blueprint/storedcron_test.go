package blueprint

import (
	"testing"
	"time"
)

// TestParseStoredCron: a record stored with a shorthand before crons
// had to be five fields keeps running as its five fields; what add
// refuses otherwise is still refused.
func TestParseStoredCron(t *testing.T) {
	from := time.Date(2026, 11, 26, 14, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		expr string
		next time.Time
		ok   bool
	}{
		{"@hourly", time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC), true},
		{"@daily", time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), true},
		{"CRON_TZ=UTC @weekly", time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), true},
		{"*/15 * * * *", time.Date(2026, 11, 26, 14, 45, 0, 0, time.UTC), true},
		{"@every 1m", time.Time{}, false},
		{"0 0 30 2 *", time.Time{}, false},
	} {
		s, err := ParseStoredCron(tc.expr)
		if (err == nil) != tc.ok {
			t.Errorf("%q: %v", tc.expr, err)
			continue
		}
		if err == nil && !s.Next(from).Equal(tc.next) {
			t.Errorf("%q: next %v, want %v", tc.expr, s.Next(from), tc.next)
		}
		if _, err := ParseCron(tc.expr); err == nil && tc.expr[0] == '@' {
			t.Errorf("ParseCron(%q) accepts a shorthand", tc.expr)
		}
	}
}
