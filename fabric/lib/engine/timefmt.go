package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// This file formats and parses times with strftime-style formats (as
// Python's strftime and strptime), and reads times in common forms.

// strftimeDirectives are the directives formatTime and parseTime know.
const strftimeDirectives = "aAbBdDeFfHhIjmMnpRSsTtuwYyzZ%"

// checkStrftime checks the directives of a format.
func checkStrftime(layout string) error {
	for i := 0; i < len(layout); i++ {
		if layout[i] != '%' {
			continue
		}
		if i+1 >= len(layout) {
			return fmt.Errorf("the format ends with a lone '%%'")
		}
		i++
		if !strings.ContainsRune(strftimeDirectives, rune(layout[i])) {
			return fmt.Errorf("unknown directive %%%c (known: %%Y %%y %%m %%d %%e %%H %%I %%M %%S %%f %%p %%b %%B %%a %%A %%j %%z %%Z %%s %%F %%T %%D %%R %%u %%w %%%%)", layout[i])
		}
	}
	return nil
}

var (
	shortMonths = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	shortDays   = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
)

// formatTime formats t with a strftime format.
func formatTime(t time.Time, layout string) string {
	var b strings.Builder
	for i := 0; i < len(layout); i++ {
		c := layout[i]
		if c != '%' || i+1 >= len(layout) {
			b.WriteByte(c)
			continue
		}
		i++
		switch layout[i] {
		case 'Y':
			fmt.Fprintf(&b, "%04d", t.Year())
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			fmt.Fprintf(&b, "%02d", (t.Hour()+11)%12+1)
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'f':
			fmt.Fprintf(&b, "%06d", t.Nanosecond()/1000)
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'b', 'h':
			b.WriteString(shortMonths[t.Month()-1])
		case 'B':
			b.WriteString(t.Month().String())
		case 'a':
			b.WriteString(shortDays[t.Weekday()])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'F':
			b.WriteString(formatTime(t, "%Y-%m-%d"))
		case 'T':
			b.WriteString(formatTime(t, "%H:%M:%S"))
		case 'D':
			b.WriteString(formatTime(t, "%m/%d/%y"))
		case 'R':
			b.WriteString(formatTime(t, "%H:%M"))
		case 'u':
			fmt.Fprintf(&b, "%d", (int(t.Weekday())+6)%7+1)
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday()))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		default:
			b.WriteByte(layout[i])
		}
	}
	return b.String()
}

// timeParser parses a text with a strftime format.
type timeParser struct {
	s   string
	pos int
}

func (p *timeParser) num(min, max int) (int, error) {
	start := p.pos
	for p.pos < len(p.s) && p.pos-start < max && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	if p.pos-start < min {
		return 0, fmt.Errorf("expected a number at %q", p.rest())
	}
	return strconv.Atoi(p.s[start:p.pos])
}

func (p *timeParser) rest() string {
	if p.pos >= len(p.s) {
		return ""
	}
	return p.s[p.pos:]
}

// name reads one of names (case-insensitive, longest first) and returns
// its index modulo mod.
func (p *timeParser) name(names []string, mod int) (int, error) {
	best, idx := 0, -1
	for i, n := range names {
		if len(n) > best && len(p.s)-p.pos >= len(n) && strings.EqualFold(p.s[p.pos:p.pos+len(n)], n) {
			best, idx = len(n), i
		}
	}
	if idx < 0 {
		return 0, fmt.Errorf("expected a name at %q", p.rest())
	}
	p.pos += best
	return idx % mod, nil
}

