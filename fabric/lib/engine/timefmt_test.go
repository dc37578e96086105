package engine

import (
	"testing"
	"time"
)

func TestStrftime(t *testing.T) {
	tm := time.Date(2024, 3, 7, 14, 5, 9, 123456789, time.UTC)
	cases := []struct{ layout, want string }{
		{"%Y-%m-%d %H:%M:%S", "2024-03-07 14:05:09"},
		{"%F %T.%f", "2024-03-07 14:05:09.123456"},
		{"%d/%b/%Y:%H:%M:%S %z", "07/Mar/2024:14:05:09 +0000"},
		{"%A %B %e %I%p %j %y %D %R %u %w %s %Z %%", "Thursday March  7 02PM 067 24 03/07/24 14:05 4 4 1709820309 UTC %"},
		{"%a %h", "Thu Mar"},
	}
	for _, c := range cases {
		if got := formatTime(tm, c.layout); got != c.want {
			t.Errorf("formatTime(%q) = %q, want %q", c.layout, got, c.want)
		}
	}
}

func TestParseTime(t *testing.T) {
	utc := func(y, mo, d, h, mi, s, ns int) time.Time {
		return time.Date(y, time.Month(mo), d, h, mi, s, ns, time.UTC)
	}
	cases := []struct {
		layout, in string
		want       time.Time
		bad        bool
	}{
		{"%Y-%m-%d %H:%M:%S", "2024-03-07 14:05:09", utc(2024, 3, 7, 14, 5, 9, 0), false},
		{"%Y-%m-%d %H:%M:%S.%f", "2024-03-07 14:05:09.5", utc(2024, 3, 7, 14, 5, 9, 500000000), false},
		{"%d/%b/%Y:%H:%M:%S %z", "07/mar/2024:14:05:09 +0130", utc(2024, 3, 7, 12, 35, 9, 0), false},
		{"%B %d, %Y %I:%M %p", "January 2, 2022 10:00 PM", utc(2022, 1, 2, 22, 0, 0, 0), false},
		{"%I %p", "12 AM", utc(1900, 1, 1, 0, 0, 0, 0), false},
		{"%m/%d/%y", "1/2/99", utc(1999, 1, 2, 0, 0, 0, 0), false},
		{"%Y %j", "2024 060", utc(2024, 2, 29, 0, 0, 0, 0), false},
		{"%s", "1709820309", utc(2024, 3, 7, 14, 5, 9, 0), false},
		{"%Y-%m-%dT%H:%M:%S%z", "2024-03-07T14:05:09Z", utc(2024, 3, 7, 14, 5, 9, 0), false},
		{"%a %d  %b", "Thu 7 Mar", utc(1900, 3, 7, 0, 0, 0, 0), false},
		{"%Y-%m-%d", "2024-02-30", time.Time{}, true},
		{"%Y-%m-%d", "2024-02-03 extra", time.Time{}, true},
		{"%Y-%m-%d", "24-02-03", time.Time{}, true},
		{"%H:%M", "25:00", time.Time{}, true},
		{"%Y%", "2024%", utc(2024, 1, 1, 0, 0, 0, 0), false},
	}
	for _, c := range cases {
		got, err := parseTime(c.layout, c.in)
		if c.bad {
			if err == nil {
				t.Errorf("parseTime(%q, %q) = %v, want an error", c.layout, c.in, got)
			}
			continue
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("parseTime(%q, %q) = %v, %v; want %v", c.layout, c.in, got, err, c.want)
		}
	}
	if err := checkStrftime("%Y-%q"); err == nil {
		t.Errorf("checkStrftime accepted %s", "%q")
	}
	if err := checkStrftime("%Y %"); err == nil {
		t.Error("checkStrftime accepted a lone %")
	}
}

