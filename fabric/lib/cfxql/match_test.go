package cfxql

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"
	"time"
)

// TestMatchDicts covers what only dicts have: missing keys, nested maps,
// Go types of every kind, times as strings and numbers.
func TestMatchDicts(t *testing.T) {
	row := map[string]any{
		"cpu_load1":   6.5,
		"mem_percent": float32(97.5),
		"jobs":        int32(3),
		"big":         uint64(math.MaxUint64),
		"port":        "443",
		"count":       json.Number("12"),
		"huge":        new(big.Int).Lsh(big.NewInt(1), 70),
		"raw":         []byte("bytes here"),
		"site":        "nyc",
		"labels":      map[string]any{"site": "sfo", "tier": map[string]any{"name": "gold"}},
		"tags":        []any{"prod", "web"},
		"strmap":      map[string]string{"k": "v"},
		"labels.site": "flat wins",
		"seen":        time.Date(2022, 1, 10, 8, 0, 0, 0, time.FixedZone("EST", -5*3600)), // 13:00 UTC
		"seen_text":   "2022-01-10T13:00:00Z",
		"seen_epoch":  1641819600,    // 2022-01-10T13:00:00Z
		"seen_ms":     1641819600000, // the same in milliseconds
		"nothing":     nil,
		"ok":          true,
		"nan":         math.NaN(),
	}
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"cpu_load1 <= 7.0 and mem_percent < 98 and jobs < 20", true},
		{"jobs = 3 and jobs = 3.0 and jobs = '3'", true},
		{"big > 1e19 and big > 9223372036854775807", true},
		{"port = 443 and port > 100 and port = '443'", true},
		{"port > '5'", false}, // strings compare lexically
		{"count = 12 and count >= 12.0", true},
		{"huge > 1e21", true},
		{"raw ~ 'here'", true},
		{"missing = 1", false},
		{"missing != 1", false},
		{"missing is null and nothing is null and nothing is empty", true},
		{"missing not in [1, 2]", false},
		{"not missing = 1", true},
		{"labels.site = 'flat wins'", true},
		{"labels.tier.name = 'gold'", true},
		{"labels.tier.other is null", true},
		{"labels.nope.x is null", true},
		{"strmap.k = 'v'", true},
		{"tags ~ 'prod'", true},
		{"tags ~ '\"web\"'", true},
		{"labels ~ 'gold'", true},
		{"seen = '2022-01-10T13:00:00Z'", true},
		{"seen after '2022-01-10 12:59'", true},
		{"seen before '2022-01-10T08:30:00-05:00'", true},
		{"seen_text during '2022-01-10'", true},
		{"seen_epoch during '2022-01-10'", true},
		{"seen_ms during '2022-01-10' to '2022-01-10T13:00:00Z'", true},
		{"seen_ms after '2022-01-10T13:00:00Z'", false},
		{"site after '2020-01-01'", false},
		{"site not during this year", false},
		{"ok = true and ok = 'True' and ok ~ 'ru'", true},
		{"ok > false", false},
		{"nan = 1 or nan > 1 or nan < 1", false},
		{"nan != 1", true},
		{"site in ['nyc', 'sfo'] and site not in ['lax']", true},
		{"site ? '^n' and site !? 'x' and site ^~ 'ny' and site ~$ 'yc'", true},
	} {
		q, err := Parse(c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		got, err := q.WithNow(fixedNow).Match(row)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got != c.want {
			t.Errorf("%s: got %v, want %v", c.query, got, c.want)
		}
	}
}

// TestNowLocation checks that calendar periods follow now's location.
func TestNowLocation(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	now := time.Date(2022, 1, 15, 3, 0, 0, 0, tokyo)                          // 2022-01-14T18:00Z
	row := map[string]any{"t": time.Date(2022, 1, 14, 16, 0, 0, 0, time.UTC)} // 15 Jan 01:00 in Tokyo
	q := MustParse("t during today").WithNow(now)
	if ok, _ := q.Match(row); !ok {
		t.Error("today in Tokyo")
	}
	if ok, _ := q.WithNow(now.UTC()).Match(row); !ok {
		t.Error("today in UTC")
	}
	if ok, _ := MustParse("t during yesterday").WithNow(now).Match(row); ok {
		t.Error("yesterday in Tokyo")
	}
	// Without WithNow, relative times follow the clock.
	if ok, _ := MustParse("t before now and t after '2000-01-01'").Match(row); !ok {
		t.Error("now")
	}
}

