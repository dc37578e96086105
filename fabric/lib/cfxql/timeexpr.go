package cfxql

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// timeKind is the kind of a time expression.
type timeKind int

const (
	tkAbs    timeKind = iota // an absolute time
	tkNow                    // now
	tkOffset                 // now plus an offset: -10 days
	tkNamed                  // a calendar period: today, this month, last week
)

// timeExpr is a time of a query, absolute or relative to the evaluation's
// now. Relative ones are resolved at evaluation (see Query.WithNow).
type timeExpr struct {
	kind     timeKind
	abs      time.Time // tkAbs
	dateOnly bool      // tkAbs: a date without a time of day
	n        int       // tkOffset: the count; tkNamed: the shift (0 this, -1 last, 1 next)
	unit     string    // tkOffset, tkNamed: second, minute, hour, day, week, month, year
	text     string    // the canonical text, quoted unless a number
}

// canonical renders the expression so that it parses back the same.
func (t *timeExpr) canonical() string { return t.text }

// point returns the instant the expression names: for a period, its
// start.
func (t *timeExpr) point(now time.Time) time.Time {
	switch t.kind {
	case tkAbs:
		return t.abs
	case tkNow:
		return now
	case tkOffset:
		return addUnits(now, t.unit, t.n)
	}
	start, _ := t.named(now)
	return start
}

// period returns the span the expression names: [start, end), or
// [start, end] when incl. A date is its day, a calendar period its
// span, an offset the span between it and now, an instant itself.
func (t *timeExpr) period(now time.Time) (start, end time.Time, incl bool) {
	switch t.kind {
	case tkAbs:
		if t.dateOnly {
			return t.abs, t.abs.AddDate(0, 0, 1), false
		}
		return t.abs, t.abs, true
	case tkNow:
		return now, now, true
	case tkOffset:
		p := addUnits(now, t.unit, t.n)
		if p.After(now) {
			return now, p, true
		}
		return p, now, true
	}
	start, end = t.named(now)
	return start, end, false
}

// rangeTo returns the span from t to u ('A' to 'B'): from the start of t
// to the end of u, including u itself when it is an instant.
func rangeTo(t, u *timeExpr, now time.Time) (start, end time.Time, incl bool) {
	start = t.point(now)
	if u.kind == tkNamed || u.kind == tkAbs && u.dateOnly {
		_, end, _ = u.period(now)
		return start, end, false
	}
	return start, u.point(now), true
}

// named returns the calendar period of a tkNamed expression, in now's
// location. Weeks start on Monday.
func (t *timeExpr) named(now time.Time) (start, end time.Time) {
	y, m, d := now.Date()
	loc := now.Location()
	switch t.unit {
	case "second":
		start = now.Truncate(time.Second)
	case "minute":
		start = time.Date(y, m, d, now.Hour(), now.Minute(), 0, 0, loc)
	case "hour":
		start = time.Date(y, m, d, now.Hour(), 0, 0, 0, loc)
	case "day":
		start = time.Date(y, m, d, 0, 0, 0, 0, loc)
	case "week":
		wd := (int(now.Weekday()) + 6) % 7 // days since Monday
		start = time.Date(y, m, d-wd, 0, 0, 0, 0, loc)
	case "month":
		start = time.Date(y, m, 1, 0, 0, 0, 0, loc)
	case "year":
		start = time.Date(y, 1, 1, 0, 0, 0, 0, loc)
	}
	start = addUnits(start, t.unit, t.n)
	return start, addUnits(start, t.unit, 1)
}

// addUnits adds n units to t (months and years by the calendar).
func addUnits(t time.Time, unit string, n int) time.Time {
	switch unit {
	case "second":
		return t.Add(time.Duration(n) * time.Second)
	case "minute":
		return t.Add(time.Duration(n) * time.Minute)
	case "hour":
		return t.Add(time.Duration(n) * time.Hour)
	case "day":
		return t.AddDate(0, 0, n)
	case "week":
		return t.AddDate(0, 0, 7*n)
	case "month":
		return t.AddDate(0, n, 0)
	case "year":
		return t.AddDate(n, 0, 0)
	}
	return t
}