func TestParseTimeAuto(t *testing.T) {
	want := time.Date(2022, 1, 2, 10, 0, 0, 0, time.UTC)
	for _, s := range []string{"2022-01-02T10:00:00Z", "2022-01-02T11:00:00+01:00", "2022-01-02 10:00:00",
		"2022-01-02T10:00", "Sun, 02 Jan 2022 10:00:00 GMT", "Jan 2, 2022 10:00:00", "2022/01/02 10:00:00",
		"2022-01-02 10:00:00.000"} {
		got, err := parseTimeAuto(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseTimeAuto(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := parseTimeAuto("soon"); err == nil {
		t.Error("parseTimeAuto accepted 'soon'")
	}
	for _, c := range []struct {
		v    any
		want time.Time
	}{
		{int64(1641117600), want}, {int64(1641117600000), want}, {int64(1641117600000000), want},
		{int64(1641117600000000000), want}, {1641117600.5, want.Add(500 * time.Millisecond)},
	} {
		if got := epochAuto(c.v); !got.Equal(c.want) {
			t.Errorf("epochAuto(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

func TestGrok(t *testing.T) {
	cases := []struct {
		pattern, in string
		want        []any
	}{
		{"%{IP:ip}", "fe80::1", []any{"fe80::1"}},
		{"%{IP:ip}", "1:2::3:4", []any{"1:2::3:4"}},
		{"%{IP:ip}", "::ffff:10.1.2.3", []any{"::ffff:10.1.2.3"}},
		{"%{IP:ip}", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", []any{"2001:0db8:85a3:0000:0000:8a2e:0370:7334"}},
		{"%{IPV4:ip}", "host 192.168.1.254 up", []any{"192.168.1.254"}},
		{"%{MAC:m} %{UUID:u}", "00:1A:2b:3c:4D:5e 123e4567-e89b-12d3-a456-426614174000",
			[]any{"00:1A:2b:3c:4D:5e", "123e4567-e89b-12d3-a456-426614174000"}},
		{"%{TIMESTAMP_ISO8601:ts} %{LOGLEVEL:lvl} %{GREEDYDATA:msg}", "2024-03-07T14:05:09.123+01:00 WARNING disk full",
			[]any{"2024-03-07T14:05:09.123+01:00", "WARNING", "disk full"}},
		{"\\[%{HTTPDATE:d}\\] %{QUOTEDSTRING:q} %{NUMBER:n:float}", `[07/Mar/2024:14:05:09 +0000] "GET / HTTP/1.1" 3.5`,
			[]any{"07/Mar/2024:14:05:09 +0000", `"GET / HTTP/1.1"`, 3.5}},
		{"%{HOSTNAME:h}:%{POSINT:p:int}%{URIPATH:path}", "db-1.example.com:8080/a/b", []any{"db-1.example.com", int64(8080), "/a/b"}},
		{"%{WORD:a} %{WORD:a}", "x y", []any{"x"}},
		{"%{SYSLOGBASE} %{GREEDYDATA:msg}", "Mar  7 14:05:09 web-1 sshd[42]: accepted",
			[]any{"Mar  7 14:05:09", "web-1", "sshd", "42", "accepted"}},
		{"%{INT:n}", "none", nil},
	}
	for _, c := range cases {
		g, err := compileGrok(c.pattern)
		if err != nil {
			t.Fatalf("compileGrok(%q): %v", c.pattern, err)
		}
		got := g.match(c.in)
		if len(got) != len(c.want) {
			t.Errorf("grok %q on %q = %#v, want %#v", c.pattern, c.in, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("grok %q on %q = %#v, want %#v", c.pattern, c.in, got, c.want)
				break
			}
		}
	}
	// every pattern compiles
	for _, n := range grokPatternNames() {
		if _, err := compileGrok("%{" + n + ":x}"); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	for _, bad := range []string{"%{NOPE}", "%{INT:x:bool}", "%{INT:x}("} {
		if _, err := compileGrok(bad); err == nil {
			t.Errorf("compileGrok(%q): no error", bad)
		}
	}
}