func TestTimeTexts(t *testing.T) {
	for _, c := range []struct {
		text string
		want time.Time
	}{
		{"2022-01-01", time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"2022/01/02", time.Date(2022, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"2022-01-01T10:11:12", time.Date(2022, 1, 1, 10, 11, 12, 0, time.UTC)},
		{"2022-01-01 10:11:12.5", time.Date(2022, 1, 1, 10, 11, 12, 5e8, time.UTC)},
		{"2022-01-01T10:11", time.Date(2022, 1, 1, 10, 11, 0, 0, time.UTC)},
		{"2022-01-01T10:11:12Z", time.Date(2022, 1, 1, 10, 11, 12, 0, time.UTC)},
		{"2022-01-01T10:11:12+02:00", time.Date(2022, 1, 1, 8, 11, 12, 0, time.UTC)},
		{"2022-01-01T10:11:12.123456789-0100", time.Date(2022, 1, 1, 11, 11, 12, 123456789, time.UTC)},
		{"Jan 1, 2022 10am", time.Date(2022, 1, 1, 10, 0, 0, 0, time.UTC)},
		{"jan 1 2022 10:30 PM", time.Date(2022, 1, 1, 22, 30, 0, 0, time.UTC)},
		{"January 2nd, 2022 15:04", time.Date(2022, 1, 2, 15, 4, 0, 0, time.UTC)},
		{"2 Jan 2022", time.Date(2022, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"Jan 2022", time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"Sun, 02 Jan 2022 15:04:05 +0000", time.Date(2022, 1, 2, 15, 4, 5, 0, time.UTC)},
		{"now", fixedNow},
		{"NOW", fixedNow},
		{"today", time.Date(2022, 1, 15, 0, 0, 0, 0, time.UTC)},
		{"yesterday", time.Date(2022, 1, 14, 0, 0, 0, 0, time.UTC)},
		{"tomorrow", time.Date(2022, 1, 16, 0, 0, 0, 0, time.UTC)},
		{"this week", time.Date(2022, 1, 10, 0, 0, 0, 0, time.UTC)},
		{"last  week", time.Date(2022, 1, 3, 0, 0, 0, 0, time.UTC)},
		{"this month", time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"last month", time.Date(2021, 12, 1, 0, 0, 0, 0, time.UTC)},
		{"next month", time.Date(2022, 2, 1, 0, 0, 0, 0, time.UTC)},
		{"this year", time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"last year", time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"this hour", time.Date(2022, 1, 15, 12, 0, 0, 0, time.UTC)},
		{"-10 days", fixedNow.AddDate(0, 0, -10)},
		{"-15 minutes", fixedNow.Add(-15 * time.Minute)},
		{"-15m", fixedNow.Add(-15 * time.Minute)},
		{"-2h", fixedNow.Add(-2 * time.Hour)},
		{"-1 month", fixedNow.AddDate(0, -1, 0)},
		{"+1 week", fixedNow.AddDate(0, 0, 7)},
		{"3 hours ago", fixedNow.Add(-3 * time.Hour)},
		{"last 2 days", fixedNow.AddDate(0, 0, -2)},
		{"-1 year", fixedNow.AddDate(-1, 0, 0)},
	} {
		te, ok := parseTimeText(c.text)
		if !ok {
			t.Errorf("%q does not parse", c.text)
			continue
		}
		if got := te.point(fixedNow); !got.Equal(c.want) {
			t.Errorf("%q: got %v, want %v", c.text, got, c.want)
		}
	}
	for _, bad := range []string{"", "whenever", "-10 parsecs", "10", "2022-13-01", "Feb 30 2022", "-2 hours ago", "this decade"} {
		if _, ok := parseTimeText(bad); ok {
			t.Errorf("%q parses", bad)
		}
	}
}