// units maps the unit words (and abbreviations) to their unit.
var units = map[string]string{
	"s": "second", "sec": "second", "secs": "second", "second": "second", "seconds": "second",
	"m": "minute", "min": "minute", "mins": "minute", "minute": "minute", "minutes": "minute",
	"h": "hour", "hr": "hour", "hrs": "hour", "hour": "hour", "hours": "hour",
	"d": "day", "day": "day", "days": "day",
	"w": "week", "wk": "week", "wks": "week", "week": "week", "weeks": "week",
	"mo": "month", "mon": "month", "mons": "month", "month": "month", "months": "month",
	"y": "year", "yr": "year", "yrs": "year", "year": "year", "years": "year",
}

// timeRegexps are the patterns of relative and textual times, compiled on
// first use (a client that parses no time does not pay for them).
var timeRegexps = sync.OnceValue(func() struct{ offset, lastN, spaces, ampm, ordinal *regexp.Regexp } {
	return struct{ offset, lastN, spaces, ampm, ordinal *regexp.Regexp }{
		offset:  regexp.MustCompile(`^([+-]?)\s*(\d{1,9})\s*([a-z]+)(\s+ago)?$`),
		lastN:   regexp.MustCompile(`^(last|past|next)\s+(\d{1,9})\s+([a-z]+)$`),
		spaces:  regexp.MustCompile(`\s+`),
		ampm:    regexp.MustCompile(`(\d)\s+(am|pm)\b`),
		ordinal: regexp.MustCompile(`(\d)(st|nd|rd|th)\b`),
	}
})

// parseRelTime reads a relative time: now, today, yesterday, tomorrow,
// this/last/next <unit>, -10 days, -15m, 2 hours ago, last 3 days.
func parseRelTime(s string) (*timeExpr, bool) {
	s = strings.TrimSpace(timeRegexps().spaces.ReplaceAllString(strings.ToLower(s), " "))
	switch s {
	case "now":
		return &timeExpr{kind: tkNow, text: "'now'"}, true
	case "today":
		return &timeExpr{kind: tkNamed, unit: "day", text: "'today'"}, true
	case "yesterday":
		return &timeExpr{kind: tkNamed, unit: "day", n: -1, text: "'yesterday'"}, true
	case "tomorrow":
		return &timeExpr{kind: tkNamed, unit: "day", n: 1, text: "'tomorrow'"}, true
	}
	if w := strings.Fields(s); len(w) == 2 {
		shift, ok := periodShift(w[0])
		if u := units[w[1]]; ok && u != "" {
			return &timeExpr{kind: tkNamed, unit: u, n: shift, text: quoteString(w[0] + " " + u)}, true
		}
	}
	if m := timeRegexps().lastN.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[2])
		u := units[m[3]]
		if u == "" {
			return nil, false
		}
		if m[1] != "next" {
			n = -n
		}
		return offsetExpr(n, u), true
	}
	if m := timeRegexps().offset.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[2])
		u := units[m[3]]
		if u == "" || m[1] == "+" && m[4] != "" {
			return nil, false
		}
		if m[1] == "-" || m[1] == "" {
			n = -n // unsigned offsets are in the past
			if m[1] == "-" && m[4] != "" {
				return nil, false
			}
		}
		return offsetExpr(n, u), true
	}
	return nil, false
}

// periodShift reads the word before a calendar unit: this (0), last (-1)
// or next (1).
func periodShift(w string) (int, bool) {
	switch w {
	case "this", "current":
		return 0, true
	case "last", "previous":
		return -1, true
	case "next":
		return 1, true
	}
	return 0, false
}

func offsetExpr(n int, unit string) *timeExpr {
	text := fmt.Sprintf("'%+d %ss'", n, unit)
	return &timeExpr{kind: tkOffset, n: n, unit: unit, text: text}
}