var (
	monthNames = append(append([]string{}, shortMonths...), "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")
	dayNames   = append(append([]string{}, shortDays...), "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
)

// parseTime parses s with a strftime format. White space in the format
// matches any white space (or none); numbers may have fewer digits than
// their width. Times without a zone are UTC.
func parseTime(layout, s string) (time.Time, error) {
	p := &timeParser{s: s}
	year, month, day, hour, minute, sec, nsec, yday := 1900, 1, 1, 0, 0, 0, 0, 0
	pm, twelve := -1, false
	loc := time.UTC
	epoch := int64(math.MinInt64)
	layout = strings.NewReplacer("%F", "%Y-%m-%d", "%T", "%H:%M:%S", "%D", "%m/%d/%y", "%R", "%H:%M").Replace(layout)
	var err error
	for i := 0; i < len(layout) && err == nil; i++ {
		c := layout[i]
		if c == ' ' || c == '\t' || c == '\n' || (c == '%' && i+1 < len(layout) && (layout[i+1] == 'n' || layout[i+1] == 't')) {
			if c == '%' {
				i++
			}
			for p.pos < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.pos]) >= 0 {
				p.pos++
			}
			continue
		}
		if c != '%' || i+1 >= len(layout) || layout[i+1] == '%' {
			if c == '%' {
				i++
			}
			if p.pos >= len(p.s) || p.s[p.pos] != c {
				return time.Time{}, fmt.Errorf("'%s' does not match the format: expected %q at %q", s, c, p.rest())
			}
			p.pos++
			continue
		}
		i++
		switch layout[i] {
		case 'Y':
			year, err = p.num(4, 4)
		case 'y':
			if year, err = p.num(2, 2); year < 69 {
				year += 2000
			} else {
				year += 1900
			}
		case 'm':
			month, err = p.num(1, 2)
		case 'd':
			day, err = p.num(1, 2)
		case 'e':
			if p.pos < len(p.s) && p.s[p.pos] == ' ' {
				p.pos++
			}
			day, err = p.num(1, 2)
		case 'H':
			hour, err = p.num(1, 2)
		case 'I':
			hour, err = p.num(1, 2)
			twelve = true
		case 'M':
			minute, err = p.num(1, 2)
		case 'S':
			sec, err = p.num(1, 2)
		case 'f':
			start := p.pos
			var f int
			if f, err = p.num(1, 9); err == nil {
				for n := p.pos - start; n < 9; n++ {
					f *= 10
				}
				nsec = f
			}
		case 'p':
			pm, err = p.name([]string{"AM", "PM"}, 2)
		case 'b', 'h', 'B':
			var m int
			m, err = p.name(monthNames, 12)
			month = m + 1
		case 'a', 'A':
			_, err = p.name(dayNames, 7)
		case 'j':
			yday, err = p.num(1, 3)
		case 'u', 'w':
			_, err = p.num(1, 1)
		case 'z':
			loc, err = p.zone()
		case 'Z':
			start := p.pos
			for p.pos < len(p.s) && (p.s[p.pos] >= 'A' && p.s[p.pos] <= 'Z' || p.s[p.pos] >= 'a' && p.s[p.pos] <= 'z') {
				p.pos++
			}
			if z := p.s[start:p.pos]; z == "" {
				err = fmt.Errorf("expected a time zone at %q", p.rest())
			} else if l, lerr := time.LoadLocation(z); lerr == nil && z != "Local" {
				loc = l
			}
		case 's':
			start := p.pos
			if p.pos < len(p.s) && p.s[p.pos] == '-' {
				p.pos++
			}
			if _, err = p.num(1, 19); err == nil {
				epoch, err = strconv.ParseInt(p.s[start:p.pos], 10, 64)
			}
		default:
			err = fmt.Errorf("unknown directive %%%c", layout[i])
		}
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("'%s' does not match the format: %v", s, err)
	}
	if p.pos < len(p.s) {
		return time.Time{}, fmt.Errorf("'%s' does not match the format: %q is left over", s, p.rest())
	}
	if epoch != math.MinInt64 {
		return time.Unix(epoch, 0).UTC(), nil
	}
	if twelve {
		if hour < 1 || hour > 12 {
			return time.Time{}, fmt.Errorf("'%s': hour %d is not from 1 to 12", s, hour)
		}
		hour %= 12
	}
	if pm == 1 {
		hour += 12
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 {
		return time.Time{}, fmt.Errorf("'%s' is not a valid time", s)
	}
	if yday > 0 {
		month, day = 1, yday
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc)
	if yday == 0 && t.Day() != day {
		return time.Time{}, fmt.Errorf("'%s' is not a valid date", s)
	}
	return t.UTC(), nil
}

// zone reads Z or ±hh[:]mm.
func (p *timeParser) zone() (*time.Location, error) {
	if p.pos < len(p.s) && (p.s[p.pos] == 'Z' || p.s[p.pos] == 'z') {
		p.pos++
		return time.UTC, nil
	}
	if p.pos >= len(p.s) || p.s[p.pos] != '+' && p.s[p.pos] != '-' {
		return nil, fmt.Errorf("expected a zone offset at %q", p.rest())
	}
	sign := 1
	if p.s[p.pos] == '-' {
		sign = -1
	}
	p.pos++
	h, err := p.num(2, 2)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.s) && p.s[p.pos] == ':' {
		p.pos++
	}
	m, err := p.num(2, 2)
	if err != nil {
		return nil, err
	}
	return time.FixedZone("", sign*(h*3600+m*60)), nil
}

// autoLayouts are the forms parseTimeAuto reads (fractional seconds are
// read after the seconds of any of them).
var autoLayouts = []string{
	time.RFC3339, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05Z0700", "2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05 MST",
	"2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02",
	"2006/01/02 15:04:05", "2006/01/02", "01/02/2006 15:04:05", "01/02/2006",
	time.RFC1123Z, time.RFC1123, time.RFC850, time.RFC822Z, time.RFC822, time.ANSIC, time.UnixDate,
	"02/Jan/2006:15:04:05 -0700", "Jan 2, 2006 15:04:05", "Jan 2, 2006", "January 2, 2006",
	"2 Jan 2006 15:04:05", "2 Jan 2006",
}

// parseTimeAuto reads a time in one of the common forms (ISO 8601 and RFC
// 3339 first); times without a zone are UTC.
func parseTimeAuto(s string) (time.Time, error) {
	t := strings.TrimSpace(s)
	for _, l := range autoLayouts {
		if v, err := time.Parse(l, t); err == nil {
			return v.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read '%s' as a time", s)
}

// epochUnits returns the units per second of an epoch time, told by its
// size: seconds, milliseconds, microseconds or nanoseconds.
func epochUnits(x float64) int64 {
	switch a := math.Abs(x); {
	case a < 1e11:
		return 1
	case a < 1e14:
		return 1e3
	case a < 1e17:
		return 1e6
	}
	return 1e9
}

// epochAuto reads an epoch time in units told by its size (epochUnits).
func epochAuto(v any) time.Time {
	switch x := v.(type) {
	case int64:
		return epochInt(x, epochUnits(float64(x)))
	case float64:
		return epochFloat(x, epochUnits(x))
	}
	return time.Time{}
}

// epochInt reads n units (of ups per second) since the epoch.
func epochInt(n, ups int64) time.Time {
	return time.Unix(n/ups, (n%ups)*(1e9/ups)).UTC()
}

// epochFloat reads x units (of ups per second) since the epoch.
func epochFloat(x float64, ups int64) time.Time {
	sec, frac := math.Modf(x / float64(ups))
	return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
}