// Layouts of ISO 8601 times with a zone, tried in order on the text as
// written.
var zonedLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999 Z07:00",
	"2006-01-02 15:04:05.999999999 -0700",
	"2006-01-02T15:04Z07:00",
}

// Layouts of times in the formats of mail and Unix dates, tried after the
// ISO ones.
var namedLayouts = []string{
	time.RFC1123Z, time.RFC1123, time.RFC822Z, time.RFC850,
	time.UnixDate, time.ANSIC,
}

// Layouts of absolute times without a zone (read as UTC), tried on the
// text as written.
var isoLayouts = []string{
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006/01/02 15:04:05",
	"2006/01/02 15:04",
	"01/02/2006 15:04:05",
	"01/02/2006 15:04",
}

// Date-only layouts (UTC midnight).
var dateLayouts = []string{"2006-01-02", "2006/01/02", "01/02/2006", "20060102"}

// Layouts of written-out times, tried on the text lowercased, without
// commas or ordinals and with "10 am" joined to "10am".
var textLayouts = []string{
	"jan 2 2006 3pm", "jan 2 2006 3:04pm", "jan 2 2006 3:04:05pm",
	"jan 2 2006 15:04", "jan 2 2006 15:04:05",
	"2 jan 2006 3pm", "2 jan 2006 3:04pm", "2 jan 2006 15:04", "2 jan 2006 15:04:05",
	"january 2 2006 3pm", "january 2 2006 3:04pm", "january 2 2006 15:04", "january 2 2006 15:04:05",
	"2 january 2006 3pm", "2 january 2006 15:04",
	"2006-01-02 3pm", "2006-01-02 3:04pm",
}

var textDateLayouts = []string{"jan 2 2006", "2 jan 2006", "january 2 2006", "2 january 2006", "jan 2006", "january 2006"}

// parseAbsTime reads an absolute time: RFC 3339 and ISO 8601 with or
// without a zone (UTC when none), a date, or a written-out time such as
// "Jan 1, 2022 10am". dateOnly tells a date without a time of day.
func parseAbsTime(s string) (t time.Time, dateOnly, ok bool) {
	s = strings.TrimSpace(s)
	// Every layout has a year: at least four digits.
	if len(s) < 6 || len(s) > 64 || strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' }) < 0 {
		return time.Time{}, false, false
	}
	if isDigit(s[0]) {
		for _, l := range zonedLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return t, false, true
			}
		}
		for _, l := range isoLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return t, false, true
			}
		}
		for _, l := range dateLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return t, true, true
			}
		}
	}
	for _, l := range namedLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, false, true
		}
	}
	low := strings.ToLower(strings.ReplaceAll(s, ",", " "))
	low = timeRegexps().spaces.ReplaceAllString(strings.TrimSpace(low), " ")
	low = timeRegexps().ampm.ReplaceAllString(timeRegexps().ordinal.ReplaceAllString(low, "$1"), "$1$2")
	for _, l := range textLayouts {
		if t, err := time.Parse(l, low); err == nil {
			return t, false, true
		}
	}
	for _, l := range textDateLayouts {
		if t, err := time.Parse(l, low); err == nil {
			return t, true, true
		}
	}
	return time.Time{}, false, false
}

// parseTimeText reads the text of a quoted time: relative or absolute.
func parseTimeText(s string) (*timeExpr, bool) {
	if t, ok := parseRelTime(s); ok {
		return t, true
	}
	if t, dateOnly, ok := parseAbsTime(s); ok {
		return &timeExpr{kind: tkAbs, abs: t, dateOnly: dateOnly, text: quoteString(s)}, true
	}
	return nil, false
}

// numberTime reads a number literal as a time (epoch seconds or ms).
func numberTime(n number, text string) (*timeExpr, bool) {
	t, ok := epochTime(n)
	if !ok {
		return nil, false
	}
	return &timeExpr{kind: tkAbs, abs: t, text: text}, true
}
